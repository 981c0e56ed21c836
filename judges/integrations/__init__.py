"""judgelab inside other tools: the pytest plugin and publishing to the Hugging Face Hub."""

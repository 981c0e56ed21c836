"""judgelab: meta-evaluation of LLM judges for RAG answers (GroUSE-style unit tests and more)."""

__version__ = "0.1.0"

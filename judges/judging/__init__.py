"""Judges: prompt templates, asking a model and parsing its reply, the GroUSE grounded-QA judge."""

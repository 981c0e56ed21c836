"""Typed settings read from the command line, TOML files and keyword arguments (one model per kind of setting)."""

"""The package version, in the bottom layer so that any module may name it."""

__version__ = "0.1.0"

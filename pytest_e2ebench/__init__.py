"""pytest-e2ebench: benchmark LLM software-development agents on whole projects."""

__version__ = "0.1.0"

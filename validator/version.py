"""The version, in one place (the package metadata in pyproject.toml must match it)."""

__version__ = "0.1.0"

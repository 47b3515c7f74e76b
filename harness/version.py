"""The harness's version: a leaf every room may import (reports, cassette metadata and adapters carry it)."""

__all__ = ["__version__"]

__version__ = "0.1.0"

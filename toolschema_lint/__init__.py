"""toolschema-lint: a linter and static analyzer for AI tool definitions."""

__version__ = "0.1.0"

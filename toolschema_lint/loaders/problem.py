"""The located problem a loader raises when a source yields nothing usable (no heavy imports here)."""

from __future__ import annotations


class SourceProblem(Exception):
    def __init__(self, rule: str, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.rule, self.message, self.line, self.column = rule, message, line, column

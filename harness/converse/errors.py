"""The reference adapter's two exceptions: bad input from the caller, bad output from Bedrock.

    ValueError
     └── TurnError              a turn the adapter cannot express as a Bedrock request (names the field)
    Exception
     └── BedrockResponseError   a response that breaks Bedrock's contract (names the field, keeps the event)
"""

from __future__ import annotations

from typing import Any

__all__ = ["BedrockResponseError", "TurnError"]


class TurnError(ValueError):
    """A tool definition or history entry that cannot be sent, e.g. a tool call with no id anywhere."""


class BedrockResponseError(Exception):
    """Bedrock sent something the contract forbids, e.g. a ``toolUse`` start without ``toolUseId``."""

    def __init__(self, message: str, *, event: Any = None, field: str | None = None):
        super().__init__(message)
        self.event = event
        self.field = field

"""``python -m harness.cli``: the same as the ``bedrock-harness`` console script."""

from harness.cli import console

console()

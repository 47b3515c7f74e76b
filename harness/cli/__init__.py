"""The ``bedrock-harness`` command line: one click group, one module per command family."""

import click

from harness import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bedrock-harness")
def main() -> None:
    """Record, replay and certify Bedrock ConverseStream tool calling."""


# Command families register here, one line each (exit codes: 0 ok, 1 failure found, 2 bad usage).

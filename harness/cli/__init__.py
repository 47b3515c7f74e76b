"""cli: the ``bedrock-harness`` command line: one click group, one module per command family. A face of the
harness: it may import every room below it (wire, cassettes, endpoint, suite, converse, adapters), never the
pytest plugin.
"""

import signal
import sys
import threading


def _quiet_interrupt(signum, frame):
    sys.stderr.write("interrupted\n")  # Ctrl-C while the commands load (boto3, botocore, yaml): no traceback
    raise SystemExit(130)


# The guard holds while this package imports, only where Python's own handler is in place (main thread).
_GUARDED = threading.current_thread() is threading.main_thread() and \
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _GUARDED:
    signal.signal(signal.SIGINT, _quiet_interrupt)

import click  # noqa: E402

from harness.version import __version__  # noqa: E402


class _Group(click.Group):
    """The command group: Ctrl-C during a command is one line and exit 130, not click's "Aborted!" (exit 1)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bedrock-harness")
def main() -> None:
    """Record, replay and certify Bedrock ConverseStream tool calling."""


# Command families register here, one line each (exit codes: 0 ok, 1 failure found, 2 bad usage).
from harness.cli.serve import serve; main.add_command(serve)  # noqa: E402,E702
from harness.cli.cassette import cassette; main.add_command(cassette)  # noqa: E402,E702
from harness.cli.run import list_scenarios, run; main.add_command(run); main.add_command(list_scenarios)  # noqa: E402,E702
from harness.cli.golden import golden_group; main.add_command(golden_group)  # noqa: E402,E702
from harness.cli.record import record; main.add_command(record)  # noqa: E402,E702
from harness.cli.certify import certification_table, certify; main.add_command(certify); main.add_command(certification_table)  # noqa: E402,E702
from harness.cli.matrix import bisect, matrix_command; main.add_command(matrix_command); main.add_command(bisect)  # noqa: E402,E702
from harness.cli.drift import drift; main.add_command(drift)  # noqa: E402,E702
from harness.cli.evidence import evidence; main.add_command(evidence)  # noqa: E402,E702

if _GUARDED:
    signal.signal(signal.SIGINT, signal.default_int_handler)

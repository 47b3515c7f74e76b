"""cli: the ``bedrock-harness`` command line: one click group, one module per command family. A face of the
harness: it may import every room below it (wire, cassettes, endpoint, judge, suite, report, studies, converse,
adapters), never the pytest plugin.

Command modules load on first use (``COMMANDS``), so ``--version`` and ``--help`` import neither botocore nor the
suite. Every usage error is one ``Error:`` line and exit 2, whoever raises it (click's parser or a command).
"""

import signal
import sys
import threading


def _quiet_interrupt(signum, frame):
    sys.stderr.write("interrupted\n")  # Ctrl-C while the commands load (boto3, botocore, yaml): no traceback
    raise SystemExit(130)


# The guard holds while a command module imports, only where Python's own handler is in place (main thread).
_GUARDED = threading.current_thread() is threading.main_thread() and \
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _GUARDED:
    signal.signal(signal.SIGINT, _quiet_interrupt)

import contextlib  # noqa: E402
import importlib  # noqa: E402

import click  # noqa: E402

from harness.version import __version__  # noqa: E402

__all__ = ["COMMANDS", "console", "main"]

# name -> (module, attribute, the help line `--help` lists without importing the module; a test holds it equal to
# the command's own). Exit codes: 0 ok, 1 failure found, 2 bad usage.
COMMANDS = {
    "bisect": ("harness.cli.matrix", "bisect", "The first release where SCENARIO's verdict (or, with --finding, a "
                                               "finding) changes, with both reports side by side."),
    "cassette": ("harness.cli.cassette", "cassette", "Show, verify, scan and import cassettes."),
    "certification-table": ("harness.cli.certify", "certification_table", "The certification table from JSON "
                            "reports [default: certification/*.json], printed, checked or written."),
    "certify": ("harness.cli.certify", "certify", "Certify an adapter (in-process, or any language over the "
                                                  "subprocess protocol) and write its report."),
    "drift": ("harness.cli.drift", "drift", "Record these scenarios afresh (all when none named) and report how the "
                                            "wire shape differs from the shipped cassettes: event order, fields per "
                                            "event and block type, stop reasons, header names."),
    "evidence": ("harness.cli.evidence", "evidence", "Every claim the suite makes about Bedrock (rules, emulator "
                                                     "styles, scenarios) with its sources."),
    "explore": ("harness.cli.explore", "explore", "Draw random valid conversations, judge an adapter by laws, "
                                                  "conservation, parity and Bedrock's rules, and write each shrunk "
                                                  "failure as a scenario."),
    "golden": ("harness.cli.golden", "golden_group", "Compare or regenerate goldens from the reference "
                                                     "implementation."),
    "list": ("harness.cli.listing", "list_scenarios", "The scenarios, their tags and required capabilities."),
    "matrix": ("harness.cli.matrix", "matrix_command", "Run ADAPTER on each release of its library and print a "
                                                       "release x scenario table."),
    "record": ("harness.cli.record", "record", "Record cassettes for these scenarios (all when none named)."),
    "repro": ("harness.cli.repro", "repro", "A self-contained reproduction of SCENARIO's finding for the library's "
                                           "maintainers."),
    "report": ("harness.cli.report", "report_group", "Work with JSON reports: merge shards into one report."),
    "run": ("harness.cli.run", "run", "Replay every scenario against an adapter and print the conformance table."),
    "schema": ("harness.cli.schema", "schema", "Print the JSON Schema (draft 2020-12) of an adapter's chunk, the turn "
                                               "the harness sends, or the adapter's hello."),
    "site": ("harness.cli.site", "site", "The static results site from the committed reports: libraries x releases x "
                                         "scenarios, with levels, filters, each failing cell's explanation, upstream bug "
                                         "and reproduction."),
    "serve": ("harness.cli.serve", "serve", "Serve Bedrock on 127.0.0.1 until interrupted; the first stdout line is "
                                            "the endpoint URL."),
}


@contextlib.contextmanager
def _one_line():
    """A usage error without click's ``Usage:`` and ``Try --help`` lines: one ``Error:`` line, exit 2."""
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise  # a bare group prints its help
    except click.UsageError as error:
        error.ctx = None  # what click prints the usage lines from
        raise


class _Group(click.Group):
    """The command group: commands load on first use; one-line usage errors; Ctrl-C during a command is one line
    and exit 130, not click's "Aborted!" (exit 1)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from ``COMMANDS``: listing the commands imports none of them."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        with _one_line():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context):
        try:
            with _one_line():
                return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bedrock-harness")
def main() -> None:
    """Record, replay and certify Bedrock ConverseStream tool calling."""


def console() -> None:
    """The ``bedrock-harness`` console script (and ``python -m harness.cli``): ``main`` as click runs it, and then
    the process ends without the interpreter's teardown, which frees every object one by one (a run's botocore
    models, scenarios and results: a tenth of ``run``'s CPU). What an exit must do is done first: stdout and stderr
    flushed, the ``atexit`` handlers run (logging's, finalizers', coverage's). A process with a thread Python would
    wait for (no daemon) still running, an exit status that is no number, or an output that cannot be flushed (a
    closed pipe) exits as Python does. ``main`` itself, which tests and embedders invoke, never ends this way."""
    try:
        main()
    except SystemExit as done:
        code = 0 if done.code is None else done.code
        if type(code) is int and _only_daemons() and _flushed():
            import atexit
            import os

            atexit._run_exitfuncs()  # noqa: SLF001 - what interpreter shutdown runs, without the rest of it
            _flushed()  # what the handlers printed
            os._exit(code)
        raise


def _only_daemons() -> bool:
    """Whether every thread but this one is a daemon thread: Python's exit would join any other, not kill it."""
    return all(thread.daemon for thread in threading.enumerate() if thread is not threading.current_thread())


def _flushed() -> bool:
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed pipe or stream: Python's own exit reports it
        return False
    return True


if _GUARDED:
    signal.signal(signal.SIGINT, signal.default_int_handler)

"""What the run, golden, record and list commands share: the project root, scenarios and adapter lookup."""

from __future__ import annotations

from pathlib import Path

import os

import botocore.exceptions
import botocore.session
import click

from harness.adapters import AdapterLoadError, load_adapter
from harness.adapters.deadline import with_deadline
from harness.adapters.subprocess import DEFAULT_TIMEOUT
from harness.suite import roots
from harness.suite.scenario import ScenarioError, scenario_ids

__all__ = ["BadUsage", "adapter_option", "default_region", "every_id", "live_credentials", "load", "one_root_option",
           "region_option", "root_option", "scenarios", "selection_options", "strict_option", "timeout_option"]


class BadUsage(click.ClickException):
    """Bad options or configuration: one ``Error:`` line on stderr, exit code 2."""

    exit_code = 2


def root_option(fn):
    return click.option("--root", "root", multiple=True, metavar="DIR|shipped",
                        help="Folder holding suites/ and cassettes/ (default: ./ if it has suites/, else the shipped "
                             "suite); repeat to layer roots ('shipped' names the shipped suite).")(fn)


def one_root_option(fn):
    return click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                        help="Folder holding suites/ and cassettes/ (default: ./ if it has suites/, else the shipped "
                             "suite).")(fn)


def selection_options(fn):
    fn = click.option("--scenario", "ids", multiple=True, metavar="ID", help="Run only this scenario (repeatable).")(fn)
    return click.option("--suite", "suites", multiple=True, metavar="S", help="Run only this suite (repeatable).")(fn)


def adapter_option(fn):
    return click.option("--adapter", "spec", default="reference", show_default=True, metavar="SPEC",
                        help="reference, a registered adapter name, or module:attribute.")(fn)


def strict_option(fn):
    return click.option("--strict", is_flag=True, help="Warnings (findings only a judgement supports, not evidence "
                                                       "about Bedrock) fail the run too.")(fn)


def timeout_option(fn):
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
                        show_default=True, help="Seconds one turn of the adapter may take; a hung turn is an error "
                                                "verdict and the run goes on.")(fn)


def scenarios(root, suites=(), ids=()) -> tuple[Path | None, list]:
    """(root, selected scenarios) for one ``--root`` (a path or None) or several (a tuple: layered, root None);
    a bad scenario file or unknown id is a usage error (exit 2)."""
    found = roots.resolve(root if isinstance(root, tuple) else [root] if root is not None else [])
    return roots.single(found), _usage(roots.load, found, suites, ids)


def every_id(root, given=()) -> list[str]:
    """Every scenario id a baseline may name: under ``root``, or (root None) under the layered ``given`` roots."""
    if root is not None:
        return _usage(scenario_ids, Path(root) / "suites")
    return _usage(roots.layered_ids, roots.resolve(given))


def _usage(call, *args):
    """``call(*args)``, with a bad scenario file or unknown name as a usage error (exit 2)."""
    try:
        return call(*args)
    except (ScenarioError, OSError) as exc:
        raise BadUsage(str(exc)) from None


def load(spec: str, timeout: float | None = None):
    """The adapter for ``spec``, each turn bounded by ``timeout``; a spec that does not resolve is a usage error."""
    try:
        return with_deadline(load_adapter(spec), timeout)
    except AdapterLoadError as exc:
        raise BadUsage(str(exc)) from None


def default_region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def region_option(fn):
    return click.option("--region", default=default_region, show_default="AWS_REGION or us-east-1")(fn)


def live_credentials(profile: str | None, needs: str, offline: str | None = None):
    """The default chain's credentials (``--profile`` first); none is the one-line refusal every live command gives."""
    if profile:
        os.environ["AWS_PROFILE"] = profile
    try:
        credentials = botocore.session.Session().get_credentials()
    except botocore.exceptions.BotoCoreError as error:  # a misspelled profile, a broken credential_process or SSO
        raise BadUsage(f"cannot read AWS credentials: {error}; `{needs}` needs them") from None
    if credentials is None:
        raise BadUsage("no AWS credentials found (default chain: environment, AWS_PROFILE, SSO, "
                       f"instance role); `{needs}` needs them" + (f", `{offline}` does not" if offline else ""))
    return credentials

"""``bedrock-harness golden check|update``: goldens from the reference implementation."""

from __future__ import annotations

import sys

import click

from harness.cassettes.cassette import CassetteError
from harness.suite import golden, roots
from harness.cli.common import BadUsage, load, one_root_option, scenarios
from harness.suite.runner import cassette_path, iter_runs
from harness.suite.scenario import ScenarioError, select

__all__ = ["golden_group"]


def _selected(root, ids):
    """(root, every scenario, the ones named by ``ids`` (all when empty) that have a cassette)."""
    root, every = scenarios(root)
    try:
        chosen = select(every, (), ids)
    except ScenarioError as exc:
        raise click.UsageError(str(exc)) from None
    missing = [s.id for s in chosen if not cassette_path(root, s).is_file()]
    if missing:
        raise click.UsageError(f"no cassette for {', '.join(missing)}; record with `bedrock-harness record --emulate`")
    return root, every, chosen


@click.group("golden")
def golden_group():
    """Compare or regenerate goldens from the reference implementation."""


@golden_group.command()
@click.argument("ids", nargs=-1, metavar="[SCENARIO]...")
@one_root_option
def update(ids, root):
    """Rewrite the goldens of these scenarios (all when none named) from the reference over their cassettes."""
    root, _, chosen = _selected(root, ids)
    if roots.installed(root):
        raise BadUsage(f"{root}: {roots.READ_ONLY}")
    broken = 0
    for scenario, run in iter_runs(chosen, load("reference"), root):
        if isinstance(run, CassetteError):
            broken += 1
            click.echo(f"error {scenario.id}: {run}")
            continue
        changed = golden.write_golden(scenario, run.golden_turns())
        click.echo(f"{'updated' if changed else 'unchanged'} {golden.golden_path(scenario)}")
    sys.exit(1 if broken else 0)


@golden_group.command()
@click.argument("ids", nargs=-1, metavar="[SCENARIO]...")
@one_root_option
def check(ids, root):
    """Fail (exit 1) when a golden drifts from the reference's output, or a golden belongs to no scenario."""
    root, every, chosen = _selected(root, ids)
    drift = broken = 0
    for scenario, run in iter_runs(chosen, load("reference"), root):
        if isinstance(run, CassetteError):
            broken += 1
            click.echo(f"error {scenario.id}: {run}")
            continue
        try:
            diffs = golden.check(scenario, run.golden_turns())
        except golden.GoldenError as err:
            broken += 1
            click.echo(f"error {scenario.id}: {err}")
            continue
        for diff in diffs:
            drift += 1
            click.echo(diff.render() + "\n")
    unused = golden.unused_goldens(root / "suites", every)
    for path in unused:
        click.echo(f"unused golden: {path} (no scenario)")
    click.echo(f"{len(chosen)} scenario(s) checked, {drift} drift(s), {len(unused)} unused golden(s)"
               + (f", {broken} broken cassette(s) or golden(s)" if broken else ""))
    sys.exit(1 if drift or unused or broken else 0)

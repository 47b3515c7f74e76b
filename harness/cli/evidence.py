"""``bedrock-harness evidence``: every claim about Bedrock with its sources, and the judgements beside them."""

from __future__ import annotations

import json
import sys

import click

from harness.cli.common import BadUsage, InputFolder, root_option, scenarios
from harness.evidence import CatalogError, ClaimError
from harness.cli.output import choose_format, output_option, write_output
from harness.judge.evidence import Evidence, gather

__all__ = ["evidence"]

FORMATS = ("text", "json")


def _text(found: Evidence) -> str:
    lines, owner = [], None
    for claim in found.claims:
        if claim.owner != owner:
            owner = claim.owner
            lines.append(f"{owner}")
        lines.append(f"  {claim.id}: {claim.says}")
        cited = found.cited(claim)
        lines += [f"    - {source.id}: {source.cite()}" for source in cited] or ["    - (no source)"]
    lines.append("judgements (a finding resting only on one of these is a warning, not a failure)")
    for judgement in found.judgements:
        where = "every scenario" if judgement.everywhere else ", ".join(found.named[judgement.id]) or "no scenario"
        declared = "; only where the adapter cites its library's type" if judgement.declared else ""
        lines.append(f"  {judgement.id} [{where}{declared}]: {judgement.says}")
        lines.append(f"    why a judgement: {judgement.reason}")
        lines.append(f"    why the application can do without it: {judgement.application}")
    lines += ["robustness scenarios (a stream shape no real recording shows: every finding is a warning but a "
              "contract law, a value of another type than the library declares, and a rule with evidence)"]
    lines += [f"  {sid}: {why}" for sid, why in found.robustness.items()] or ["  (none)"]
    return "\n".join(lines + ["", _summary(found)]) + "\n"


def _summary(found: Evidence) -> str:
    cited = {s if isinstance(s, str) else s.id for c in found.claims for s in c.sources}
    head = (f"{len(found.claims)} claims about Bedrock, {len(cited)} sources cited of {len(found.sources)} in the "
            f"catalog, {len(found.judgements)} judgements")
    return head + (f"; {len(found.problems)} problem(s)" if found.problems else "; every claim has a source")


def _json(found: Evidence) -> str:
    claims = [{"owner": c.owner, "id": c.id, "says": c.says, "sources": [s.as_dict() | {"id": s.id}
                                                                          for s in found.cited(c)]}
              for c in found.claims]
    judgements = [{"id": j.id, "says": j.says, "reason": j.reason, "application": j.application,
                   "declared": j.declared, "applies_to": "every scenario" if j.everywhere
                   else list(found.named[j.id])} for j in found.judgements]
    document = {"claims": claims, "judgements": judgements, "robustness": dict(found.robustness),
                "problems": list(found.problems)}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@click.command()
@click.option("--check", is_flag=True, help="Exit 1 when a claim has no source (or an unknown one, or only the "
                                            "service model), or a rule, style or scenario says nothing of its evidence.")
@click.option("--recordings", type=InputFolder(), metavar="DIR",
              help="Check the recordings the catalog names against their sha256 here (../shared/realworld).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Listing format [default: from --output's suffix, else text].")
@output_option(FORMATS)
@root_option
def evidence(check, recordings, fmt, output, root):
    """Every claim the suite makes about Bedrock (rules, emulator styles, scenarios) with its sources."""
    fmt = choose_format(fmt, output, "text", FORMATS)
    _, selected = scenarios(root, cassettes=False)
    try:
        found = gather(selected, recordings)
    except (CatalogError, ClaimError, ValueError) as exc:  # a broken evidence file of the package or a root
        raise BadUsage(" ".join(str(exc).split())) from None
    write_output(_json(found) if fmt == "json" else _text(found), output)
    if check:
        for problem in found.problems:
            click.echo(f"evidence: {problem}", err=True)
        sys.exit(1 if found.problems else 0)

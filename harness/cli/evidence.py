"""``bedrock-harness evidence``: every claim about Bedrock with its sources, and the judgements beside them."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import click

from harness.cli.common import BadUsage, root_option, scenarios
from harness.evidence import CatalogError, ClaimError
from harness.cli.output import choose_format, output_option, write_output
from harness.judge.evidence import Evidence, gather

__all__ = ["evidence"]

FORMATS = ("text", "json")
# The model families each emulator style renders (harness/endpoint/emulator/styles.yaml says which recordings):
# ``--family`` keeps a style's claims when it renders the family; ``shared`` is every family's.
STYLE_FAMILIES = {"claude": {"anthropic"}, "nova": {"nova"}, "nova-2": {"nova"}, "openai": {"openai"},
                  "open-weight": {"deepseek", "kimi", "meta", "qwen", "mistral", "minimax"}, "titan": {"titan"}}


def _select(found: Evidence, scenarios: list, rules: tuple, ids: tuple, families: tuple) -> Evidence:
    """Only the claims of these rules, scenarios and families (each filter given narrows; none keeps all).

    A family keeps the rules whose evidence rejects or accepts for it (a rule of every model included), the styles
    rendering it and the scenarios whose model is of it; judgements and robustness follow the scenarios kept."""
    from harness.endpoint.rules.converse import RULE_IDS
    from harness.endpoint.rules.scope import ALL, EVIDENCE, family

    unknown = [r for r in rules if r not in RULE_IDS]
    if unknown:
        raise BadUsage(f"--rule {unknown[0]}: no such rule (known: {', '.join(sorted(RULE_IDS))})")
    by_id = {s.id: s for s in scenarios}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise BadUsage(f"--scenario {missing[0]}: no such scenario in the suite (see bedrock-harness list)")
    seen = {fam for e in EVIDENCE.values() if e.rejects is not ALL for fam in e.rejects | e.accepts}
    seen |= {fam for fams in STYLE_FAMILIES.values() for fam in fams} | {family(s.model_id) for s in scenarios}
    strange = [f for f in families if f not in seen]
    if strange:
        raise BadUsage(f"--family {strange[0]}: no claim names this family (known: "
                       f"{', '.join(sorted(f for f in seen if f))})")

    def rule_kept(rule: str) -> bool:
        evidence = EVIDENCE[rule]
        return (not rules or rule in rules) and not ids and (not families or evidence.rejects is ALL or any(
            f in evidence.rejects or f in evidence.accepts for f in families))

    def scenario_kept(sid: str) -> bool:
        return (not ids or sid in ids) and not rules and (not families or family(by_id[sid].model_id) in families)

    def style_kept(style: str) -> bool:
        return not rules and not ids and (not families or style == "shared"
                                          or bool(STYLE_FAMILIES.get(style, set()) & set(families)))

    def kept(claim) -> bool:
        kind, _, name = claim.owner.partition(" ")
        return {"rule": rule_kept, "scenario": scenario_kept, "style": style_kept}.get(kind, lambda _: True)(name)

    chosen = {sid for sid in by_id if scenario_kept(sid)}
    named = {j: tuple(s for s in found.named[j] if s in chosen) for j in found.named}
    judgements = tuple(j for j in found.judgements if not (ids or rules or families) or (
        ids and (j.everywhere or named[j.id])))
    robustness = {sid: why for sid, why in found.robustness.items() if sid in chosen}
    return replace(found, claims=tuple(c for c in found.claims if kept(c)), judgements=judgements, named=named,
                   robustness=robustness)


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
@click.option("--recordings", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="DIR",
              help="Check the recordings the catalog names against their sha256 here (../shared/realworld).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Listing format [default: from --output's suffix, else text].")
@click.option("--rule", "rules", multiple=True, metavar="ID",
              help="Only this request rule's claims (repeatable).")
@click.option("--scenario", "ids", multiple=True, metavar="ID",
              help="Only this scenario's claims and the judgements it names (repeatable).")
@click.option("--family", "families", multiple=True, metavar="F",
              help="Only claims about this model family (anthropic, nova, openai, kimi, ...): the rules whose "
                   "evidence covers it, the styles rendering it, the scenarios of its models (repeatable).")
@output_option(FORMATS)
@root_option
def evidence(check, recordings, fmt, rules, ids, families, output, root):
    """Every claim the suite makes about Bedrock (rules, emulator styles, scenarios) with its sources.

    The filters narrow the listing; --check always checks every claim."""
    fmt = choose_format(fmt, output, "text", FORMATS)
    _, selected = scenarios(root)
    try:
        found = gather(selected, recordings)
    except (CatalogError, ClaimError, ValueError) as exc:  # a broken evidence file of the package or a root
        raise BadUsage(" ".join(str(exc).split())) from None
    shown = _select(found, selected, rules, ids, families) if rules or ids or families else found
    write_output(_json(shown) if fmt == "json" else _text(shown), output)
    if check:
        for problem in found.problems:
            click.echo(f"evidence: {problem}", err=True)
        sys.exit(1 if found.problems else 0)

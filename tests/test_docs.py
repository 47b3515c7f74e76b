"""The user manual's links hold: every relative link in README.md and the examples' and benchmarks' READMEs names a
file that exists (and, for ``#anchor`` links into a markdown file, a heading that exists)."""

import re
from pathlib import Path

import pytest

from harness.suite import roots

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted(REPO.glob("examples/*/README.md")), REPO / "benchmarks" / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(markdown: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.+)$", markdown.read_text(), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def links(doc: Path) -> list[str]:
    return [link for link in LINK.findall(doc.read_text()) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(doc):
    for link in links(doc):
        path, _, anchor = link.partition("#")
        target = (doc.parent / path).resolve() if path else doc
        assert target.exists(), f"{doc.relative_to(REPO)} links {link!r}: no such file"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{doc.relative_to(REPO)} links {link!r}: no such heading"


def test_the_python_examples_readme_names_no_missing_design_doc():
    assert "DESIGN.md" not in (REPO / "examples" / "python_adapter" / "README.md").read_text()


def test_the_live_commands_costs_in_the_readme_count_the_shipped_live_able_scenarios():
    live = [s for s in roots.load([REPO]) if "emulator_only" not in s.tags]
    turns, longest = sum(len(s.turns) for s in live), max(len(s.turns) for s in live)
    most = max(s.options["max_tokens"] for s in live)
    text = " ".join((REPO / "README.md").read_text().split())
    assert f"({turns} calls for the shipped suites' {len(live)} live-able scenarios)" in text  # drift
    assert f"(1 to {longest} turns per scenario)" in text and (  # certify --live
        f"({len(live)} live-able scenarios, {turns} turns) and K = 3 that is at most {3 * turns} calls, {turns} "
        "when every first attempt passes") in text
    assert text.count(f"`max_tokens` of at most {most}") == 2
    assert text.count("(1024 in all but three reasoning scenarios") == 2
    assert sorted(s.id for s in live if s.options["max_tokens"] > 1024) == [
        "core/thinking-tools", "edge/interleaved-reasoning-tools", "edge/redacted-reasoning-tool"]

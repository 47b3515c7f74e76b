"""The user manual holds together: README.md is short and points into the documentation site (docs/, built by
MkDocs), every relative link in it, the site's pages and the examples' and benchmarks' READMEs names a file and a
heading that exist, every section of the old one-file README has its page, and ``mkdocs build --strict`` passes."""

import importlib.util
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from harness.suite import roots

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs").rglob("*.md"))
DOCS = [REPO / "README.md", *PAGES, *sorted(REPO.glob("examples/*/README.md")), REPO / "benchmarks" / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)

# Every heading of the README before it became the site (issue 20), and the page that holds its section now.
MOVED = {
    "Quick start": "README.md", "Commands": "docs/reference/commands.md",
    "Your own scenarios beside the shipped suite": "docs/reference/commands.md",
    "Output files and formats": "docs/reference/commands.md", "Reports": "docs/certification/reports.md",
    "Known failures": "docs/certification/reports.md", "Grades: fail and warn": "docs/certification/reports.md",
    "Streaming parity: the library's streamed and non-streamed results": "docs/adapters/index.md",
    "Scenarios, goldens and cassettes": "docs/reference/scenarios.md",
    "Evidence: what the suite's claims about Bedrock rest on": "docs/reference/scenarios.md",
    "Recording live": "docs/recording/index.md",
    "Recording any client through the proxy (`serve --record`)": "docs/recording/index.md",
    "Has Bedrock changed its wire? (`drift`)": "docs/recording/index.md", "Cassettes": "docs/reference/cassettes.md",
    "Secrets": "docs/recording/secrets-and-limits.md", "Limits": "docs/recording/secrets-and-limits.md",
    "In your own tests (vcrpy / pytest-recording)": "docs/ci.md", "Running the suite under pytest": "docs/ci.md",
    "The loopback Bedrock endpoint": "docs/recording/endpoint.md",
    "The reference adapter": "docs/adapters/reference.md",
    "Your own adapter": "docs/adapters/index.md",
    "Conversation mode (the adapter owns its history)": "docs/adapters/index.md",
    'The assembled message: "streamed X, assembled Y"': "docs/adapters/index.md",
    "OpenAI-format adapters: the native chunks and OpenAI's streaming laws": "docs/adapters/index.md",
    "Usage conventions": "docs/adapters/index.md",
    "What the request comparison treats as material": "docs/adapters/index.md",
    "Certifying an adapter (`certify`)": "docs/certification/index.md",
    "Live certification (`certify --live`)": "docs/certification/index.md",
    "The subprocess protocol (any language)": "docs/adapters/subprocess.md", "Examples": "docs/adapters/subprocess.md",
    "Certified third-party adapters": "docs/certification/third-party.md",
    "Which release of my library handles this? (`matrix`, `bisect`)": "docs/certification/index.md",
    "Certify on every push (GitHub Actions)": "docs/ci.md",
    "Split a certification over machines (`--shard`, `report merge`)": "docs/ci.md",
    "Development": "docs/development.md", "Where things are": "docs/development.md",
}


def headings(markdown: Path) -> list[str]:
    return re.findall(r"^#+ (.+)$", FENCE.sub("", markdown.read_text()), flags=re.MULTILINE)


def anchors(markdown: Path) -> set[str]:
    """The heading anchors: GitHub's for a README, MkDocs' (the toc extension's slugify) for a page of the site."""
    if REPO / "docs" in markdown.parents:
        return {mkdocs_slug(h) for h in headings(markdown)}
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings(markdown)}


def mkdocs_slug(heading: str) -> str:
    text = unicodedata.normalize("NFKD", heading.replace("`", ""))
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def links(doc: Path) -> list[str]:
    return [link for link in LINK.findall(FENCE.sub("", doc.read_text())) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(doc):
    for link in links(doc):
        path, _, anchor = link.partition("#")
        target = (doc.parent / path).resolve() if path else doc
        assert target.exists(), f"{doc.relative_to(REPO)} links {link!r}: no such file"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{doc.relative_to(REPO)} links {link!r}: no such heading"


def test_the_readme_is_short_and_links_every_audience_page():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) < 250
    for page in ("ci.md", "recording/index.md", "adapters/index.md", "certification/index.md",
                 "certification/third-party.md", "reference/cli.md"):
        assert f"](docs/{page})" in text, page


def test_the_readme_keeps_its_two_commands_as_ci_runs_them():
    text = (REPO / "README.md").read_text()
    assert "\npip install -e . && bedrock-harness run   " in text
    assert "\npip install -e '.[test]' && pytest -n auto   " in text
    assert "pip install -e '.[test]' && pytest -n auto\n" in (REPO / ".ci" / "run").read_text()


@pytest.mark.parametrize("heading, page", MOVED.items())
def test_every_section_of_the_one_file_readme_has_its_page(heading, page):
    assert heading in headings(REPO / page), f"{heading!r} is no heading of {page}"


def test_every_page_of_the_site_is_in_its_navigation():
    config = (REPO / "mkdocs.yml").read_text()
    for page in PAGES:
        if "hooks" not in page.parts:
            assert page.relative_to(REPO / "docs").as_posix() in config, page


def test_the_live_commands_costs_in_the_docs_count_the_shipped_live_able_scenarios():
    live = [s for s in roots.load([REPO]) if "emulator_only" not in s.tags]
    turns, longest = sum(len(s.turns) for s in live), max(len(s.turns) for s in live)
    most = max(s.options["max_tokens"] for s in live)
    text = " ".join(" ".join(page.read_text() for page in PAGES).split())
    assert f"({turns} calls for the shipped suites' {len(live)} live-able scenarios)" in text  # drift
    assert f"(1 to {longest} turns per scenario)" in text and (  # certify --live
        f"({len(live)} live-able scenarios, {turns} turns) and K = 3 that is at most {3 * turns} calls, {turns} "
        "when every first attempt passes") in text
    assert text.count(f"`max_tokens` of at most {most}") == 2
    assert text.count("(1024 in all but three reasoning scenarios") == 2
    assert sorted(s.id for s in live if s.options["max_tokens"] > 1024) == [
        "core/thinking-tools", "edge/interleaved-reasoning-tools", "edge/redacted-reasoning-tool"]


def test_the_python_examples_readme_names_no_missing_design_doc():
    assert "DESIGN.md" not in (REPO / "examples" / "python_adapter" / "README.md").read_text()


def test_ci_builds_the_site_strictly():
    """.ci/run installs the docs extra and builds the site with --strict, so the test below never skips in CI."""
    ci = (REPO / ".ci" / "run").read_text()
    assert "pip install -q -e '.[docs]'" in ci and "mkdocs build --strict" in ci


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
                    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[docs]'; .ci/run does)")
def test_the_site_builds_strictly(tmp_path):
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "bedrock-harness certification-table" in cli and "--shard" in cli
    assert 'href="../../stylesheets/code.css"' in cli  # code blocks scroll, not cut off at the column edge
    assert "overflow-x: auto" in (tmp_path / "site" / "stylesheets" / "code.css").read_text()
    published = tmp_path / "site" / "results"  # the results site (docs/hooks/results_site.py), linked from its page
    assert "Certification results" in (published / "index.html").read_text() and (published / "repro").is_dir()
    page = (tmp_path / "site" / "certification" / "results" / "index.html").read_text()
    assert 'href="../../results/index.html"' in page

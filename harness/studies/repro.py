"""Reproductions: one self-contained folder per finding, for the library's maintainers (``bedrock-harness repro``).

The folder is an ordinary scenario root holding the one scenario, its golden and its cassette, and beside it:

- ``repro.py``: runs the scenario on the installed library exactly as the certification did (``bedrock-harness
  certify --root <the folder>``) and compares the finding with the one recorded: exit 1 and ``REPRODUCED`` when it
  is the same, 0 and ``NOT REPRODUCED`` when the scenario now passes (a fixed release), 2 when it fails otherwise;
- ``app.py`` or ``app.mjs`` (a library with a template in ``harness.adapters.apps``, handed in by the command): the
  library's own public calls, as an application makes them, against ``bedrock-harness serve --paired --cassette ...``
  with the scenario's faults (``serve_command``; the URL is its argument);
- ``README.md``: what the application does, the finding (expected against actual, in Bedrock's terms: its stream,
  its request rules and error texts), the claims it rests on with their sources, how to run both scripts;
- ``expected.json``: the finding recorded (scenario, status, turn, headline, library and version).

Nothing runs the library to write the folder when the finding is read from a certification report (the results
site builds every failing cell's folder from the committed reports).
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.cassettes.files import write_atomic
from harness.endpoint.faults import FaultError, as_option
from harness.report.common import fence, printable
from harness.suite.golden import golden_path
from harness.suite.results import Result
from harness.suite.runner import cassette_path
from harness.suite.scenario import Scenario

__all__ = ["FAILED", "Finding", "RUN_AS", "finding", "folder_name", "from_report", "install_line", "readme", "serve_command", "write"]

FAILED = ("fail", "xfail")  # the cells a reproduction is made for: a finding on evidence, known or not
RUN_AS = ("adapter", "command")

SCRIPT = '''#!/usr/bin/env python3
"""Reproduce {scenario} on {library} (found at {version}): see README.md.

Needs only the library and bedrock-harness. Exit 1: REPRODUCED (the same finding); 0: NOT REPRODUCED (the scenario
passes: the installed release fixed it); 2: the scenario fails otherwise, or could not run.
"""

import json
import subprocess
import sys
from pathlib import Path

from harness.report import results_from_json

HERE = Path(__file__).resolve().parent
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))


def headline(result):
    """The first line of the first finding of the first failing turn, as the certification report names it."""
    found = next((turn.headline for turn in result.turns if not turn.ok), "") or result.reason
    return (found.splitlines() or [""])[0]


def main():
    command = [sys.executable, "-m", "harness.cli", "certify", *EXPECTED["run_as"], "--root", str(HERE),
               "--scenario", EXPECTED["scenario"], "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        print("could not run the scenario:", done.stderr.strip()[-2000:] or done.stdout[-2000:])
        return 2
    results, _ = results_from_json(report)
    result, version = results[0], report["adapter"].get("version") or "?"
    print(f"{{EXPECTED['scenario']}} on {{report['adapter']['name']}} {{version}} "
          f"(found on {{EXPECTED['version']}}): {{result.status}}")
    if result.status in ("pass", "warn", "skip"):
        print("NOT REPRODUCED: the scenario does not fail on this release")
        return 0
    found = headline(result)
    if found == EXPECTED["headline"]:
        print(f"REPRODUCED: {{found}}")
        return 1
    print(f"FAILS OTHERWISE: expected the finding\\n  {{EXPECTED['headline']}}\\nfound\\n  {{found or result.reason}}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
'''


@dataclass(frozen=True)
class Finding:
    """What a failing cell found: its first failing turn, the headline naming it, the turn's findings rendered."""

    scenario: str
    status: str
    turn: int
    headline: str
    chunks: str  # the turn's chunk diff and law violations, rendered (expected against actual, aligned)
    requests: tuple[str, ...]  # the rules Bedrock answers the turn's request with, then its golden-request diffs


def finding(result: Result) -> Finding | None:
    """The finding of a failing cell (fail or xfail), None for any other."""
    if result.status not in FAILED:
        return None
    turn = next((t for t in result.turns if not t.ok), None)
    if turn is None:
        return Finding(result.scenario, result.status, -1, _first_line(result.reason), "", ())
    return Finding(result.scenario, result.status, turn.index, _first_line(turn.headline), turn.chunk_text(),
                   tuple(turn.request_texts()))


def _first_line(text: str) -> str:
    """A finding's first line: what names it, whether its diff came from a run or from a report's rendering."""
    return (text.splitlines() or [""])[0]


def install_line(spec: str | None, version: str) -> str:
    """The pip line a maintainer installs: the harness with the library's extra pinned to the release, when the spec
    is one of the harness's own shims; else only the harness (the library is already theirs)."""
    from importlib import metadata

    extras = {}
    try:
        for requirement in metadata.metadata("bedrock-harness").get_all("Requires-Dist") or ():
            name, _, marker = requirement.partition(";")
            if "extra ==" in marker:
                extra = marker.split("extra ==")[1].strip().strip("'\"")
                extras.setdefault(extra, []).append(name.strip())
    except metadata.PackageNotFoundError:
        pass
    base = (spec or "").removesuffix("-persisted").removesuffix("-agent")
    if spec is None or base not in extras or base in ("test", "docs"):
        return "pip install bedrock-harness"
    package = extras[base][0].split("[")[0].split("<")[0].split(">")[0].split("=")[0]
    return f"pip install 'bedrock-harness[{base}]' '{package}=={version}'"


def _run_as(spec: str | None, command: str | None, version: str | None, pins: dict[str, str] | None = None) -> list[str]:
    """The certify options the reproduction runs the library with."""
    if command is not None:
        return ["--command", command]
    return ["--adapter", spec or "reference", *(["--version", version] if version else []),
            *(arg for name, pin in (pins or {}).items() for arg in ("--companion", f"{name}={pin}"))]


def _copy(scenario: Scenario, root: str | Path | None, out: Path) -> list[Path]:
    """The scenario, its golden and its cassette, copied to the same places under ``out``."""
    suite = out / "suites" / scenario.suite
    copies = [(scenario.path, suite / scenario.path.name), (golden_path(scenario), suite / golden_path(scenario).name),
              (cassette_path(root, scenario), out / "cassettes" / f"{scenario.id}.yaml")]
    written = []
    for source, target in copies:
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            written.append(target)
    return written


def write(out: str | Path, scenario: Scenario, root: str | Path | None, found: Finding, library: dict, *,
          spec: str | None = None, command: str | None = None, version: str | None = None,
          pins: dict[str, str] | None = None, pointer=None, app=None) -> list[Path]:
    """The reproduction folder of ``found`` (``scenario`` under ``root``) on ``library`` ({name, version}) run as
    ``spec`` (``version``, ``pins``: a JavaScript shim's release and companions given) or ``command``; ``pointer``:
    where it is explained; ``app``: its app script (harness.adapters.apps.App)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = _copy(scenario, root, out)
    release = str(library.get("version") or version or "?")
    expected = {"scenario": scenario.id, "status": found.status, "turn": found.turn, "headline": found.headline,
                "library": library.get("name") or spec or command, "version": release,
                "run_as": _run_as(spec, command, version, pins)}
    files = {"expected.json": json.dumps(expected, indent=2, ensure_ascii=False) + "\n",
             "repro.py": SCRIPT.format(scenario=scenario.id, library=expected["library"], version=release)}
    if app is not None:
        files[app.file] = app.text
    files["README.md"] = readme(scenario, found, expected, spec, app, pointer)
    for name, text in files.items():
        write_atomic(out / name, text)
        written.append(out / name)
    return written


def _evidence(scenario: Scenario) -> list[str]:
    """The scenario's claims about Bedrock, each with its sources (id, kind, address, quote)."""
    from harness.evidence import catalog
    from harness.evidence.claims import resolve

    sources = catalog()
    lines = []
    for claim in scenario.claims:
        lines.append(f"- **{claim.id}**: {printable(' '.join(claim.says.split()))}")
        for source in resolve(claim, sources):
            where = source.url or source.file or "/".join(filter(None, (source.repo, source.path)))
            quote = f': "{" ".join(source.quote.split())[:300]}"' if source.quote else ""
            lines.append(f"  - {source.id} ({source.kind}{', ' + where if where else ''}){quote}")
    return lines


def serve_command(scenario: Scenario, paired: bool) -> str:
    """The ``serve`` command line that answers the scenario's turns from its cassette as the run did: with each of
    the scenario's ``faults:`` (a cut stream, an HTTP error) as a ``--fault`` option, which the cassette alone does
    not hold; ``paired``: each turn answered streamed and not."""
    faults, left = [], []
    for item in scenario.faults:
        try:
            faults += ["--fault", as_option(item)]
        except FaultError:
            left.append(item)
    line = shlex.join(["bedrock-harness", "serve", *(["--paired"] if paired else []), "--cassette",
                       f"cassettes/{scenario.id}.yaml", *faults, "--port", "0"])
    return line + "".join(f"   # without the fault {item!r}: a --fault option cannot carry ':'" for item in left)


def readme(scenario: Scenario, found: Finding, expected: dict, spec: str | None, app=None, pointer=None) -> str:
    """The README: the application's conversation, the finding expected against actual, its evidence, how to run."""
    library, release, cassette = expected["library"], expected["version"], f"cassettes/{scenario.id}.yaml"
    turns = f"turn {found.turn}" if found.turn >= 0 else "the run"
    lines = [f"# {library} {release}: {scenario.id}", "", printable(" ".join(scenario.title.split())) if
             getattr(scenario, "title", "") else "", "", printable(" ".join((scenario.description or "").split())), "",
             f"Model `{scenario.model_id}`, {len(scenario.turns)} turn(s), tools: "
             f"{', '.join(t['name'] for t in scenario.tools) or 'none'}. The stream each turn answers is the cassette "
             f"`{cassette}` (what Bedrock sent).", "",
             "## The finding", "", f"At {turns}, {library} {release} fails"
             f"{' (a known failure: its certification baseline lists it)' if found.status == 'xfail' else ''}:", "",
             *fence(printable(found.headline)), ""]
    if found.chunks:
        lines += ["What the library streamed, against what Bedrock's stream holds (expected: the golden, from the "
                  "stream as Bedrock sent it; `!` marks a differing row):", "", *fence(printable(found.chunks)), ""]
    if found.requests:
        lines += ["What the library sent back to Bedrock: each rule Bedrock answers with HTTP 400 "
                  "`ValidationException` (its own text), then the difference from the request Bedrock accepts:", "",
                  *fence(printable("\n\n".join(found.requests))), ""]
    lines += ["## Evidence", "", "What the scenario rests on about Bedrock (`bedrock-harness evidence --scenario "
              f"{scenario.id}` lists it with the rules and judgements):", "", *(_evidence(scenario) or ["- none"]), ""]
    if pointer is not None and (pointer.explanation or pointer.upstream):
        lines += ["## Where it is explained", ""]
        lines += [f"- the certification's write-up: `{pointer.explanation}`"] if pointer.explanation else []
        lines += [f"- upstream: {pointer.upstream.url} ({pointer.upstream.state}, releases "
                  f"{pointer.upstream.releases})"] if pointer.upstream else []
        lines.append("")
    run = shlex.join(["bedrock-harness", "certify", *expected["run_as"], "--root", ".", "--scenario", scenario.id])
    lines += ["## Run it", "", "In a fresh environment with only the library and the harness:", "", "```sh",
              install_line(spec, release) if "--command" not in expected["run_as"] else "pip install bedrock-harness",
              "python repro.py      # exit 1: REPRODUCED; 0: NOT REPRODUCED (fixed); 2: fails otherwise", "```", "",
              f"`repro.py` runs `{run}` (this folder is a scenario root: the scenario, its golden, its cassette) and "
              "compares the finding with `expected.json`.", ""]
    if app is not None:
        lines += ["The library's own calls, as an application makes them, against the recorded stream:", "", "```sh",
                  *([app.install] if app.install else []),
                  f"{serve_command(scenario, paired=True)}   # prints the endpoint URL", app.run, "```", ""]
    else:
        lines += ["To watch the library against the recorded stream yourself, serve it and point the library's "
                  "Bedrock endpoint at the printed URL:", "", "```sh",
                  serve_command(scenario, paired=False), "```", ""]
        if spec and ":" not in spec and spec != "reference":
            lines += [f"The harness drives the library as an application does in its shim, "
                      f"`harness/adapters/shims/` (`{spec}`).", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def folder_name(report_stem: str, scenario: str) -> str:
    """``<report stem>/<suite>-<name>``: one folder per failing cell of a report."""
    return f"{report_stem}/{scenario.replace('/', '-')}"


def from_report(document: dict, scenarios: Sequence[Scenario], root: str | Path | None, out: str | Path,
                stem: str, pointers: dict | None = None, apps=None) -> dict[str, Path]:
    """A reproduction of every failing cell of a certification report (its JSON ``document``) under
    ``out/<stem>/``: scenario id -> folder. The library is run as the report says it ran (a JavaScript shim by its
    name and release, not the command line of the machine it ran on); ``apps(spec, scenario, packages)``: its app
    script (harness.adapters.apps.App), written for the npm releases the report ran (``packages``)."""
    from harness.report import results_from_json

    results, _ = results_from_json(document)
    by_id = {s.id: s for s in scenarios}
    adapter = document["adapter"]
    js = bool(adapter.get("packages"))  # a JavaScript shim: its name and --version its release
    spec = adapter.get("name") if js else adapter.get("spec") or None
    command = None if js else adapter.get("command")
    made = {}
    for result in results:
        found = finding(result)
        if found is None or result.scenario not in by_id:
            continue
        folder = Path(out) / folder_name(stem, result.scenario)
        write(folder, by_id[result.scenario], root, found, {"name": adapter.get("name"), "version": adapter.get(
            "version")}, spec=spec if command is None else None, command=command,
            version=adapter.get("version") if js else None, pointer=(pointers or {}).get(result.scenario),
            app=apps(spec, by_id[result.scenario], adapter.get("packages")) if apps is not None and command is None
            else None)
        made[result.scenario] = folder
    return made

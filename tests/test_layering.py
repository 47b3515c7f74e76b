"""harness/ reads as the pipeline: a room imports itself and lower rooms, never a higher one (nor a peer).

The imports are read with ``ast`` (module level and inside functions alike), so a late import cannot hide an
upward dependency. The table is the contract the package docstrings state.
"""

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "harness"

# room -> level. A module may import its own room and any room of a strictly lower level.
LEVELS = {
    "harness.version": 0,
    "harness.wire": 0,
    "harness.evidence": 0,  # the bibliography and the claim format: data and checks, nothing of the harness
    "harness.converse": 1,  # the reference adapter: wire-level helpers or nothing of the harness
    "harness.cassettes": 1,
    "harness.endpoint": 2,
    "harness.judge": 3,  # what makes a verdict, and the protocol it judges
    "harness.suite": 4,  # scenarios, goldens, the runner, results, recording
    "harness.report": 5,
    "harness.studies": 6,  # certify, matrix and bisect, drift, live, tables, shard and merge, explore (its own package:
    # Hypothesis' drawing and the oracles run scenarios and judge them, as certify does; never an adapter's module)
    "harness.adapters": 7,
    "harness.cli": 8,
    "harness.pytest": 8,
    "harness": 9,  # the package's own __init__: the public short paths
}
# Rooms inside a room: the endpoint's emulator and rules sit below its server and responders; the judge's protocol
# (what it judges) below the rest of the judge.
SUBLEVELS = {
    "harness.endpoint": {"harness.endpoint.emulator": 0, "harness.endpoint.rules": 0, "harness.endpoint": 1},
    "harness.judge": {"harness.judge.protocol": 0, "harness.judge": 1},
}


def room(module: str, table: dict) -> str:
    """The longest table entry that is ``module`` or a package holding it."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in table:
            return ".".join(parts[:n])
    raise KeyError(module)


def module_name(path: Path, top: Path) -> str:
    parts = list(path.relative_to(top.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, name: str) -> set[str]:
    """Every harness module ``path`` (module ``name``) imports, relative imports resolved."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # "from harness import x" may name a module or an attribute: judge by the longest module it names.
            found |= {f"{base}.{alias.name}" for alias in node.names} if base == "harness" else {base}
    return {m for m in found if m == "harness" or m.startswith("harness.")}


def violations(top: Path) -> list[str]:
    """Every import in the package at ``top`` that goes up (or sideways) the table."""
    found = []
    for path in sorted(top.rglob("*.py")):
        name = module_name(path, top)
        home = room(name, LEVELS)
        for target in sorted(imported(path, name)):
            there = room(target, LEVELS) if target != "harness" else "harness"
            if target.startswith("harness.") and target.split(".")[1] in ("__version__", "load_adapter"):
                there = "harness"  # an attribute of the root package, not a module
            if there == home:
                inner = SUBLEVELS.get(home)
                if inner and inner[room(target, inner)] > inner[room(name, inner)]:
                    found.append(f"{name} imports {target}")
                continue
            if LEVELS[there] >= LEVELS[home]:
                found.append(f"{name} imports {target}")
    return found


def test_no_room_imports_a_higher_one():
    assert violations(HARNESS) == []


def test_every_room_states_what_it_is_for():
    for init in sorted(HARNESS.glob("*/__init__.py")) + sorted(HARNESS.glob("*/*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and "import" in doc, f"{init.relative_to(HARNESS.parent)} has no docstring saying what it may import"


def test_ls_harness_shows_the_rooms():
    rooms = sorted(p.name for p in HARNESS.iterdir() if p.is_dir() and not p.name.startswith("__"))
    assert rooms == ["adapters", "cassettes", "cli", "converse", "endpoint", "evidence", "judge", "pytest", "report",
                     "studies", "suite", "wire"]
    flat = sorted(p.name for p in HARNESS.glob("*.py"))
    assert flat == ["__init__.py", "version.py"]


@pytest.mark.parametrize("source, target", [
    ("wire/eventstream.py", "from harness.suite import runner"),
    ("cassettes/scrub.py", "import harness.endpoint.server"),
    ("suite/runner.py", "from harness.adapters import AdapterFailure"),
    ("converse/stream.py", "from harness.cassettes import cassette"),
    ("endpoint/rules/shape.py", "from harness.endpoint import server"),
    ("judge/laws.py", "from harness.suite import runner"),
    ("judge/protocol.py", "from harness.judge import laws"),
    ("suite/golden.py", "from harness.report import render"),
    ("report/as_text.py", "from harness.studies import certify"),
    ("studies/matrix.py", "from harness.adapters import releases"),
    ("studies/explore/session.py", "from harness.adapters import load_adapter"),
    ("endpoint/server.py", "from harness import cli"),
])
def test_a_deliberate_upward_import_is_caught(tmp_path, source, target):
    """A synthetic copy of the layout with one upward import added: the check names it."""
    top = tmp_path / "harness"
    for path in HARNESS.rglob("*.py"):
        copy = top / path.relative_to(HARNESS)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(path.read_text())
    assert violations(top) == []
    planted = top / source
    planted.write_text(planted.read_text() + f"\n\ndef _late():\n    {target}\n")
    found = violations(top)
    assert len(found) == 1 and found[0].startswith(module_name(planted, top) + " imports harness.")

"""A wrong type in any field of a cassette, a scenario or a golden, for every reader of it: a one-line error of the
reader's own kind (or, where the field's type does not matter to it, a clean reading), never another exception.
Hypothesis picks the field (any key or item of the shipped core/round-trip files) and the wrong value."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cassettes import cassette as cs
from harness.cassettes import secrets
from harness.cli.cassette_show import render
from harness.suite.golden import GoldenError, load_golden
from harness.suite.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SID = "core/round-trip"
WRONG = [None, 7, -1, 2.5, True, "x", "", [1, "a"], [], {"k": 1}, {}]


def _paths(value, prefix=()) -> list[tuple]:
    """Every key path of a parsed document (the document itself left out)."""
    out = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        out.append((*prefix, key))
        out.extend(_paths(item, (*prefix, key)))
    return out


def _replaced(document, path: tuple, value):
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


def _text(kind: str) -> str:
    return (ROOT / ("cassettes" if kind == "cassette" else "suites") / f"{SID}{'.golden' if kind == 'golden' else ''}"
            ".yaml").read_text()


PATHS = {kind: _paths(yaml.safe_load(_text(kind))) for kind in ("cassette", "scenario", "golden")}


def _mutated(kind: str, pick: int, value) -> str | None:
    document = yaml.safe_load(_text(kind))
    path = PATHS[kind][pick % len(PATHS[kind])]
    current = document
    for key in path:
        current = current[key]
    if type(current) is type(value):
        return None  # not a wrong type
    return yaml.safe_dump(_replaced(document, path, value), sort_keys=False)


def _one_line(error: Exception) -> None:
    assert "\n" not in str(error) and str(error), repr(error)


_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(st.integers(min_value=0), st.sampled_from(WRONG))
def test_a_wrong_type_in_a_cassette_is_one_line_in_every_reader(tmp_path, pick, value):
    text = _mutated("cassette", pick, value)
    if text is None:
        return
    path = tmp_path / "c.yaml"
    path.write_text(text)
    problems = cs.verify(path)
    assert all("\n" not in p for p in problems)
    try:
        loaded = cs.load(path)
    except cs.CassetteError as err:
        _one_line(err)
        assert problems  # verify says so too
    else:
        list(render(loaded))  # show: whatever verify passes or reports, it prints without failing
        assert all("\n" not in p for p in cs.problems(loaded))
        try:
            cs.load_checked(path)
            assert not problems
        except cs.CassetteError as err:
            _one_line(err)
            assert problems
    assert all("\n" not in str(f) for f in secrets.scan_file(path, environ={}))


def _root(tmp_path: Path, kind: str, text: str) -> Path:
    root = tmp_path / "root"
    shutil.rmtree(root, ignore_errors=True)
    (root / "suites/core").mkdir(parents=True)
    shutil.copy(ROOT / f"suites/{SID}.yaml", root / f"suites/{SID}.yaml")
    shutil.copy(ROOT / f"suites/{SID}.golden.yaml", root / f"suites/{SID}.golden.yaml")
    (root / f"suites/{SID}{'.golden' if kind == 'golden' else ''}.yaml").write_text(text)
    return root


@_SETTINGS
@given(st.integers(min_value=0), st.sampled_from(WRONG))
def test_a_wrong_type_in_a_scenario_is_one_line(tmp_path, pick, value):
    text = _mutated("scenario", pick, value)
    if text is None:
        return
    root = _root(tmp_path, "scenario", text)
    try:
        scenario = load_scenario(root / f"suites/{SID}.yaml", root / "suites")
    except ScenarioError as err:
        _one_line(err)
        return
    try:
        load_golden(scenario)
    except GoldenError as err:
        _one_line(err)


@_SETTINGS
@given(st.integers(min_value=0), st.sampled_from(WRONG))
def test_a_wrong_type_in_a_golden_is_one_line(tmp_path, pick, value):
    text = _mutated("golden", pick, value)
    if text is None:
        return
    root = _root(tmp_path, "golden", text)
    scenario = load_scenario(root / f"suites/{SID}.yaml", root / "suites")
    try:
        load_golden(scenario)
    except GoldenError as err:
        _one_line(err)

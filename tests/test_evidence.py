"""The evidence behind the suite's claims about Bedrock: the catalog, the claim format and `bedrock-harness evidence`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from realworld import ROOT as REALWORLD, requires_realworld

from harness.cli import main
from harness.evidence import CatalogError, ClaimError, Source, catalog, claim_problems, load_catalog, parse_claims
from harness.evidence import recording_problems

REPO = Path(__file__).resolve().parents[1]
REPORT = {"kind": "report", "url": "https://github.com/o/r/issues/1", "quote": "The format of the value is invalid."}


def evidence(*args: str):
    return CliRunner().invoke(main, ["evidence", *args], catch_exceptions=False)


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# ---- the shipped claims ----

def test_every_shipped_claim_has_a_source():
    result = evidence("--check")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.rstrip().endswith("every claim has a source")


@requires_realworld
def test_every_recording_the_catalog_names_has_the_bytes_it_hashed():
    result = evidence("--check", "--recordings", str(REALWORLD))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


def test_the_json_listing_holds_every_owner_source_judgement_and_robustness_scenario():
    document = json.loads(evidence("--format", "json").stdout)
    owners = {claim["owner"].split(" ")[0] for claim in document["claims"]}
    assert owners == {"rule", "style", "scenario"} and document["problems"] == []
    assert all(claim["sources"] and all("id" in s and "kind" in s for s in claim["sources"])
               for claim in document["claims"])
    json_object = next(c for c in document["claims"] if c["owner"] == "rule tool-result-json-object")
    assert "every model" in json_object["says"]
    assert {s["id"] for s in json_object["sources"]} >= {"aws-sdk-js-v3#7330"}
    assert {"edge/interleaved-parallel-deltas", "faults/missing-tool-use-id"} <= set(document["robustness"])
    assert any(j["applies_to"] == "every scenario" for j in document["judgements"])
    assert all(j["application"] for j in document["judgements"])  # each says why the application can do without it
    assert {j["id"] for j in document["judgements"] if j["declared"]} == {"guardrail-as-content-filter",
                                                                          "arguments-as-object"}


def test_the_text_listing_groups_claims_by_owner_and_cites_each_source_where_it_can_be_checked(tmp_path):
    text = evidence().stdout
    assert "\nrule tool-result-status\n  tool-result-status: " in text
    assert "\nstyle nova\n  whole-input: " in text and "\nscenario edge/nova-style\n" in text
    assert "    - R-nova1: recording pydantic__pydantic-ai/test_bedrock_model_iter_stream.yaml (sha256 " in text
    assert "    - R-kimi-stream: recording vercel/ai packages/amazon-bedrock/src/__fixtures__/" in text
    assert "    - aws-sdk-js-v3#7330: report https://github.com/aws/aws-sdk-js-v3/issues/7330: \"" in text
    assert "robustness scenarios" in text and "judgements (" in text
    out = tmp_path / "evidence.json"
    assert evidence("--output", str(out)).exit_code == 0  # the format follows the suffix
    assert json.loads(out.read_text())["claims"]


def owners(*args: str) -> set[str]:
    result = evidence("--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return {claim["owner"] for claim in json.loads(result.stdout)["claims"]}


def test_the_filters_narrow_the_listing_to_a_rule_a_scenario_or_a_family():
    assert owners("--rule", "tool-result-status") == {"rule tool-result-status"}
    assert owners("--rule", "tool-result-status", "--rule", "first-message-user") == {
        "rule tool-result-status", "rule first-message-user"}
    assert owners("--scenario", "edge/nova-style") == {"scenario edge/nova-style"}
    document = json.loads(evidence("--format", "json", "--scenario", "faults/missing-tool-use-id").stdout)
    assert set(document["robustness"]) == {"faults/missing-tool-use-id"} and document["judgements"]
    nova, everything = owners("--family", "nova"), owners()
    assert {"rule first-message-user", "rule model-id", "style nova", "style nova-2", "style shared",
            "scenario edge/nova-style"} <= nova < everything
    assert "style claude" not in nova and "scenario core/single-call" not in nova
    # a rule whose evidence rejects for other families only is left out; one seen accepting the family is kept
    assert "rule first-message-user" in owners("--family", "kimi")
    assert not any(o.startswith(("scenario", "style")) for o in owners("--rule", "tool-result-status"))


@pytest.mark.parametrize("args, named", [
    (("--rule", "no-such-rule"), "--rule no-such-rule: no such rule"),
    (("--scenario", "core/nope"), "--scenario core/nope: no such scenario"),
    (("--family", "zzz"), "--family zzz: no claim names this family"),
])
def test_an_unknown_filter_value_is_one_usage_line(args, named):
    result = CliRunner().invoke(main, ["evidence", *args])
    assert result.exit_code == 2 and named in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_changed_or_missing_recording_fails_the_check_naming_the_source(tmp_path):
    result = evidence("--check", "--recordings", str(tmp_path))
    assert result.exit_code == 1
    assert "evidence: source R-think: " in result.stderr and "cannot read" in result.stderr


def test_a_claim_of_ones_own_scenario_is_checked_like_the_shipped_ones(tmp_path):
    scenario = yaml.safe_load((REPO / "suites" / "core" / "smoke-text.yaml").read_text())
    claims = [{"id": "mine", "says": "Bedrock answers hello.", "sources": ["no-such-source"]},
              {"id": "inline", "says": "Bedrock answers hello.", "sources": [{"id": "my-report", **REPORT}]}]
    write(tmp_path / "suites" / "mine" / "hello.yaml", {**scenario, "claims": claims})
    write(tmp_path / "suites" / "mine" / "quiet.yaml", {k: v for k, v in scenario.items() if k != "claims"})
    result = evidence("--check", "--root", str(tmp_path))
    assert result.exit_code == 1
    assert "evidence: scenario mine/hello: mine: unknown source no-such-source (not in the catalog)" in result.stderr
    assert "evidence: scenario mine/quiet: no claims" in result.stderr
    assert "inline" not in result.stderr
    assert "    - my-report: report https://github.com/o/r/issues/1" in result.stdout


def test_a_scenario_claim_of_the_wrong_shape_is_one_error_line(tmp_path):
    scenario = yaml.safe_load((REPO / "suites" / "core" / "smoke-text.yaml").read_text())
    bad = {"id": "mine", "says": "x", "sources": [{"kind": "report", "url": "https://example.com/1"}]}
    write(tmp_path / "suites" / "mine" / "hello.yaml", {**scenario, "claims": [bad]})
    result = CliRunner().invoke(main, ["evidence", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "mine/hello" in result.stderr and "quote: missing (a report needs it)" in result.stderr


# ---- the catalog ----

@pytest.mark.parametrize("entry, problem", [
    ({"kind": "report", "url": "https://x.example/1"}, "s.quote: missing (a report needs it)"),
    ({"kind": "doc", "url": "http://x.example/1", "quote": "q"}, "s.url (an https:// address): missing"),
    ({"kind": "recording", "file": "a/b.yaml", "sha256": "abc", "shows": "x"}, "s.sha256: not hex of its length"),
    ({"kind": "recording", "repo": "o/r", "path": "p", "commit": "1234", "shows": "x"},
     "s.commit: not hex of its length"),
    ({"kind": "recording", "file": "a/b.yaml", "sha256": "0" * 64}, "s.shows: missing"),
    ({"kind": "model"}, "s.what: missing"),
    ({"kind": "rumour", "url": "https://x.example/1"}, "s.kind: expected one of"),
    ({**REPORT, "seen": "yes"}, "s.seen: unknown field"),
])
def test_a_malformed_source_is_an_error_naming_the_file_source_and_field(tmp_path, entry, problem):
    path = write(tmp_path / "sources.yaml", {"s": entry})
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert str(caught.value).startswith(f"{path}: ") and problem in str(caught.value)


def test_the_shipped_catalog_loads_and_quotes_what_it_cites():
    sources = catalog()
    assert all(s.quote.strip() for s in sources.values() if s.kind in ("report", "doc"))
    assert all(s.url.startswith("https://") for s in sources.values() if s.kind in ("report", "doc"))
    assert all((s.file and s.sha256) or (s.repo and s.path and len(s.commit) == 40)
               for s in sources.values() if s.kind == "recording")


def test_recording_problems_names_a_changed_file_and_a_missing_one(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "stream.bin").write_bytes(b"frames")
    digest = hashlib.sha256(b"frames").hexdigest()
    sources = {"R-a": Source("R-a", "recording", file="a/stream.bin", sha256=digest, shows="x"),
               "R-b": Source("R-b", "recording", file="a/gone.bin", sha256=digest, shows="x"),
               "R-c": Source("R-c", "recording", repo="o/r", path="p", commit="0" * 40, shows="x")}
    assert [p.split(":")[0] for p in recording_problems(sources, tmp_path)] == ["source R-b"]
    (tmp_path / "a" / "stream.bin").write_bytes(b"frames, edited")
    changed = recording_problems(sources, tmp_path)[0]
    assert changed.startswith("source R-a: ") and f"the catalog says {digest}" in changed


# ---- claims ----

SOURCES = {"R-x": Source("R-x", "recording", file="x.bin", sha256="0" * 64, shows="x"),
           "shapes": Source("shapes", "model", what="the service model")}


@pytest.mark.parametrize("sources, problem", [
    (["R-x"], None),
    (["nowhere"], "owner: c: unknown source nowhere (not in the catalog)"),
    ([], "owner: c: no source"),
    (["shapes"], "owner: c: only the service model"),
    ([{"id": "inline", **REPORT}], None),
])
def test_what_makes_a_claim_unsupported(sources, problem):
    [claim] = parse_claims([{"id": "c", "says": "Bedrock does it.", "sources": sources}], "owner", "here")
    found = claim_problems(claim, SOURCES)
    assert (found[0].startswith(problem) if problem else found == []), found


@pytest.mark.parametrize("data, problem", [
    ({"id": "c", "says": "x"}, None),
    ({"id": "C!", "says": "x"}, "here[0].id: expected a new lower-case id"),
    ({"id": "c", "says": " "}, "here[0].says: expected one sentence"),
    ({"id": "c", "says": "x", "sources": "R-x"}, "here[0].sources: expected a list"),
    ({"id": "c", "says": "x", "sources": [3]}, "here[0].sources[0]: expected a source id or a source mapping"),
    ({"id": "c", "says": "x", "sources": [{"kind": "report", "url": "https://x.example"}]},
     "quote: missing (a report needs it)"),
    ({"id": "c", "says": "x", "why": "y"}, "here[0]: expected a mapping with id, says and sources only"),
])
def test_a_claim_of_the_wrong_shape_is_an_error_naming_where(data, problem):
    if problem is None:
        assert parse_claims([data], "owner", "here")[0].sources == ()
        return
    with pytest.raises(ClaimError, match=problem.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
                       .replace(")", r"\)")):
        parse_claims([data], "owner", "here")


def test_two_claims_of_one_owner_need_two_ids():
    with pytest.raises(ClaimError, match=r"here\[1\]\.id"):
        parse_claims([{"id": "c", "says": "x"}, {"id": "c", "says": "y"}], "owner", "here")

"""Joining the JSON reports of a split run (``run`` / ``certify --shard K/N --format json``) into one report.

Every result is carried through as it is, each of its fields included (whatever a newer harness adds), sorted by
scenario id as an unsharded run sorts them; the summary is the shards' summaries added key by key; the common
findings are found again over all the results; every other top-level field is the first report's. The reports must come from one adapter and one harness version, hold no
scenario twice, and, when they name their shards, be every shard of one split. The merged document renders in
any format: a certification report (``certify``'s JSON) as a certification, a run report as ``run``'s report.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Sequence

from harness.cassettes.limits import read_file
from harness.studies import certify
from harness import report
from harness.report.recurring import common_findings
from harness.suite.results import Result, level_scores

__all__ = ["MergeError", "is_certification", "load_report", "merge", "render", "results_of"]

_SAME = ("harness_version", "adapter", "service_model", "suite")  # what every shard must agree on


class MergeError(ValueError):
    """Reports that cannot be joined; the message names the file and what is wrong."""


def load_report(path: str | Path) -> dict:
    """A JSON report read from ``path``; MergeError naming the file when it is none."""
    try:
        document = json.loads(read_file(path))  # a regular file within the size limit (LimitError: a ValueError)
    except (OSError, ValueError, RecursionError) as error:  # RecursionError: JSON nested past the parser's stack
        why = getattr(error, "strerror", None) or error if not isinstance(error, RecursionError) else "nested too deep"
        raise MergeError(f"{path}: cannot read a JSON report: {why}") from None
    if not (isinstance(document, dict) and isinstance(document.get("results"), list)
            and isinstance(document.get("summary"), dict) and isinstance(document.get("adapter"), dict)):
        raise MergeError(f"{path}: not a bedrock-harness JSON report (run or certify --format json: an object with "
                         "adapter, results and summary)")
    return document


def merge(documents: Sequence[dict], names: Sequence[str]) -> dict:
    """One report of ``documents`` (read from the files ``names``); MergeError when they do not belong together."""
    if not documents:
        raise MergeError("no reports to merge")
    _check_same(documents, names)
    _check_shards(documents, names)
    owner: dict[str, str] = {}
    for document, name in zip(documents, names):
        for entry in document["results"]:
            sid = str(entry.get("scenario"))
            if sid in owner:
                raise MergeError(f"{name}: {sid} is in {owner[sid]} too; merge each shard once")
            owner[sid] = name
    merged = {key: value for key, value in documents[0].items() if key != "shard"}
    merged["results"] = sorted((e for d in documents for e in d["results"]), key=lambda e: str(e.get("scenario")))
    merged["summary"] = _summed(d["summary"] for d in documents)
    if any("levels" in d for d in documents):  # of the whole run (reports older than levels have none)
        merged["levels"] = level_scores(results_of(merged))
    # of the whole run's failing scenarios, not the first shard's (and present when older reports lacked it)
    merged["common_findings"] = [c.as_json() for c in common_findings(results_of(merged))]
    return merged


def _check_same(documents: Sequence[dict], names: Sequence[str]) -> None:
    for key in _SAME:
        for document, name in zip(documents[1:], names[1:]):
            if key == "suite" and not (document["results"] and documents[0]["results"]):
                continue  # a shard that ran no scenario of layered roots digests no suite
            if document.get(key) != documents[0].get(key):
                raise MergeError(f"{name}: its {key} {json.dumps(document.get(key))} differs from {names[0]}'s "
                                 f"{json.dumps(documents[0].get(key))}; shards of one run share it")


def _check_shards(documents: Sequence[dict], names: Sequence[str]) -> None:
    """Reports that name their shard must be every shard of one split, each once."""
    shards = [d.get("shard") for d in documents]
    if not any(shards):
        return
    if not all(shards):
        raise MergeError(f"{names[shards.index(None)]}: names no shard while {names[shards.index(next(filter(None, shards)))]} "
                         "does; merge the shards of one split")
    count = shards[0].get("count")
    for shard, name in zip(shards, names):
        if shard.get("count") != count:
            raise MergeError(f"{name}: shard {shard.get('index')}/{shard.get('count')} is not of the same split as "
                             f"{names[0]} ({shards[0].get('index')}/{count})")
    seen = Counter(s.get("index") for s in shards)
    twice = sorted(i for i, n in seen.items() if n > 1)
    if twice:
        raise MergeError(f"shard {twice[0]}/{count} is given {seen[twice[0]]} times")
    missing = [i for i in range(1, int(count) + 1) if i not in seen]
    if missing:
        raise MergeError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{i}/{count}' for i in missing)} "
                         f"missing: a merged report holds every shard of the split")


def _summed(summaries) -> dict:
    """The shards' counts added key by key (every key any shard has)."""
    total: dict = {}
    for counts in summaries:
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value if isinstance(value, (int, float)) else value
    return total


def is_certification(document: dict) -> bool:
    """Whether ``document`` is ``certify``'s JSON (versions and date beside the run report)."""
    return all(key in document for key in ("botocore_version", "boto3_version", "python_version", "date"))


def results_of(document: dict) -> list[Result]:
    return report.results_from_json(document)[0]


def render(document: dict, fmt: str, verbose: bool = False) -> str:
    """The merged ``document`` in ``fmt``: JSON as it is, any other format as certify or run renders it."""
    if fmt == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if is_certification(document):
        return certify.render(certify.from_json(document), fmt, verbose)
    results, cassettes = report.results_from_json(document)
    return report.render(results, document["adapter"], fmt, cassettes=cassettes, verbose=verbose)

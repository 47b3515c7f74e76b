"""``pytest --bedrock-adapter SPEC --bedrock-explore N``: one more item, ``bedrock-explore``, that explores the
adapter with N examples of the ci profile (harness.studies.explore) and fails with the summary when something was
found; ``--bedrock-explore-out DIR`` writes each shrunk failure there as a scenario root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

__all__ = ["NODE_ID", "ExploreFailure", "ExploreItem"]

NODE_ID = "bedrock-explore"  # not a scenario id (those are <suite>/<name>), so never one of the scenarios'


class ExploreFailure(Exception):
    """What the exploration found: the summary text."""


class ExploreItem(pytest.Item):
    """The exploration of the suite's adapter."""

    def __init__(self, *, examples: int, out: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.examples, self.out = examples, out
        self.add_marker("bedrock")

    def runtest(self) -> None:
        from harness.studies.explore.needs import hypothesis_missing
        from harness.studies.explore.summary import render_text

        missing = hypothesis_missing()
        if missing:
            raise ExploreFailure(missing)
        from harness.studies.explore.search import explore

        adapter = self.parent.adapter
        report = explore(adapter, profile="ci", examples=self.examples)
        self.user_properties += [("bedrock_explore_examples", report.examples),
                                 ("bedrock_explore_failures", len(report.failures))]
        if not report.failures:
            return
        written = []
        if self.out:
            from harness.studies.explore.write import write_failure

            root = self.config.invocation_params.dir / self.out
            written = [write_failure(f, Path(root), f"pytest --bedrock-explore {self.examples}", adapter)
                       for f in report.failures]
        raise ExploreFailure(render_text(report, written))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> Any:
        if isinstance(excinfo.value, ExploreFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[str, int, str]:
        return NODE_ID, 0, f"explore ({self.examples} examples, ci profile)"

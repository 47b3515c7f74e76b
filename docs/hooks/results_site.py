"""MkDocs hook: the results site (``bedrock-harness site``) built from the committed certification reports into the
documentation's ``results/`` folder after every build, so the published docs carry the site that matches their
reports (docs/certification/results.md links to it)."""

from __future__ import annotations

from pathlib import Path

FOLDER = "results"


def on_post_build(config, **kwargs) -> None:
    from harness.adapters.apps import app_for
    from harness.studies.site import build
    from harness.suite.scenario import discover

    root = Path(config["config_file_path"]).resolve().parent
    build(root, Path(config["site_dir"]) / FOLDER, discover(root / "suites"), app_for)

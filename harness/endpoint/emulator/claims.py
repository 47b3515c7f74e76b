"""What each emulator style claims of how its model family streams: ``styles.yaml`` beside this module, in the claim
format of harness.evidence (``shared`` holds what every style renders alike)."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from harness.evidence import Claim, ClaimError, parse_claims

__all__ = ["STYLE_CLAIMS", "style_claims"]

STYLE_CLAIMS = Path(__file__).with_name("styles.yaml")


@functools.cache
def style_claims(path: Path = STYLE_CLAIMS) -> dict[str, tuple[Claim, ...]]:
    """Style name (and ``shared``) -> its claims; a malformed file is a ClaimError naming the style and field."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, dict) and set(v) == {"claims"} for v in data.values()):
        raise ClaimError(f"{path}: expected style -> {{claims: [...]}}")
    return {name: tuple(parse_claims(entry["claims"], f"style {name}", f"{path}: {name}.claims"))
            for name, entry in data.items()}

"""Where scenarios come from: one root (a folder holding ``suites/`` and ``cassettes/``) or several, layered.

``--root`` may be given more than once: the suites of every root run together, and a suite of a later root
replaces the suite of the same name from an earlier one. ``shipped`` names the suite that comes with
bedrock-harness (the checkout's in an editable install, the package's otherwise), so
``--root shipped --root my-suite`` runs the shipped scenarios plus the user's. With several roots each scenario's
cassette and golden are found under the root it came from (``harness.suite.runner.cassette_path`` with root None).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from harness.suite.discovered import Discovered
from harness.suite.scenario import discover, scenario_ids, selected_ids

__all__ = ["READ_ONLY", "SHIPPED", "SHIPPED_ROOT", "installed", "layered_ids", "load", "owner", "project_root",
           "resolve", "selected", "shipped_root", "single"]

SHIPPED = "shipped"  # the --root value naming the suite that comes with bedrock-harness
SHIPPED_ROOT = Path(__file__).resolve().parents[1] / "shipped"  # the wheel's copy of suites/ and cassettes/ (setup.py)


def project_root(start: str | Path | None = None) -> Path:
    """The folder holding suites/ and cassettes/: the working directory if it has suites/, else the shipped suite."""
    here = Path(start or Path.cwd())
    return here if (here / "suites").is_dir() else shipped_root()


def shipped_root() -> Path:
    """The suite that comes with bedrock-harness: the checkout's (an editable install), else the package's."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "suites").is_dir() else SHIPPED_ROOT


def resolve(given: Sequence[str | Path], base: Path | None = None) -> list[Path]:
    """The roots ``--root`` names (relative to ``base``, default the working directory); none: the default."""
    base = Path.cwd() if base is None else Path(base)
    if not given:
        return [project_root(base)]
    return list(dict.fromkeys(shipped_root() if str(g) == SHIPPED else base / g for g in given))


def single(roots: Sequence[Path]) -> Path | None:
    """The root when there is one; None when several are layered (each scenario then knows its own)."""
    return roots[0] if len(roots) == 1 else None


def _owners(roots: Sequence[Path]) -> dict[str, Path]:
    """suite name -> the last root that has it (a later root's suite replaces an earlier one's)."""
    owners: dict[str, Path] = {}
    for root in roots:
        owners.update(dict.fromkeys(sorted({sid.split("/", 1)[0] for sid in scenario_ids(root / "suites")}), root))
    return owners


def load(roots: Sequence[Path], suites: Sequence[str] = (), ids: Sequence[str] = (),
         keep: Callable[[str], bool] | None = None, lean: bool = True) -> Discovered:
    """The selected scenarios of ``roots``, sorted by id (ScenarioError for a bad file or an unknown name); with
    ``keep`` (a shard's ``owns``), only the selected ids it keeps are read; ``lean`` as ``discover`` takes it."""
    if len(roots) == 1:
        return discover(roots[0] / "suites", suites, ids, keep, lean)
    owners = _owners(roots)
    wanted = [sid for sid in selected(roots, suites, ids) if keep is None or keep(sid)]
    mine = {root: [sid for sid in wanted if owners[sid.split("/", 1)[0]] == root] for root in dict.fromkeys(owners.values())}
    return Discovered.joined(discover(root / "suites", ids=chosen, lean=lean) for root, chosen in mine.items() if chosen)


def selected(roots: Sequence[Path], suites: Sequence[str] = (), ids: Sequence[str] = ()) -> list[str]:
    """The ids ``load`` would read for ``suites`` and ``ids``, from the file names alone (ScenarioError for an
    unknown name)."""
    every = scenario_ids(roots[0] / "suites") if len(roots) == 1 else layered_ids(roots)
    return selected_ids(every, suites, ids)


def layered_ids(roots: Sequence[Path]) -> list[str]:
    """Every scenario id the layered ``roots`` hold (what a baseline may name), without parsing the files."""
    owners = _owners(roots)
    return sorted(sid for root in dict.fromkeys(owners.values()) for sid in scenario_ids(root / "suites")
                  if owners[sid.split("/", 1)[0]] == root)


def owner(roots: Sequence[Path], sid: str) -> Path | None:
    """The root whose suites hold scenario ``sid`` (a later root's suite replacing an earlier one's), or None."""
    root = _owners(roots).get(sid.split("/", 1)[0])
    return root if root is not None and sid in scenario_ids(root / "suites") else None


def installed(path: Path) -> bool:
    """True inside the suite an installed package carries (site-packages), which nothing of ours rewrites."""
    return Path(path).resolve().is_relative_to(SHIPPED_ROOT.resolve())


# Why a path inside the installed suite is not written, and what to do instead.
READ_ONLY = ("the suite installed with bedrock-harness is read-only; record and update goldens in a suite of your "
             "own (--root DIR, pytest --bedrock-root DIR)")

"""evidence: where each claim about Bedrock comes from. ``catalog`` is the bibliography (``sources.yaml``): real
recordings (a file of ``../shared/realworld`` and its sha256, or a repository, path and commit), public reports (URL
and the quote of Bedrock's own text), AWS documentation (URL and the sentence), and the service model, which is
never evidence alone. ``claims`` is the one claim format every owner of claims uses: the request rules, the
emulator styles and the scenarios. Pure data and checks: it imports nothing of the harness.
"""

from harness.evidence.catalog import KINDS, CatalogError, Source, catalog, load_catalog, recording_problems
from harness.evidence.claims import Claim, ClaimError, claim_problems, parse_claims

__all__ = ["KINDS", "CatalogError", "Claim", "ClaimError", "Source", "catalog", "claim_problems", "load_catalog",
           "parse_claims", "recording_problems"]

"""The mutation suite of Bao et al.: every exactness claim is failed by a plausible wrong implementation, and the
catalogue's oracle, reference and constants variants are caught by the main job's claims (fast form of
``fedrates selfcheck``: quick profile, fresh process per variant)."""

from __future__ import annotations

import pytest

from fedrates.verify import claims
from fedrates.verify.claims.bao import exact as bao_exact
from fedrates.verify.commands.selfcheck import run_selfcheck
from fedrates.verify.sweep import run_claims
from fedrates.verify.variants import all_variants

PROFILE = "quick"
OK = ("pass", "erratum")

#: for every claim of bao_exact, a variant of the catalogue that this claim alone must fail
DESIGNATED = {
    "bao.exact/fedavg-moments": "fedavg/server-step-ignored",
    "bao.exact/fedavg-fixed-point": "fedavg/local-steps-off-by-one",
    "bao.exact/fedprox-moments": "fedprox/local-anchor",
    "bao.exact/fedda-moments": "fedda/uniform-weights",
    "bao.exact/fedmid-moments": "fedmid/uniform-weights",
    "bao.exact/fast-fedda-moments": "fast_fedda/alpha-off-by-one",
    "bao.exact/c-fedda-moments": "c_fedda/gradient-weight-per-round",
    "bao.limit/fedmid-prox-gradient": "fedmid/double-threshold",
    "bao.limit/fedda": "fedda/threshold-per-round",
    "bao.limit/fast-fedda": "fast_fedda/threshold-per-step",
    "bao.limit/c-fedda-offcentre": "c_fedda/inexact-cprox",
    "bao.limit/mc-fedda": "mc_fedda/stage-off-by-one",
    "bao.returned/fedavg": "fedavg/polyak-output",
    "bao.returned/fedprox": "fedprox/polyak-output",
    "bao.returned/fedmid": "fedmid/polyak-output",
    "bao.returned/fedda": "fedda/polyak-output",
    "bao.returned/fast-fedda": "fast_fedda/index-shift-output",
    "bao.returned/c-fedda": "c_fedda/index-shift-output",
    "bao.returned/mc-fedda": "mc_fedda/stage-centre-output",
    "bao.returned/fast-fedda-population": "fast_fedda/server-points-only",
    "bao.returned/fedmid-trace-population": "fedmid/polyak-output",
    "bao.returned/fast-fedda-sampled": "fast_fedda/uniform-weights",
    "bao.returned/c-fedda-sampled": "c_fedda/uniform-weights",
    "bao.exact/structured-fedavg-basis": "structured/basis-transposed",
    "bao.exact/structured-fedprox-basis": "structured/kernel-prox-sign",
    "bao.exact/structured-fedavg-diagonal": "structured/kernel-uniform-weights",
    "bao.exact/structured-fedprox-diagonal": "structured/kernel-power-E-1",
    "bao.returned/structured-fedprox": "structured/basis-transposed",
    "bao.returned/fedavg-implicit": "implicit/batch-mean-over-n",
    "bao.exact/lowrank-fedavg": "lowrank/kernel-no-rank-one",
    "bao.exact/lowrank-fedprox": "lowrank/kernel-prox-sign",
}
#: run in the long step (tests/verify/test_bao_structured.py covers them in the suite)
_LONG = {cid for cid in DESIGNATED if "/structured-" in cid}


def _verdict(claim, base_seed: int = 0) -> dict:
    result = run_claims([claim], PROFILE, None, base_seed=base_seed)
    assert claim.id not in result.errors, result.errors.get(claim.id)
    return claim.judge(result.records[claim.id], PROFILE)


def test_catalogue_is_well_formed() -> None:
    variants = {v.id: v for v in all_variants()}
    ids = claims.ids()
    seed0 = [v for v in variants.values() if v.id.split("/")[0] in
             ("fedavg", "fedprox", "fedda", "fedmid", "fast_fedda", "c_fedda", "mc_fedda", "oracle", "reference",
              "constants")]
    assert len(seed0) >= 25
    for v in seed0:
        assert v.claim_ids(ids), f"{v.id} names no catalogued claim"
    # every algorithm of Bao et al. and every layer has variants
    prefixes = {v.id.split("/")[0] for v in seed0}
    assert prefixes >= {"fedavg", "fedprox", "fedda", "fedmid", "fast_fedda", "c_fedda", "mc_fedda", "oracle",
                        "reference", "constants"}
    # every exactness claim is designated a variant that is run against it
    assert set(DESIGNATED) == {c.id for c in bao_exact.CLAIMS}
    for cid, vid in DESIGNATED.items():
        assert cid in variants[vid].claim_ids(ids)


@pytest.mark.parametrize("claim_id", [pytest.param(c, marks=pytest.mark.slow) if c in _LONG else c
                                      for c in sorted(DESIGNATED)])
def test_designated_variant_fails_the_claim(claim_id: str) -> None:
    variant = {v.id: v for v in all_variants()}[DESIGNATED[claim_id]]
    claim = claims.get(claim_id)
    if variant.patch is not None:
        with variant.patch():
            v = _verdict(claim)
    else:
        v = _verdict(variant.apply(claim))
    assert v["verdict"] == "fail", f"{variant.id} on {claim_id}: {v['verdict']} — {v['message']}"


@pytest.mark.slow
def test_selfcheck_catches_oracle_reference_and_constant_bugs() -> None:
    chosen = ["oracle/noise-ignores-batch", "oracle/minibatch-divides-by-B+1", "oracle/shared-client-streams",
              "oracle/replace-ignored", "reference/uncertified", "constants/half-L"]
    # fast form: each variant meets one representative claim of those it names
    subset = ("bao.exact/fedavg-moments", "bao.exact/fedmid-moments", "bao.limit/fedmid-prox-gradient",
              "bao.thm2.1/rate-T")
    doc = run_selfcheck(chosen, PROFILE, jobs=2, claims_only=subset)
    survivors = [(r["variant"], [(t["claim"], t["verdict"]) for t in r["tried"]]) for r in doc["variants"]
                 if not r["caught"]]
    assert not survivors, survivors
    assert doc["claims_failing_on_correct_code"] == []
    assert doc["kill_ratio"] == 1.0
    by = {r["variant"]: r for r in doc["variants"]}
    # an uncertified reference is never a pass: the re-certified gap makes the limit claims inconclusive
    assert by["reference/uncertified"]["verdict"] == "inconclusive"
    assert "reference insufficient" in by["reference/uncertified"]["message"]
    # a halved L is caught by the re-derivation of the constants from the spectra, not by luck
    assert by["constants/half-L"]["caught_by"] == "bao.thm2.1/rate-T"
    assert "re-derived" in by["constants/half-L"]["message"] or "spectra" in by["constants/half-L"]["message"]

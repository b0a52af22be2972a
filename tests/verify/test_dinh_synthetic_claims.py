"""Claims of Dinh et al. (FedProxVR) on the paper's Synthetic federation: the correct algorithm passes for five base
seeds and each broken variant of ``verify.claims.dinh.variants.SYNTHETIC_VARIANTS`` fails the claim it names."""

from __future__ import annotations

import pytest
from _seeds import base_seeds

from fedrates.verify.claims.dinh import experiments, variants
from fedrates.verify.sweep import run_claims

#: the claims on the Synthetic federation (experiments.py also holds §5's comparison on dinh_ls: test_dinh_claims.py)
CLAIMS = {c.id: c for c in experiments.CLAIMS if isinstance(c, experiments._SyntheticClaim)}


def verdict(claim, base_seed=0):
    result = run_claims([claim], "quick", None, base_seed=base_seed)
    assert claim.id not in result.errors, result.errors.get(claim.id)
    return claim.judge(result.records[claim.id], "quick")


@pytest.mark.parametrize("base_seed", base_seeds([0, 1, 2, 3, 4]))
@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_correct_algorithm_passes(claim_id, base_seed):
    v = verdict(CLAIMS[claim_id], base_seed)
    assert v["verdict"] == "pass", v["message"]
    assert v["reference"]["sufficient"] is True


@pytest.mark.parametrize("base_seed", base_seeds([0, 3]))
@pytest.mark.parametrize("variant", variants.SYNTHETIC_VARIANTS, ids=lambda v: v.id)
def test_broken_variants_fail(variant, base_seed):
    for cid in variant.claim_ids(list(CLAIMS)):
        v = verdict(variant.apply(CLAIMS[cid]), base_seed)
        assert v["verdict"] == "fail", f"{variant.id} on {cid}: {v['verdict']} — {v['measured']}"


def test_every_claim_is_named_by_a_variant():
    named = {cid for v in variants.SYNTHETIC_VARIANTS for cid in v.claim_ids(list(CLAIMS))}
    assert named == set(CLAIMS)

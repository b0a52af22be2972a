"""Every claim honours the sweep's contract: a seed's records do not depend on the other seeds of its batch
(:func:`fedrates.assert_seeds_independent`), and the check itself catches a claim that breaks it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fedrates import Claim, assert_seeds_independent
from fedrates.verify.claims import all_claims
from fedrates.verify.seed_batches import SeedBatchError


@dataclass(frozen=True)
class _Toy(Claim):
    """A claim whose record per seed is either its own draw or (``coupled``) the largest draw of its batch; with
    ``batch_record`` it also writes one record for the batch's first seed: a constant, or (``coupled``) the batch's
    largest draw."""

    coupled: bool = False
    deterministic: bool = False
    batch_record: bool = False

    def points(self, profile: str) -> list[dict]:
        return [{"k": 1}, {"k": 2}]

    def simulate(self, point: dict, seeds) -> pd.DataFrame:
        if self.deterministic:
            return pd.DataFrame({"seed": [int(seeds[0])], "metric": "m", "value": [float(point["k"])]})
        draws = np.array([np.random.default_rng(int(s)).random() for s in seeds]) * point["k"]
        if self.batch_record:
            own = pd.DataFrame({"seed": [int(s) for s in seeds], "metric": "m", "value": draws})
            lead = draws.max() if self.coupled else 2.0 * point["k"]
            return pd.concat([own, pd.DataFrame({"seed": [int(seeds[0])], "metric": "lead", "value": [lead]})])
        values = np.full(len(seeds), draws.max()) if self.coupled else draws
        return pd.DataFrame({"seed": [int(s) for s in seeds], "metric": "m", "value": values})

    def judge(self, records: pd.DataFrame, profile: str) -> dict:  # pragma: no cover - never judged here
        raise NotImplementedError


def _toy(**kw) -> _Toy:
    return _Toy(id="toy.c/one", theorem="toy", title="t", algorithm="a", problem="p", regime="r", why="w",
                metric="m", x="k", **kw)


def test_the_check_passes_a_claim_whose_seeds_are_its_own_and_a_deterministic_one():
    assert assert_seeds_independent(_toy()) == 2
    assert assert_seeds_independent(_toy(deterministic=True)) == 2
    assert assert_seeds_independent(_toy(batch_record=True)) == 2


def test_the_check_catches_a_record_computed_from_the_whole_batch():
    with pytest.raises(SeedBatchError, match=r"toy.c/one: seed 1 beside \[0, 2\] and alone differ \(m\) .*value"):
        assert_seeds_independent(_toy(coupled=True))
    with pytest.raises(SeedBatchError, match=r"first seed 0 and the one for 1 alone differ \(lead\)"):
        assert_seeds_independent(_toy(coupled=True, batch_record=True))


def test_a_claim_with_one_seed_has_nothing_to_check():
    assert assert_seeds_independent(_toy(n_seeds={"quick": 1})) == 0


_CLAIMS = [c for c in all_claims() if len(c.seeds("quick")) >= 2]


def test_claims_with_several_seeds_are_checked():
    assert len(_CLAIMS) > 100


@pytest.mark.slow  # every claim's quick points simulated twice: about half a minute for all of them
@pytest.mark.parametrize("claim", _CLAIMS, ids=lambda c: c.id)
def test_a_seed_has_the_same_records_in_a_batch_as_alone(claim):
    assert assert_seeds_independent(claim) > 0

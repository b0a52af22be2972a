"""Every registered algorithm: a seed's run does not depend on the other seeds of its batch.

``run_batch`` simulates several seeds at once along a replica axis. A replica whose randomness were drawn in
lockstep with the others (a coin drawn for every replica while only some use it) would give a seed different
numbers beside other seeds than alone, and a verdict that would change with how seeds are batched. Each algorithm
runs here on a problem it supports, with stochastic gradients and client sampling wherever it allows them, once
beside other seeds and once alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedrates.solvers import algorithms, problems

SEEDS = [3, 8, 11, 20]
SEED = 8


def _lasso_ball():
    return problems.make("lasso", clients=5, dim=6, sparsity=2, radius=2.0)


def _quadratic():
    return problems.make("quadratic", clients=5, dim=4)


def _separation():
    return problems.make("separation", dim=5, mu=0.02, L=1.0, delta_f=0.1, delta_g=0.3, seed=4)


def _dinh():
    return problems.make("dinh_ls")


def _similar():
    return problems.make("similar_quadratic")


#: algorithm -> (problem, run options): client sampling (participating) where the algorithm takes it, Poisson
#: sampling (rate < 1) for the DP methods that sample their clients themselves
CASES = {
    "acc_vrcs": (_separation, {}),
    "aeg": (_separation, {}),
    "c_acc_extragradient": (_separation, {}),
    "sc_acc_extragradient": (_separation, {}),
    "vrcs": (_separation, {}),
    "c_fedda": (_lasso_ball, {"participating": 3}),
    "fast_fedda": (_lasso_ball, {"participating": 3}),
    "mc_fedda": (_lasso_ball, {"participating": 3}),
    "fedda": (_lasso_ball, {"participating": 3}),
    "fedmid": (_lasso_ball, {"participating": 3}),
    "fedavg": (_quadratic, {"participating": 3}),
    "fedprox": (_quadratic, {"participating": 3}),
    "dp_fedavg_clip": (_quadratic, {"rate": 0.5}),
    "dp_normfedavg": (_quadratic, {"rate": 0.5}),
    "fedavg_sgd": (_dinh, {"participating": 3}),
    "fedprox_sgd": (_dinh, {"participating": 3}),
    "fedproxvr_sarah": (_dinh, {"participating": 3}),
    "fedproxvr_svrg": (_dinh, {"participating": 3}),
    "pfl": (_similar, {}),
}


#: methods that draw no random number on these problems (exact oracles, full participation): every seed runs alike
DETERMINISTIC = {"aeg", "c_acc_extragradient", "pfl"}


def test_every_registered_algorithm_is_covered():
    """Every algorithm fedrates registers (other tests register algorithms of their own)."""
    builtin = {n for n in algorithms.names() if algorithms.get(n).__module__.startswith("fedrates.solvers.")}
    assert set(CASES) == builtin


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seed_gives_the_same_run_beside_other_seeds_as_alone(name):
    build, options = CASES[name]
    problem = build()
    assert algorithms.make(name, **{k: v for k, v in options.items() if k != "participating"}).supports(problem) \
        is None
    together = algorithms.run_batch(name, problem, 8, seeds=SEEDS, **options)
    alone = algorithms.run_batch(name, problem, 8, seeds=[SEED], **options)
    i = SEEDS.index(SEED)
    np.testing.assert_allclose(together.w[i], alone.w[0], rtol=1e-12, atol=1e-14)
    mine = together.records[together.records["seed"] == SEED].reset_index(drop=True)
    solo = alone.records.reset_index(drop=True)
    assert list(mine.columns) == list(solo.columns) and len(mine) == len(solo)
    for column in mine.columns:
        a, b = mine[column].to_numpy(), solo[column].to_numpy()
        if pd.api.types.is_float_dtype(a):  # metrics are evaluated in batches: equal up to rounding
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=column)
        else:
            assert np.array_equal(a, b), column
    # the other seeds really run differently (a batch of identical replicas would pass the test vacuously)
    assert np.allclose(together.w[0], together.w[i]) == (name in DETERMINISTIC)

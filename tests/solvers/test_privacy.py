"""The privacy side of Das et al. on dp-accounting: accountants against the Gaussian closed form, calibrations that
meet their target from the private side, eq. (5)'s multiplier and its inverse."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from fedrates.solvers import privacy as P
from fedrates.solvers.errors import InputError


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path))


def test_closed_form_is_the_gaussian_privacy_curve():
    # K = 1, z = 1: mu = 1; delta(eps) from the definition of the hockey-stick divergence of N(0,1) vs N(1,1)
    from scipy.stats import norm

    eps = 0.7
    direct = norm.cdf(0.5 - eps) - math.exp(eps) * norm.cdf(-0.5 - eps)
    assert P.gaussian_delta_exact(eps, 1.0) == pytest.approx(direct, rel=1e-12)
    # composition: K rounds at z equal one round at z / sqrt(K)
    assert P.gaussian_epsilon_exact(4.0, 16, 1e-5) == pytest.approx(P.gaussian_epsilon_exact(1.0, 1, 1e-5), rel=1e-10)
    # replace-one doubles the sensitivity
    assert P.gaussian_epsilon_exact(8.0, 9, 1e-5, "replace-one") == pytest.approx(
        P.gaussian_epsilon_exact(4.0, 9, 1e-5), rel=1e-10)
    z = P.gaussian_multiplier_exact(3.0, 1e-6, 100)
    assert P.gaussian_epsilon_exact(z, 100, 1e-6) == pytest.approx(3.0, rel=1e-9)


@pytest.mark.parametrize("z,K,adjacency", [(16.6, 500, "add-remove"), (3.0, 20, "add-remove"),
                                           (12.0, 200, "replace-one")])
def test_accountants_against_the_closed_form_without_sampling(z, K, adjacency):
    exact = P.gaussian_epsilon_exact(z, K, 1e-6, adjacency)
    pld = P.epsilon(z, 1.0, K, 1e-6, accountant="pld", adjacency=adjacency)
    rdp = P.epsilon(z, 1.0, K, 1e-6, accountant="rdp", adjacency=adjacency)
    assert exact - 1e-9 <= pld <= exact * (1 + 1e-3)  # PLD: pessimistic, to its discretisation
    assert rdp >= exact  # RDP: an upper bound, never below the exact curve
    assert rdp <= 1.5 * exact


def test_sampling_amplifies_and_noise_helps():
    e_full = P.epsilon(4.0, 1.0, 50, 1e-5, accountant="rdp")
    e_samp = P.epsilon(4.0, 0.2, 50, 1e-5, accountant="rdp")
    e_more = P.epsilon(8.0, 0.2, 50, 1e-5, accountant="rdp")
    assert e_samp < e_full and e_more < e_samp
    assert P.epsilon(4.0, 0.2, 50, 1e-5, accountant="rdp", adjacency="replace-one") is None


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
def test_calibration_meets_its_target_from_the_private_side(accountant):
    eps, delta, rate, K = 2.0, 1e-5, 0.3, 40
    z = P.noise_multiplier_for(eps, delta, rate, K, accountant=accountant)
    assert P.epsilon(z, rate, K, delta, accountant=accountant) <= eps * (1 + 1e-6)
    assert P.epsilon(z * 0.99, rate, K, delta, accountant=accountant) > eps


def test_pld_calibration_without_sampling_is_the_exact_multiplier():
    z = P.noise_multiplier_for(5.0, 1e-6, 1.0, 500, accountant="pld")
    assert z == pytest.approx(P.gaussian_multiplier_exact(5.0, 1e-6, 500), rel=1e-3)
    assert z >= P.gaussian_multiplier_exact(5.0, 1e-6, 500) * (1 - 1e-6)


def test_eq5_multiplier_and_q_are_inverse():
    n, r, K, eps, delta = 50, 10, 30, 3.0, 1e-5
    z = P.eq5_noise_multiplier(2.0, eps, delta, K, n, r)
    assert z == pytest.approx((r / n) * math.sqrt(2.0 * K * math.log(1 / delta)) / eps, rel=1e-14)
    q = P.q_for(eps, delta, K, n, r, accountant="rdp")
    z_q = P.eq5_noise_multiplier(q, eps, delta, K, n, r)
    assert P.epsilon(z_q, r / n, K, delta, accountant="rdp") == pytest.approx(eps, rel=1e-4)
    # the averaged std sigma = z C / r
    s = P.calibrated_sigma(eps, delta, K, 2.0, n, r, accountant="rdp")
    assert s == pytest.approx(z_q * 2.0 / r, rel=1e-12)


def test_bad_input_is_one_line():
    with pytest.raises(InputError, match="accountant"):
        P.epsilon(1.0, 1.0, 1, 1e-5, accountant="moments")
    with pytest.raises(InputError, match="rate"):
        P.epsilon(1.0, 1.5, 1, 1e-5)
    with pytest.raises(InputError, match="delta"):
        P.noise_multiplier_for(1.0, 1.0, 1.0, 1)
    with pytest.raises(InputError, match="pld"):
        P.noise_multiplier_for(1.0, 1e-5, 0.5, 3, accountant="rdp", adjacency="replace-one")


def test_multiplier_key_is_never_above_the_multiplier_and_merges_last_bit_noise() -> None:
    import numpy as np

    for z in np.exp(np.random.default_rng(7).uniform(-8, 8, 200)):
        key = P.key_multiplier(float(z))
        assert key <= z and (z - key) / z < 1e-11
    # one multiplier reached by two roundings (σ = zC/r and back at two clips): one key, one accountant run, one ε
    pair = (0.3375177749699333, 0.33751777496993335)
    assert pair[0] != pair[1] and P.key_multiplier(pair[0]) == P.key_multiplier(pair[1])
    before = P._epsilon.cache_info().misses
    eps = {P.epsilon(v, 1.0, 5, 1e-5) for v in (3.0, math.nextafter(3.0, math.inf))}
    assert len(eps) == 1 and P._epsilon.cache_info().misses - before == 1


@pytest.mark.parametrize("adjacency", ["add-remove", "replace-one"])
def test_unsampled_calibration_is_the_exact_multiplier_confirmed_by_pld(adjacency) -> None:
    # without sampling the exact Gaussian multiplier is the least noise any accountant can certify; PLD confirms it
    # within the calibration tolerance, and the calibrated z is no further than that from it
    eps, K = 8.0, 40
    exact = P.gaussian_multiplier_exact(eps, 1e-5, K, adjacency)
    z = P.noise_multiplier_for(eps, 1e-5, 1.0, K, accountant="pld", adjacency=adjacency)
    assert exact <= z <= exact * (1 + 2 * P.CALIBRATION_RTOL)
    assert P.epsilon(z, 1.0, K, 1e-5, adjacency=adjacency) <= eps
    assert P.epsilon(exact * (1 - 1e-3), 1.0, K, 1e-5, adjacency=adjacency) > eps


def test_a_cached_calibration_does_not_import_dp_accounting(tmp_path) -> None:
    """The calibrated multiplier is kept in the document cache; a later process that finds it there neither imports
    dp-accounting (and scipy.signal behind it, about 1.3 s) nor computes it again, and gets the same number."""
    code = "\n".join([
        "import json, sys",
        "from fedrates.solvers.privacy import noise_multiplier_for",
        "z = noise_multiplier_for(2.0, 1e-5, 0.1, 30)",
        "print(json.dumps({'z': z, 'imported': 'dp_accounting' in sys.modules}))",
    ])
    env = dict(os.environ, FEDRATES_CACHE=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    assert runs[0]["imported"]  # the first process computes it with the accountant
    assert not runs[1]["imported"]
    assert runs[1]["z"] == runs[0]["z"]

"""The exact second moment behind the Bylinkin et al. Lyapunov claims (:mod:`fedrates.verify.claims.bylinkin.exact.
lyapunov`): the geometric sum over epoch lengths agrees with a direct recursion, the mean with the independent epoch
operator of the exact-mean claims, and the recursions' worst ratios are the tight numbers the claims document."""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from fedrates.verify.claims.bylinkin.exact import lyapunov
from fedrates.verify.claims.bylinkin.exact.moments import _epoch_operator
from fedrates.verify.claims.bylinkin.instances import _VR, instance


def _direct_second_moment(sp, p: float, q: float, theta: float, e0: np.ndarray, terms: int = 3000) -> np.ndarray:
    """E[e_T e_Tᵀ] = Σ_T q(1 − q)^{T−1} S_T with S_{t+1} = Σ_i π_i B_i S_t B_iᵀ written on (e_t, e_0) blocks, summed
    term by term (no Kronecker product, no inverse)."""
    d = sp.H.shape[0]
    I = np.eye(d)
    Minv = np.linalg.inv(I / theta + sp.H1)
    R = sp.H - sp.H1
    branches = [(p, (sp.A_f - sp.A_f1) / p), (1 - p, (sp.A_g - sp.A_g1) / (1 - p))]
    S = np.outer(np.concatenate([e0, e0]), np.concatenate([e0, e0]))
    total = np.zeros((d, d))
    for T in range(1, terms + 1):
        new = np.zeros_like(S)
        for prob, D in branches:
            B = np.block([[Minv @ (I / theta - D), Minv @ (D - R)], [np.zeros((d, d)), I]])
            new += prob * B @ S @ B.T
        S = new
        total += q * (1 - q) ** (T - 1) * S[:d, :d]
    return total


def test_epoch_moments_match_a_direct_recursion_and_the_mean_epoch_operator():
    _, sp = instance(dict(_VR))
    t = lyapunov._tuning(sp)
    mean, K, radius = lyapunov.epoch_moments(sp, t["p"], t["q"], t["theta"])
    assert radius < 1
    e0 = np.random.default_rng(3).standard_normal(sp.H.shape[0])
    d = e0.size
    second = (K @ np.outer(e0, e0).reshape(-1)).reshape(d, d)
    np.testing.assert_allclose(second, _direct_second_moment(sp, t["p"], t["q"], t["theta"], e0), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(mean, _epoch_operator(sp, t["theta"], t["q"]), rtol=1e-10, atol=1e-12)
    # Jensen: the second moment dominates the square of the mean
    m = mean @ e0
    assert np.all(np.linalg.eigvalsh(second - np.outer(m, m)) > -1e-12)


def test_recursions_hold_with_the_documented_worst_ratios():
    _, sp = instance(dict(_VR))
    worst = {}
    for name, forms in (("vrcs", lyapunov.vrcs_step_forms(sp)), ("acc", lyapunov.acc_vrcs_step_forms(sp)),
                        ("vrcs-rate", lyapunov.vrcs_step_forms(sp, "contraction")),
                        ("acc-rate", lyapunov.acc_vrcs_step_forms(sp, "contraction"))):
        worst[name] = float(sla.eigh(forms["Q"], forms["B"], eigvals_only=True)[-1])
        worst[name + "/theorem"] = forms["rho_theorem"]
    # the proofs' one-step inequalities hold and are tight (within 2% at the worst state)
    assert 0.98 < worst["vrcs"] < 1 and 0.97 < worst["acc"] < 1
    # Theorem 6's explicit factor holds with slack ~11 (informational), Theorem 7's with slack ~3
    slack6 = math.log(worst["vrcs-rate"]) / math.log(worst["vrcs-rate/theorem"])
    slack7 = math.log(worst["acc-rate"]) / math.log(worst["acc-rate/theorem"])
    assert 10 < slack6 < 13 and 2 < slack7 < 5

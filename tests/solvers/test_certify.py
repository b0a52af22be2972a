"""Certified constants: correct constants agree with their witness and their second route on every family; each
plausible wrong formula (uniform weights instead of the paper's, f's constant instead of the per-client extreme,
the wrong matrix norm, the mean-Hessian weak convexity, a dropped finite-population factor, the largest signed
eigenvalue instead of the largest modulus) is rejected by the certificate."""

from __future__ import annotations

import dataclasses as dc
import math
from itertools import combinations

import numpy as np
import pytest

from fedrates.solvers import certify, constants, fedproxvr_constants, problems
from fedrates.solvers.certify import CertifiedConstant, check_certified
from fedrates.solvers.problems import similar_quadratic


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    certify._MEMORY.clear()


def _make(name, **kw):
    fam = problems.preset_family(name)
    return problems.make(fam, name, **kw) if fam else problems.make(name, **kw)


#: clustered quadratics (structure=clustered of the quadratic family): 12 clients, d = 10, 3 clusters
CLUSTERED = {"structure": "clustered", "clients": 12, "dim": 10, "clusters": 3, "mu": 0.1, "L": 5.0, "spread": 2.0,
             "within": 0.05, "angle": 5.0}


def _wrong(certs, name):
    """The disagreement lines of ``name`` only."""
    return [m for m in check_certified(certs) if m.startswith(name + " ")]


# ---- the model --------------------------------------------------------------------------------------------------
def test_agrees_is_two_sided():
    base = dict(witness={}, lower_method="w", upper_method="u", definition="d", assumption="a")
    assert CertifiedConstant("c", 1.0, 1.0, 1.0, **base).agrees()
    assert not CertifiedConstant("c", 1.0, 1.0 + 1e-6, 1.0, **base).agrees()  # witness does not attain it
    assert not CertifiedConstant("c", 1.0, 1.0, 1.0 + 1e-6, **base).agrees()  # exact upper side above the value
    assert CertifiedConstant("c", 1.0, 1.0, 2.0, upper_exact=False, **base).agrees()  # a loose bound is fine
    assert not CertifiedConstant("c", 2.0, 2.0, 1.0, upper_exact=False, **base).agrees()  # value above the bound
    # infimum: the other side is a lower bound
    assert CertifiedConstant("m", 1.0, 1.0, 1.0, sense="inf", **base).agrees()
    assert not CertifiedConstant("m", 1.0, 1.0, 1.0 - 1e-6, sense="inf", **base).agrees()
    c = CertifiedConstant("c", 1.0, 1.0 + 1e-6, 1.0, **base)
    (line,) = check_certified({"c": c})
    assert "1.000001" in line and "c = 1" in line  # both numbers
    assert certify.from_dict(certify.to_dict(c)) == c


def test_cholesky_bounds_find_the_extreme_from_a_wrong_start():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 7, 7))
    M = A + np.swapaxes(A, 1, 2)
    ev = np.linalg.eigvalsh(M)
    top, bottom = float(ev[:, -1].max()), float(ev[:, 0].min())
    for start in (top, top / 2, -abs(top)):
        up = certify.lambda_max_upper(M, start)
        assert top <= up <= top * (1 + 1e-10) + 1e-12
    low = certify.lambda_min_lower(M, 0.0)
    assert bottom - 1e-10 * abs(bottom) <= low <= bottom
    assert certify.abs_eig_upper(M, 0.0) >= float(np.abs(ev).max())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_trs_dual_is_an_upper_bound_and_tight_at_the_maximiser(seed):
    from fedrates.solvers._trs import maximize_on_ball

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((6, 6))
    P, b, c0, rho = A @ A.T, rng.standard_normal(6), 1.3, 0.7
    val, w = maximize_on_ball(P, b, c0, rho)
    up = certify.trs_dual_upper(P, b, c0, rho, w)
    assert val <= up <= val * (1 + 1e-10)
    # sampled feasible points stay below the dual bound
    Z = rng.standard_normal((2000, 6))
    Z *= rho / np.linalg.norm(Z, axis=1, keepdims=True)
    q = np.einsum("ni,ij,nj->n", Z, P, Z) - 2 * Z @ b + c0
    assert q.max() <= up
    # a point that is not the maximiser gives a valid but loose bound
    assert certify.trs_dual_upper(P, b, c0, rho, Z[0]) >= val


def test_exhaustive_subset_variance_matches_the_finite_population_factor():
    p = problems.make("lasso", clients=2, samples=7, dim=3, sparsity=2, radius=1.0)
    w = np.array([0.3, -0.2, 0.5])
    for B in (1, 2, 3):
        v, how = certify._variance_at(p, 0, w, B, False)
        closed = constants.minibatch_variance(p, w, B, False)[0]
        assert v == pytest.approx(closed, rel=1e-12)
        if B > 1:
            assert "exhaustive" in how
            fit = p.datafit
            g = fit.X[0] * (fit.X[0] @ w - fit.y[0])[:, None]
            means = [g[list(S)].mean(axis=0) for S in combinations(range(7), B)]
            assert v == pytest.approx(np.mean([np.sum((m - g.mean(0)) ** 2) for m in means]), rel=1e-12)


# ---- every family agrees when the constants are right -------------------------------------------------------------
GENERIC = [("realisable-quadratic", {}), ("similar-quadratic", {}), ("quadratic", CLUSTERED),
           ("lasso", {"radius": 3.0}), ("lasso", {"radius": 3.0, "sampling": "population"}),
           ("lasso", {"radius": 2.0, "samples": 6}), ("trace", {"radius": 2.0}),
           ("quadratic", {"radius": 2.0, "sigma": 0.3, "weight_skew": 1.0}), ("dinh-tiny", {}),
           ("bylinkin-signed", {}), ("buttaci-clustered", {}), ("buttaci-nonconvex", {})]


@pytest.mark.parametrize("name,kw", GENERIC)
@pytest.mark.parametrize("batch", [1, 3])
def test_generic_constants_are_certified(name, kw, batch):
    p = _make(name, **kw)
    c = constants.compute(p, batch=batch)
    certs = c.certificates
    assert check_certified(c) == []
    for must in ("L", "mu", "Lambda", "mu_F"):
        assert must in certs
    if p.radius is not None:
        assert {"H", "sigma2", "sigma_bar2"} <= set(certs)
    assert set(certs).isdisjoint(c.uncertified)


def test_bound_constants_stay_uncertified_with_the_reason():
    p = problems.make("lasso", clients=3, samples=8, dim=520, sparsity=4, radius=1.0)
    c = constants.compute(p)
    assert "H" in c.uncertified and "bound" in c.uncertified["H"]
    assert "delta" not in c.certificates
    assert check_certified(c) == []


def test_dinh_buttaci_bylinkin_agree():
    for name, kw in (("dinh-tiny", {}), ("dinh_nc", {}), ("dinh_nc", {"seed": 3})):
        c = fedproxvr_constants.compute(_make(name, **kw))
        assert check_certified(c) == [] and {"L", "lam", "L_F", "L_ms", "m", "Delta", "sigma_bar_sq"} <= set(
            c.certificates)
    for name in ("bylinkin-separation", "bylinkin-interpolation", "bylinkin-signed"):
        certs = certify.for_separation(_make(name))
        assert check_certified(certs) == [] and {"mu", "L", "delta_f", "delta_g"} <= set(certs)
    for name in ("buttaci-common", "buttaci-clustered"):
        p = _make(name)
        certs, _ = certify.for_buttaci(p, similar_quadratic.exact_constants(p))
        assert check_certified(certs) == [] and {"Gamma", "L", "mu", "S"} <= set(certs)


# ---- wrong formulas are rejected -------------------------------------------------------------------------------
def test_halved_smoothness_is_rejected():
    p = _make("quadratic", **CLUSTERED)
    c = constants.compute(p)
    assert _wrong(dc.replace(c, L=c.L / 2).certificates, "L")


def test_smoothness_of_f_instead_of_the_largest_client_is_rejected():
    p = _make("quadratic", **CLUSTERED)
    c = constants.compute(p)
    # the wrong route returns λ_max(Q̄) with Q̄'s top eigenvector as its witness (client 0)
    wrong = dc.replace(c, L=c.Lambda, witnesses={**c.witnesses, "L": {"client": 0, "vector": c.witnesses["Lambda"][
        "vector"]}})
    lines = _wrong(wrong.certificates, "L")
    assert lines and ("below the supremum" in lines[0] or "witness" in lines[0])


def test_mu_of_the_mean_hessian_is_rejected():
    p = _make("quadratic", **CLUSTERED)
    c = constants.compute(p)
    assert c.mu_F > c.mu * (1 + 1e-6)
    wrong = dc.replace(c, mu=c.mu_F, witnesses={**c.witnesses, "mu": {"client": 0, "vector": c.witnesses["mu_F"][
        "vector"]}})
    assert _wrong(wrong.certificates, "mu")


def test_uniform_weights_are_rejected_where_the_paper_weights_clients():
    p = problems.make("quadratic", radius=2.0, sigma=0.3, weight_skew=1.0)
    c = constants.compute(p)
    Q = np.asarray(p.datafit.hessians)
    lam, V = np.linalg.eigh(Q.mean(axis=0))
    wrong = dc.replace(c, Lambda=float(lam[-1]), witnesses={**c.witnesses, "Lambda": {"vector": V[:, -1]}})
    assert _wrong(wrong.certificates, "Lambda")
    K = p.clients
    wrong = dc.replace(c, sigma_bar2=float(np.sum(c.sigma2_k) / K**2))
    assert _wrong(wrong.certificates, "sigma_bar2")
    # H with F built from uniform weights: TRS on (mean Q − Q_k, mean b − b_k)
    from fedrates.solvers._trs import maximize_on_ball

    Qu, bu = Q.mean(axis=0), np.asarray(p.datafit.linear_terms).mean(axis=0)
    vals = []
    for k in range(K):
        M, cc = Qu - Q[k], bu - p.datafit.linear_terms[k]
        vals.append(maximize_on_ball(M @ M, M @ cc, cc @ cc, p.radius))
    k = int(np.argmax([v for v, _ in vals]))
    wrong = dc.replace(c, H=math.sqrt(vals[k][0]), witnesses={**c.witnesses, "H": {
        "client": k, "point": vals[k][1], "points": np.stack([w for _, w in vals])}})
    assert _wrong(wrong.certificates, "H")


def test_frobenius_norm_for_the_hessian_similarity_is_rejected():
    p = _make("similar-quadratic")
    c = constants.compute(p)
    Q = np.asarray(p.datafit.hessians)
    fro = max(np.linalg.norm(Q[i] - Q[j]) for i in range(p.clients) for j in range(i + 1, p.clients))
    assert _wrong(dc.replace(c, delta=float(fro)).certificates, "delta")


def test_dropped_finite_population_factor_is_rejected():
    p = problems.make("lasso", clients=3, samples=8, dim=4, sparsity=2, radius=1.5)
    B, n = 3, 8
    c = constants.compute(p, batch=B)
    assert check_certified(c) == []
    # the with-replacement variance s²/B instead of s²(n − B)/(B(n − 1))
    wrong = dc.replace(c, sigma2=c.sigma2 * (n - 1) / (n - B))
    assert _wrong(wrong.certificates, "sigma2")
    wrong = dc.replace(c, sigma_bar2=c.sigma_bar2 * (n - 1) / (n - B))
    assert _wrong(wrong.certificates, "sigma_bar2")


def test_delta_star_of_another_point_is_rejected():
    p = problems.make("quadratic", structure="factors", clients=6, dim=8, inner=3)
    c = constants.compute(p)
    assert check_certified(c) == []
    assert _wrong(dc.replace(c, Delta_star_max=c.Delta_star_max * 0.9).certificates, "Delta_star_max")
    wrong = certify.for_das(p, c.L, c.Delta_star / 2, c.w_star)
    assert _wrong(wrong, "Delta_star_max") and not _wrong(wrong, "L")
    assert _wrong(certify.for_das(p, c.L * 0.99, c.Delta_star, c.w_star), "L")


def test_dinh_weak_convexity_from_the_mean_hessian_is_rejected():
    p = problems.make("dinh_nc")
    c = fedproxvr_constants.compute(p)
    assert c.lam > 0 and np.linalg.eigvalsh(c.Abar)[0] > 0
    # the mean Hessian Ā ≻ 0 gives λ = 0
    wrong = dc.replace(c, lam=0.0, witnesses={**c.witnesses, "lam": {"device": 0, "vector": c.witnesses["m"][
        "vector"]}})
    assert _wrong(wrong.certificates, "lam")


def test_dinh_smoothness_and_divergence_by_wrong_formulas_are_rejected():
    p = _make("dinh-tiny")
    c = fedproxvr_constants.compute(p)
    # L of (3) is per sample: the device Hessians' L_F is smaller
    assert c.L_F < c.L
    assert _wrong(dc.replace(c, L=c.L_F).certificates, "L")
    # σ_n = ‖A_n − Ā‖₂ (Ā⁻¹ dropped)
    sig = np.array([np.linalg.norm(A - c.Abar, 2) for A in c.A])
    assert _wrong(dc.replace(c, sigma_bar_sq=float(c.p @ sig**2)).certificates, "sigma_bar_sq")
    # uniform weights where the paper weighs by D_n/D give the same value here (equal D_n): no false alarm
    assert not _wrong(dc.replace(c, sigma_bar_sq=float(np.mean(c.sigma**2))).certificates, "sigma_bar_sq")


def test_bylinkin_largest_signed_eigenvalue_is_rejected():
    from fedrates.solvers.problems.separation import split

    p = _make("bylinkin-signed")
    sp = split(p)
    lam = np.linalg.eigvalsh(sp.A_g1 - sp.A_g)
    assert lam[-1] < abs(lam[0])  # the modulus is attained by a negative eigenvalue
    certs = certify.for_separation(p)
    wrong = dc.replace(certs["delta_g"], value=float(lam[-1]))
    assert check_certified({"delta_g": wrong})
    # and μ of the server's h_1 instead of h
    assert check_certified({"mu": dc.replace(certs["mu"], value=float(np.linalg.eigvalsh(sp.H1)[0]))})


def test_buttaci_uniform_weights_and_f_constants_are_rejected():
    p = _make("buttaci-clustered")
    consts = similar_quadratic.exact_constants(p)
    H, b, cc = p.datafit.hessians, p.datafit.linear_terms, p.datafit.offsets
    Hu, bu = H.mean(axis=0), b.mean(axis=0)
    wu = np.linalg.solve(Hu, bu)
    fi_star = cc - 0.5 * np.einsum("kd,kd->k", b, np.linalg.solve(H, b[..., None])[..., 0])
    gamma_uniform = float(np.mean(p.client_losses(wu)) - np.mean(fi_star))
    assert abs(gamma_uniform - consts["Gamma"]) > 1e-6 * abs(consts["Gamma"])
    for wrong in ({"Gamma": gamma_uniform}, {"L": consts["L_f"]}, {"mu": consts["mu_f"]}):
        certs, _ = certify.for_buttaci(p, {**consts, **wrong})
        (name,) = wrong
        assert _wrong(certs, name), name
    certs, _ = certify.for_buttaci(p, consts)
    assert check_certified(certs) == []


# ---- cache -----------------------------------------------------------------------------------------------------
def test_certificates_are_cached_on_disk_and_keyed_by_the_values(tmp_path, monkeypatch):
    p = problems.make("lasso", clients=3, samples=8, dim=4, sparsity=2, radius=1.5)
    c = constants.compute(p, cache=False)
    first = c.certificates
    files = list((tmp_path / "cache" / "certificates").glob("*.json"))
    assert len(files) == 1
    certify._MEMORY.clear()

    def boom(*a, **k):
        raise AssertionError("recomputed")

    from fedrates.solvers import _cache

    monkeypatch.setattr(_cache, "store_document", boom)  # written after every computation, never on a hit
    again = constants.compute(p, cache=False).certificates
    assert {n: x.as_dict() for n, x in again.items()} == {n: x.as_dict() for n, x in first.items()}
    # a replaced value is another key: recomputed (here: refused by the patched function), never a stale hit
    with pytest.raises(AssertionError, match="recomputed"):
        _ = dc.replace(c, L=c.L / 2).certificates
    # a damaged entry is removed and recomputed
    monkeypatch.undo()
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    certify._MEMORY.clear()
    files[0].write_text(files[0].read_text().replace('"upper"', '"upper" ', 1))
    assert check_certified(constants.compute(p, cache=False)) == []


def test_constants_are_cached_on_disk_and_a_patched_function_is_a_miss(tmp_path, monkeypatch):
    from fedrates.solvers import _cache

    p = problems.make("lasso", clients=3, samples=8, dim=4, sparsity=2, radius=1.5)
    first = constants.compute(p, batch=2)
    assert len(list((tmp_path / "cache" / "constants-exact").glob("*.json"))) == 1
    assert check_certified(first) == []  # certificates of these values: computed and stored now
    certify._MEMORY.clear()

    def boom(*a, **k):
        raise AssertionError("recomputed")

    with monkeypatch.context() as m:
        m.setattr(_cache, "store_document", boom)
        again = constants.compute(p, batch=2)
        fresh = constants.compute(p, batch=2, cache=False)
        for name in list(constants.DEFINITIONS) + ["w_star", "H_argmax", "sigma2_argmax"]:  # bit for bit
            for other in (first, fresh):
                a, b = getattr(again, name), getattr(other, name)
                if isinstance(a, np.ndarray):
                    np.testing.assert_array_equal(a, b)
                else:
                    assert a == b or (a != a and b != b), name
        assert again.notes == first.notes and dict(again.exact) == dict(first.exact)
        assert check_certified(again) == []
        # a function of the module replaced at run time (e.g. a broken variant) is another key
        real = constants._batch_factor
        m.setattr(constants, "_batch_factor", lambda n, b, r: 2 * real(n, b, r))
        with pytest.raises(AssertionError, match="recomputed"):
            constants.compute(p, batch=2)


def test_curvature_is_cached_on_disk(tmp_path, monkeypatch):
    from fedrates.solvers import _cache

    p = problems.make("lasso", clients=3, samples=4, dim=6, sparsity=2)
    L, mu = constants.curvature(p)
    c = constants.compute(p, cache=False)
    assert (L, mu) == (pytest.approx(c.L, rel=1e-12), 0.0)
    assert len(list((tmp_path / "cache" / "curvature").glob("*.json"))) == 1
    constants._CURVATURE.clear()

    def boom(*a, **k):
        raise AssertionError("recomputed")

    monkeypatch.setattr(_cache, "store_document", boom)
    assert constants.curvature(p) == (L, mu)


# ---- the project's own catalogue variants of wrong constants are flagged by the certificates ---------------------
@pytest.mark.parametrize("variant", ["halved_smoothness", "mu_of_mean_hessian"])
def test_catalogue_constant_variants_are_flagged(variant):
    from fedrates.verify.claims.bao import variants as bao_broken

    p = _make("quadratic", **CLUSTERED)
    assert check_certified(constants.compute(p)) == []
    with getattr(bao_broken, variant)():
        lines = check_certified(constants.compute(p))
    assert lines and lines[0].split()[0] in ("L", "mu")


def test_dinh_catalogue_variant_L_of_F_is_flagged():
    from fedrates.verify.claims.dinh import variants as dinh_variants

    p = _make("dinh-tiny")
    assert check_certified(fedproxvr_constants.compute(p)) == []
    with dinh_variants._patch_L_of_F():
        lines = check_certified(fedproxvr_constants.compute(p))
    assert lines and lines[0].startswith("L ")


def test_buttaci_a_priori_G2_is_certified_as_a_bound():
    """G = max_i ‖∇f_i(w*)‖ + L_iρ (the claims' a-priori bound) holds; dropping the L_iρ term does not."""
    p = _make("buttaci-clustered", sigma=0.5)
    consts = similar_quadratic.exact_constants(p)
    ws, rho = consts["w_star"], 1.3
    K = p.clients
    grads = p.client_gradients(np.broadcast_to(ws, (K, p.dim)))
    L_i = np.max(np.abs(np.linalg.eigvalsh(p.datafit.hessians)), axis=-1)
    G = float(np.max(np.linalg.norm(grads, axis=-1) + L_i * rho))
    good = certify.buttaci_G2(p, ws, rho, G * G + 0.25)
    assert good.agrees() and good.witness_value <= good.upper
    assert good.upper < G * G + 0.25  # the triangle inequality is loose, the TRS is not
    G_no_radius = float(np.max(np.linalg.norm(grads, axis=-1)))
    assert not certify.buttaci_G2(p, ws, rho, G_no_radius**2 + 0.25).agrees()
    tight = certify.buttaci_G2(p, ws, rho, good.upper)
    assert tight.agrees() and not certify.buttaci_G2(p, ws, rho, good.witness_value * (1 - 1e-6)).agrees()


def test_a_witness_that_cannot_be_evaluated_is_a_disagreement():
    p = _make("realisable-quadratic")
    c = constants.compute(p)
    wrong = dc.replace(c, witnesses={**c.witnesses, "L": {"client": p.clients + 3, "vector": [1.0]}})
    (line,) = _wrong(wrong.certificates, "L")
    assert "not finite" in line


@pytest.mark.parametrize("which", ["mean", "min"])
def test_dinh_catalogue_variants_of_lambda_are_flagged_per_device(which):
    """λ of (4) from the mean Hessian, or as the smallest device modulus, disagrees with the certificate read from
    each device's own Hessian, in both routes (compute and device_constants)."""
    from fedrates.verify.claims.dinh import variants as dinh_variants
    from fedrates.verify.claims.dinh.instances import device_problem

    p = problems.make("dinh_nc", clients=2, samples=4, dim=2, shift=1.0)
    assert check_certified(fedproxvr_constants.compute(p)) == []
    with dinh_variants._patch_lam(which):
        full = fedproxvr_constants.compute(p)
        per_device = fedproxvr_constants.device_constants(p)
        one_device = fedproxvr_constants.device_constants(device_problem(p, 0))
    for source in (full, per_device):
        lines = check_certified(source)
        assert lines and all(line.startswith("lam ") for line in lines)
    # a single device's mean Hessian is its own Hessian: the variants coincide with λ_n there
    assert check_certified(one_device) == []

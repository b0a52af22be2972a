r"""Certified assumption constants: a witness that attains the value and an independent bound on the other side.

A constant c = sup_{x ∈ X} φ(x) (a largest eigenvalue, a largest gradient difference over a ball, a largest
variance, a maximum over clients or pairs) is *certified* when

* a **witness** x̂ ∈ X (a client index, a direction, a point, a pair) is returned with it and the *definition*
  φ(x̂), evaluated directly from the instance (client gradients, per-sample gradients, the graph's degrees), equals
  the value to 1e-9 relative — so the value is attained, hence not above the supremum;
* an **upper side** u ≥ sup φ is computed by a second route that shares no decomposition with the first:
  a Cholesky factorisation of (u I − Q) (success certifies λ_max(Q) ≤ u, up to the backward error added to u),
  bisection between u and a Gershgorin bound when that fails, the Lagrangian dual of the trust-region subproblem
  (any θ with θI − P ≻ 0 gives sup_{‖w‖≤ρ} wᵀPw − 2bᵀw + c₀ ≤ bᵀ(θI − P)⁻¹b + c₀ + θρ²; strong duality makes it
  exact at the multiplier of the witness), a strong-convexity lower bound on a minimum, an exhaustive maximum
  over a finite set, or a closed form.

For an infimum (λ_min, μ) the roles are mirrored (``sense = "inf"``): the witness attains the value from above and
``upper`` holds the independent bound from *below* (the "other side").  ``upper_exact`` says that the second
route is tight (then the value must also be within 1e-9 of it), so that a value *below* the true supremum (a
wrong formula that gives a smaller number, e.g. the smoothness of f instead of the largest client's) is caught
by the upper side, and a value *above* it (or one computed for another quantity) by the witness.

:func:`check_certified` lists the disagreements of a set of certificates (for claims to return ``inconclusive``
with both numbers).  The families (see :func:`for_constants`, :func:`for_dinh`, :func:`for_separation`,
:func:`for_buttaci`) follow Bao et al. 2022 (Assumptions 1, 3, 4, Definition 1, Proposition 3.1), Das et al.
(Δ_i*), Dinh et al. 2020 (Assumption 1, eqs. (3)–(5)), Bylinkin et al. (Assumptions 1–3, Definition 1) and
Buttaci & Calafiore (Assumptions 2, 4, 5, Definition 3 with the degree weights of Algorithm 1).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["CertifiedConstant", "REL", "check_certified", "for_constants", "for_dinh", "for_dinh_device",
           "for_separation", "for_buttaci", "for_das", "for_structured", "lambda_max_upper", "lambda_min_lower",
           "abs_eig_upper", "trs_dual_upper", "to_dict", "from_dict", "for_lowrank", "for_implicit"]

#: relative agreement required between the value, its witness and (when exact) its upper side
REL = 1e-9
EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class CertifiedConstant:
    """One certified constant (see module docstring).

    Attributes:
        name: the constant's name (e.g. ``L``, ``sigma2``, ``delta_g``).
        value: the value the claims read.
        witness_value: the definition evaluated at ``witness`` directly from the instance.
        upper: the independent bound on the side the witness cannot reach (from above for ``sense = "sup"``,
            from below for ``"inf"``).
        witness: what attains the value (client index, direction, point, pair ...), JSON-friendly.
        lower_method / upper_method: how the witness side and the other side were computed.
        definition: the formula of the constant; assumption: the paper assumption it instantiates.
        sense: ``"sup"`` or ``"inf"``.
        upper_exact: the second route is tight (the value must then agree with it to ``rel``).
        scale: magnitude used for absolute comparisons of values near 0 (e.g. L for μ ≈ 0).
    """

    name: str
    value: float
    witness_value: float
    upper: float
    witness: Mapping[str, Any]
    lower_method: str
    upper_method: str
    definition: str
    assumption: str
    sense: str = "sup"
    upper_exact: bool = True
    scale: float = 0.0
    #: ``"exact"``: the value is the supremum itself; ``"bound"``: the value is claimed only as an upper bound on the
    #: supremum (e.g. an a-priori G² on a ball): it holds iff it is not below the certified upper side
    kind: str = "exact"

    def _tol(self, rel: float) -> float:
        mags = [abs(x) for x in (self.value, self.witness_value, self.upper, self.scale) if math.isfinite(x)]
        return rel * max(mags + [np.finfo(float).tiny])

    def disagreement(self, rel: float = REL) -> str | None:
        """None when the certificate holds, else one line with both numbers."""
        v, w, u = float(self.value), float(self.witness_value), float(self.upper)
        if not (math.isfinite(v) and math.isfinite(w)):
            return f"{self.name} = {v!r} but the witness gives {w!r} (not finite: {self.lower_method})"
        tol = self._tol(rel)
        if self.kind == "bound":
            if v < w - tol:
                return (f"{self.name} = {v:.12g} is below the value {w:.12g} attained at the witness "
                        f"({self.lower_method}): not an upper bound")
            if not v >= u - tol:
                return (f"{self.name} = {v:.12g} is not certified: the second route bounds the supremum only by "
                        f"{u:.12g} ({self.upper_method})")
            return None
        if abs(w - v) > tol:
            return (f"{self.name} = {v:.12g} but its definition at the witness gives {w:.12g} "
                    f"({self.lower_method}; relative difference {abs(w - v) / max(abs(v), tol / rel):.3g})")
        if math.isnan(u):
            return f"{self.name}: the second route ({self.upper_method}) gave NaN"
        if self.sense == "sup":
            if v > u + tol:
                return f"{self.name} = {v:.12g} is above its certified upper bound {u:.12g} ({self.upper_method})"
            if self.upper_exact and u > v + tol:
                return (f"{self.name} = {v:.12g} but the second route certifies {u:.12g} ({self.upper_method}): "
                        "the value is below the supremum")
        else:
            if v < u - tol:
                return f"{self.name} = {v:.12g} is below its certified lower bound {u:.12g} ({self.upper_method})"
            if self.upper_exact and u < v - tol:
                return (f"{self.name} = {v:.12g} but the second route certifies {u:.12g} ({self.upper_method}): "
                        "the value is above the infimum")
        return None

    def agrees(self, rel: float = REL) -> bool:
        """The witness attains the value to ``rel`` and the value is on the right side of ``upper`` (to ``rel``;
        within ``rel`` of it when the upper side is exact)."""
        return self.disagreement(rel) is None

    def as_dict(self) -> dict[str, Any]:
        return to_dict(self)


def to_dict(c: CertifiedConstant) -> dict[str, Any]:
    """JSON-friendly form (numpy values as lists/floats)."""
    return {"name": c.name, "value": _plain(c.value), "witness_value": _plain(c.witness_value),
            "upper": _plain(c.upper), "witness": _plain(dict(c.witness)), "lower_method": c.lower_method,
            "upper_method": c.upper_method, "definition": c.definition, "assumption": c.assumption,
            "sense": c.sense, "upper_exact": c.upper_exact, "scale": _plain(c.scale), "kind": c.kind,
            "agrees": c.agrees()}


def from_dict(d: Mapping[str, Any]) -> CertifiedConstant:
    keys = ("name", "value", "witness_value", "upper", "witness", "lower_method", "upper_method", "definition",
            "assumption", "sense", "upper_exact", "scale")
    return CertifiedConstant(**{k: d[k] for k in keys}, kind=d.get("kind", "exact"))


def _plain(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist"):
        return _plain(obj.tolist())
    return obj


#: the constants objects computed while :func:`observing` is active (see :func:`observe`)
_OBSERVED: contextvars.ContextVar[list | None] = contextvars.ContextVar("fedrates_observed_constants", default=None)


@contextlib.contextmanager
def observing() -> Iterator[list]:
    """Collect every constants object computed inside the block (by :func:`fedrates.solvers.constants.compute`
    and :func:`fedrates.solvers.fedproxvr_constants.compute`): the verification pipeline checks their certificates
    (:func:`check_certified`) after a claim is judged, so that no verdict rests on a constant whose two routes
    disagree."""
    seen: list = []
    token = _OBSERVED.set(seen)
    try:
        yield seen
    finally:
        _OBSERVED.reset(token)


def observe(source: Any) -> Any:
    """Record ``source`` (a constants object) for the innermost :func:`observing` block, if any; returns it."""
    seen = _OBSERVED.get()
    if seen is not None and not any(s is source for s in seen):
        seen.append(source)
    return source


def observed_cache(fn: Callable[..., Any]) -> Callable[..., Any]:
    r""":func:`functools.cache` that also :func:`observe`\ s every constants object (anything with
    ``certificates``) it returns, on hits as on misses: claims memoise their instances and constants, and the
    pipeline must still see which constants a claim's judge reads."""
    cached = functools.cache(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        out = cached(*args, **kwargs)
        for item in out if isinstance(out, tuple) else (out,):
            if hasattr(type(item), "certificates"):
                observe(item)
        return out

    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return wrapper


def check_certified(*constants: Any, rel: float = REL) -> list[str]:
    """Every disagreement among the certificates of ``constants`` (one line each, both numbers); [] when all hold.

    ``constants`` may be a :class:`~fedrates.solvers.constants.Constants` or
    :class:`~fedrates.solvers.fedproxvr_constants.DinhConstants` (their ``certificates``), a mapping name →
    :class:`CertifiedConstant`, or an iterable of certificates.  A claim that reads constants calls it and returns
    ``inconclusive`` with these lines when the list is not empty: its regime and bound would otherwise rest on a
    constant that is not the one the paper defines.  Several sources may be passed at once, e.g.
    ``check_certified(consts, certify.for_separation(problem))``.

    Usage in a claim::

        disagreements = check_certified(consts)
        if disagreements:   # verdict "inconclusive", message "; ".join(disagreements) (each has both numbers)
            ...
    """
    out = []
    for source in constants:
        certs = getattr(source, "certificates", source)
        if isinstance(certs, Mapping):
            certs = certs.values()
        for c in certs:
            if isinstance(c, CertifiedConstant):
                msg = c.disagreement(rel)
                if msg:
                    out.append(msg)
    return out


# ==== second routes: Cholesky tests, Gershgorin, TRS duality ========================================================
def _pd(A: np.ndarray) -> bool:
    """Every matrix of the (batched) stack is numerically positive definite (Cholesky succeeds)."""
    try:
        np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return False
    return True


def _stack(mats: np.ndarray) -> np.ndarray:
    M = np.asarray(mats, dtype=float)
    M = M.reshape((-1,) + M.shape[-2:])
    return 0.5 * (M + np.swapaxes(M, -1, -2))


def _backward(t: float, M: np.ndarray) -> float:
    """Backward-error allowance of a Cholesky test of tI − M: 20(d + 2)u(|t| + max‖M‖_F) (Demmel 1989: a
    Cholesky factorisation that succeeds is exact for A + E with |E| ≤ (d + 1)u|Rᵀ||R|/(1 − (d + 1)u))."""
    d = M.shape[-1]
    normF = float(np.max(np.sqrt(np.einsum("kij,kij->k", M, M)))) if M.size else 0.0
    return 20 * (d + 2) * EPS * (abs(t) + normF)


def _chunked_pd(t: float, M: np.ndarray, chunk: int) -> bool:
    eye = np.eye(M.shape[-1])
    return all(_pd(t * eye - M[s:s + chunk]) for s in range(0, M.shape[0], chunk))


def lambda_max_upper(mats: np.ndarray, value: float) -> float:
    """Certified u ≥ max_k λ_max(M_k) without an eigendecomposition: Cholesky of (value + allowance)I − M_k for every
    k; if one fails, bisection (Cholesky tests) between there and the Gershgorin bound max_k max_i M_ii + Σ|M_ij|."""
    M = _stack(mats)
    if M.shape[0] == 0:
        return -math.inf
    d = M.shape[-1]
    chunk = max(1, int(2**25 // max(d * d, 1)))
    value = float(value) if math.isfinite(value) else 0.0
    t = value + _backward(value, M)
    if _chunked_pd(t, M, chunk):
        return t + _backward(t, M)
    # only the matrices that fail at t can hold the maximum: bisect on them alone
    eye = np.eye(d)
    M = M[[k for k in range(M.shape[0]) if not _pd(t * eye - M[k])]]
    diag = np.diagonal(M, axis1=1, axis2=2)
    gersh = float(np.max(diag + np.sum(np.abs(M), axis=2) - np.abs(diag)))
    hi = max(gersh, t) * (1 + 1e-12) + _backward(gersh, M) + 1e-300
    lo = t
    span = max(abs(hi), abs(lo), 1e-300)
    for _ in range(200):
        if hi - lo <= 1e-13 * span:
            break
        mid = 0.5 * (lo + hi)
        if _chunked_pd(mid, M, chunk):
            hi = mid
        else:
            lo = mid
    return hi + _backward(hi, M)


def lambda_min_lower(mats: np.ndarray, value: float) -> float:
    """Certified l ≤ min_k λ_min(M_k) (Cholesky tests of M_k − lI, see :func:`lambda_max_upper`)."""
    return -lambda_max_upper(-_stack(mats), -float(value))


def abs_eig_upper(mats: np.ndarray, value: float) -> float:
    """Certified u ≥ max_k ‖M_k‖₂ of symmetric matrices: both uI − M_k and uI + M_k positive definite."""
    M = _stack(mats)
    return max(lambda_max_upper(M, value), lambda_max_upper(-M, value))


def trs_dual_upper(P: np.ndarray, b: np.ndarray, c0: float, radius: float, w: np.ndarray) -> float:
    """Certified u ≥ sup_{‖w‖≤ρ} q(w), q(w) = wᵀPw − 2bᵀw + c₀, by Lagrangian duality: for every θ with θI − P ≻ 0
    (certified by Cholesky), q(w) ≤ q(w) + θ(ρ² − ‖w‖²) ≤ bᵀ(θI − P)⁻¹b + c₀ + θρ².  θ starts at the multiplier
    of the witness w (θ = wᵀ(Pw − b)/‖w‖²; strong duality of the trust-region subproblem makes the bound tight
    there) and is moved up until the Cholesky factorisation succeeds; the smallest bound is returned."""
    P = 0.5 * (np.asarray(P, float) + np.asarray(P, float).T)
    b = np.asarray(b, float)
    w = np.asarray(w, float)
    d = P.shape[0]
    scale = max(float(np.linalg.norm(P)), float(np.linalg.norm(b)) / radius, np.finfo(float).tiny)
    nw2 = float(w @ w)
    theta0 = float(w @ (P @ w) - b @ w) / nw2 if nw2 > 0 else scale
    best = math.inf
    eye = np.eye(d)
    for step in (0.0, 1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-1, 1.0, 10.0):
        theta = theta0 + step * scale
        try:
            C = np.linalg.cholesky(theta * eye - P)
        except np.linalg.LinAlgError:
            continue
        y = np.linalg.solve(C, b)
        val = float(y @ y) + c0 + theta * radius**2
        val += _backward(theta, P[None]) * (float(y @ y) / max(theta - 0.0, 1e-300) + radius**2) \
            + 4 * EPS * (abs(val) + abs(c0))
        best = min(best, val)
        if step > 0 and best < math.inf and val > best:
            break
    return best


# ==== helpers evaluating definitions from the instance ==============================================================
def _hess_times(problem: Any, v: np.ndarray) -> np.ndarray:
    """Q_k v for every client from the client gradients: ∇f_k(v) − ∇f_k(0) (exact for quadratics), (K, d)."""
    K, d = problem.clients, problem.dim
    V = np.broadcast_to(np.asarray(v, float).reshape(d), (K, d))
    Z = np.zeros((K, d))
    return problem.flat(problem.client_gradients(problem.unflat(V))) - problem.flat(
        problem.client_gradients(problem.unflat(Z)))


def _rayleigh(problem: Any, k: int, v: np.ndarray) -> float:
    v = np.asarray(v, float).reshape(-1)
    return float(v @ _hess_times(problem, v)[k] / (v @ v))


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, float).reshape(-1)
    return v / max(float(np.linalg.norm(v)), np.finfo(float).tiny)


def _vec(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=float).reshape(-1)


# ==== Bao et al. / Das et al. / generic: the Constants of fedrates.solvers.constants ================================
def _hessians(problem: Any) -> np.ndarray:
    return _stack(problem.datafit.hessians)


def _cert_L(problem: Any, value: float, wit: Mapping, definition: str, assumption: str) -> CertifiedConstant:
    k, v = int(wit["client"]), _vec(wit["vector"])
    fit = problem.datafit
    from fedrates.solvers.problems.datafits import SampleLeastSquares

    if isinstance(fit, SampleLeastSquares) and fit.samples < fit.dim:
        G = fit.X @ np.swapaxes(fit.X, 1, 2) / fit.samples  # same nonzero spectrum as XᵀX/n
        upper, how = lambda_max_upper(G, value), "Cholesky of uI − X_kX_kᵀ/n for every client (n < d)"
    else:
        upper, how = lambda_max_upper(_hessians(problem), value), "Cholesky of uI − Q_k for every client"
    return CertifiedConstant("L", value, _rayleigh(problem, k, v), upper, {"client": k, "vector": v.tolist()},
                             "Rayleigh quotient vᵀ(∇f_k(v) − ∇f_k(0))/vᵀv at the client's top eigenvector", how,
                             definition, assumption)


def _cert_mu(problem: Any, value: float, wit: Mapping, definition: str, assumption: str,
             scale: float) -> CertifiedConstant:
    k, v = int(wit["client"]), _vec(wit["vector"])
    fit = problem.datafit
    from fedrates.solvers.problems.datafits import SampleLeastSquares

    if isinstance(fit, SampleLeastSquares) and fit.samples < fit.dim:
        lower, how = 0.0, "Q_k = X_kᵀX_k/n is a Gram matrix (⪰ 0) of rank ≤ n < d"
    else:
        lower, how = lambda_min_lower(_hessians(problem), value), "Cholesky of Q_k − lI for every client"
    return CertifiedConstant("mu", value, _rayleigh(problem, k, v), lower, {"client": k, "vector": v.tolist()},
                             "Rayleigh quotient at the client's bottom eigenvector", how, definition, assumption,
                             sense="inf", scale=scale)


def _mean_rayleigh(problem: Any, v: np.ndarray) -> float:
    v = _vec(v)
    Qv = problem.flat(problem.gradient(problem.unflat(v))) - problem.flat(problem.gradient(problem.zeros()))
    return float(v @ Qv / (v @ v))


def _hetero_at(problem: Any, k: int, w: np.ndarray) -> float:
    """‖∇F(w) − ∇f_k(w)‖ from the problem's gradients (Bao et al. Assumption 3 at one point)."""
    w = _vec(w)
    K, d = problem.clients, problem.dim
    G = problem.flat(problem.client_gradients(problem.unflat(np.broadcast_to(w, (K, d)))))[k]
    return float(np.linalg.norm(problem.flat(problem.gradient(problem.unflat(w))) - G))


def _hetero_trs(problem: Any, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    """‖M w − c‖² = wᵀM²w − 2(Mc)ᵀw + ‖c‖² with M = Q̄ − Q_k, c = b̄ − b_k."""
    Qbar, bbar, _ = problem.quadratic
    fit = problem.datafit
    M = 0.5 * (Qbar + Qbar.T) - _stack(fit.hessians[k])[0]
    c = bbar - np.asarray(fit.linear_terms[k], float)
    return M @ M, M @ c, float(c @ c)


def _variance_at(problem: Any, k: int, w: np.ndarray, batch: int, replace: bool) -> tuple[float, str]:
    """E‖g_k(w) − ∇f_k(w)‖² of the minibatch oracle, evaluated from its definition: per-sample gradients
    g_i = x_i(x_iᵀw − y_i), centred, averaged over every subset of size B (exhaustive when there are at most
    5000 subsets) or with the finite-population factor (n − B)/(B(n − 1)); population: Isserlis closed form."""
    from fedrates.solvers.constants import minibatch_variance

    w = _vec(w)
    if problem.sampling == "empirical":
        fit = problem.datafit
        X, y, n = fit.X[k], fit.y[k], fit.samples
        g = X * (X @ w - y)[:, None]
        dev = g - g.mean(axis=0)
        if replace:
            return float(np.mean(np.sum(dev * dev, axis=1)) / batch), "centred per-sample gradients, / B"
        if batch == 1:
            return float(np.mean(np.sum(dev * dev, axis=1))), "centred per-sample gradients (B = 1)"
        if math.comb(n, batch) <= 5000:
            from itertools import combinations

            tot = 0.0
            count = 0
            for S in combinations(range(n), batch):
                m = dev[list(S)].mean(axis=0)
                tot += float(m @ m)
                count += 1
            return tot / count, f"exhaustive mean over all {count} subsets of size B = {batch}"
        s2 = float(np.sum(dev * dev) / n)
        return s2 * (n - batch) / (batch * (n - 1)), "centred per-sample gradients × (n − B)/(B(n − 1))"
    if problem.sampling == "population":
        return float(minibatch_variance(problem, w, batch, replace)[k]), "Isserlis closed form at the witness"
    return float(problem.noise_std) ** 2 / batch, "E‖ζ‖² = d·σ²/(dB) for ζ ~ N(0, σ²/(dB) I)"


def _variance_trs(problem: Any, k: int, batch: int, replace: bool) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(P, b, c₀, factor) with variance(w) = factor·(wᵀPw − 2bᵀw + c₀)."""
    from fedrates.solvers.constants import _batch_factor, _fourth_moment

    fit = problem.datafit
    if problem.sampling == "empirical":
        X, y, n = fit.X[k], fit.y[k], fit.samples
        sq = np.sum(X * X, axis=1)
        Q = X.T @ X / n
        bk = X.T @ y / n
        P = (X * sq[:, None]).T @ X / n - Q @ Q
        b = (X * (sq * y)[:, None]).sum(axis=0) / n - Q @ bk
        c0 = float(np.mean(y * y * sq) - bk @ bk)
        return P, b, c0, _batch_factor(n, batch, replace)
    sl = slice(k, k + 1)
    S = _stack(fit.hessians[k])[0]
    P = _stack(_fourth_moment(fit, sl))[0] - S @ S
    a = float(fit.means[k] @ fit.means[k] + np.trace(fit.cov))
    b = P @ fit.truth
    return P, b, float(fit.truth @ b + fit.noise_std**2 * a), 1.0 / batch


def _values_at_own_points(problem: Any, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(f_i(m_i), ∇f_i(m_i)) for every client at its own point m_i, from the client gradients and f_i(0):
    f_i(m) = f_i(0) + ½(∇f_i(0) + ∇f_i(m))ᵀm (exact for quadratics; one batched call instead of K)."""
    K = problem.clients
    M = np.asarray(M, float).reshape(K, problem.dim)
    G = problem.flat(problem.client_gradients(problem.unflat(M)))
    G0 = problem.flat(problem.client_gradients(problem.zeros(K)))
    f0 = problem.client_losses(problem.zeros())
    return f0 + 0.5 * np.einsum("kd,kd->k", G0 + G, M), G


def _min_lower(problem: Any, i: int, m: np.ndarray, f_m: float | None = None,
               grad: np.ndarray | None = None) -> tuple[float, str]:
    """A certified lower bound on min f_i: strong convexity f_i(m) − ‖∇f_i(m)‖²/(2μ̂) when Cholesky certifies
    Q_i ⪰ μ̂I ≻ 0, else the floor of a sum of squares (least squares: 0; quadratic family ½(w − c)ᵀQ(w − c) with
    Q = AAᵀ: 0; Gaussian population: ½σ_ε²); −inf when none applies."""
    from fedrates.solvers.problems.datafits import GaussianPopulation, SampleLeastSquares

    fit = problem.datafit
    plain_ls = isinstance(fit, SampleLeastSquares) and not np.any(getattr(fit, "E", 0.0))
    if plain_ls and fit.samples < fit.dim:  # rank ≤ n < d: singular, and a sum of squares
        return 0.0, "min f_i ≥ 0 (least squares is a sum of squares)"
    Q = _stack(fit.hessians[i])[0]
    K, d = problem.clients, problem.dim
    if f_m is None or grad is None:
        f_m = float(problem.client_losses(problem.unflat(m))[i])
        grad = problem.flat(problem.client_gradients(problem.unflat(np.broadcast_to(m, (K, d)))))[i]
    mu_hat = lambda_min_lower(Q, float(np.linalg.eigvalsh(Q)[0]))  # start at the estimate; Cholesky certifies
    if mu_hat > 1e-12 * float(np.linalg.norm(Q)):
        return f_m - float(grad @ grad) / (2 * mu_hat), "min f_i ≥ f_i(m) − ‖∇f_i(m)‖²/(2μ̂_i), μ̂_i by Cholesky"
    if isinstance(fit, GaussianPopulation):
        return 0.5 * fit.noise_std**2, "min f_i ≥ ½σ_ε² (population least squares)"
    if plain_ls:
        return 0.0, "min f_i ≥ 0 (least squares is a sum of squares)"
    if problem.family == "quadratic" and problem.params.get("structure") == "factors":
        return 0.0, "min f_i ≥ 0 (f_i = ½‖A_iᵀ(w − c_i)‖²)"
    return -math.inf, "no lower bound on min f_i (singular and not a sum of squares)"


def _client_minimiser(problem: Any, i: int) -> np.ndarray:
    """A minimiser of f_i by least squares on its own data (SVD): the witness of min f_i."""
    from fedrates.solvers.problems.datafits import SampleLeastSquares

    fit = problem.datafit
    if isinstance(fit, SampleLeastSquares) and not np.any(getattr(fit, "E", 0.0)):
        X, y = fit.X[i], fit.y[i]
        if X.shape[0] < X.shape[1]:  # interpolating minimum-norm solution Xᵀ(XXᵀ)⁻¹y (n × n system)
            try:
                return X.T @ np.linalg.solve(X @ X.T, y)
            except np.linalg.LinAlgError:
                pass
        return np.linalg.lstsq(X, y, rcond=None)[0]
    if problem.family == "quadratic" and "centres" in problem.extras:
        return np.asarray(problem.extras["centres"][i], float)
    Q = _stack(fit.hessians[i])[0]
    return np.linalg.lstsq(Q, np.asarray(fit.linear_terms[i], float), rcond=None)[0]


def _cert_delta_star(problem: Any, value: float, w_star: np.ndarray, clients: Iterable[int] | None,
                     definition: str, assumption: str) -> CertifiedConstant:
    """max_i Δ_i* = max_i f_i(w*) − min f_i (Das et al.): witness (i, w*, minimiser of f_i); upper side
    max_i f_i(w*) − (certified lower bound on min f_i), exhaustive over clients."""
    w_star = _vec(w_star)
    fw = problem.client_losses(problem.unflat(w_star))
    idx = list(range(problem.clients)) if clients is None else list(clients)
    lows, how = {}, set()
    mins = {i: _client_minimiser(problem, i) for i in range(problem.clients)}
    f_min, grads = _values_at_own_points(problem, np.stack([mins[i] for i in range(problem.clients)]))
    for i in idx:
        lows[i], h = _min_lower(problem, i, mins[i], float(f_min[i]), grads[i])
        how.add(h)
    wit_vals = {i: float(fw[i] - f_min[i]) for i in idx}
    k = max(wit_vals, key=wit_vals.get)
    upper = max(float(fw[i] - lows[i]) for i in idx)
    # magnitude of the terms of f_i(w*) = ½w*ᵀQ_iw* − b_iᵀw* + c_i (rounding of values near 0)
    f0 = problem.client_losses(problem.zeros())
    g0 = problem.flat(problem.client_gradients(problem.zeros(problem.clients)))
    scale = float(np.max(np.abs(fw)) + np.max(np.abs(f0)) + np.max(np.linalg.norm(g0, axis=1)) * np.linalg.norm(
        w_star))
    return CertifiedConstant(
        "Delta_star_max", value, wit_vals[k], upper,
        {"client": k, "w_star": w_star.tolist(), "client_minimiser": mins[k].tolist()},
        "f_i(w*) − f_i(m_i) at the client minimiser m_i (least squares / centre; f_i(m_i) = f_i(0) + ½(∇f_i(0) + "
        "∇f_i(m_i))ᵀm_i from the client gradients), largest over clients",
        "max_i f_i(w*) − lower bound on min f_i: " + "; ".join(sorted(how)), definition, assumption,
        scale=scale)


def for_constants(problem: Any, const: Any) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Certificates of the :class:`~fedrates.solvers.constants.Constants` of ``problem`` (built from the values
    and witnesses that ``const`` carries), and the constants left uncertified with the reason."""
    from fedrates.solvers.constants import DEFINITIONS

    wit = dict(getattr(const, "witnesses", {}) or {})
    certs: dict[str, CertifiedConstant] = {}
    skip: dict[str, str] = {}
    D = DEFINITIONS
    scale = max(abs(float(const.L)), abs(float(const.Lambda)), np.finfo(float).tiny)

    def add(name: str, make: Callable[[], CertifiedConstant | None]) -> None:
        if name not in wit:
            skip.setdefault(name, "no witness (the value is a bound, infinite or undefined)")
            return
        if not const.exact.get(name, True):
            skip[name] = "reported value is a certified bound, not the supremum (d above dense_limit)"
            return
        try:
            c = make()
        except (np.linalg.LinAlgError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as exc:
            # a witness that cannot be evaluated is a disagreement (never a silent pass)
            why = f"the witness could not be evaluated ({type(exc).__name__}: {exc})"
            certs[name] = CertifiedConstant(name, float(getattr(const, name)), math.nan, math.nan, {}, why, why,
                                            D[name].formula, D[name].assumption)
            return
        if c is not None:
            certs[name] = c

    add("L", lambda: _cert_L(problem, const.L, wit["L"], D["L"].formula, D["L"].assumption))
    add("mu", lambda: _cert_mu(problem, const.mu, wit["mu"], D["mu"].formula, D["mu"].assumption, scale))
    Qbar = problem.quadratic[0]
    add("Lambda", lambda: CertifiedConstant(
        "Lambda", const.Lambda, _mean_rayleigh(problem, wit["Lambda"]["vector"]),
        lambda_max_upper(Qbar, const.Lambda), {"vector": list(wit["Lambda"]["vector"])},
        "Rayleigh quotient of ∇F(v) − ∇F(0) (the weighted mean Hessian applied by F itself)",
        "Cholesky of uI − Q̄", D["Lambda"].formula, D["Lambda"].assumption))
    add("mu_F", lambda: CertifiedConstant(
        "mu_F", const.mu_F, _mean_rayleigh(problem, wit["mu_F"]["vector"]),
        lambda_min_lower(Qbar, const.mu_F), {"vector": list(wit["mu_F"]["vector"])},
        "Rayleigh quotient of ∇F(v) − ∇F(0)", "Cholesky of Q̄ − lI", D["mu_F"].formula, D["mu_F"].assumption,
        sense="inf", scale=scale))

    rho = const.radius
    # H is a norm of gradient differences: near H = 0 (identical clients) it is compared on the gradients' own scale
    # L·ρ, not relative to itself (rounding leaves ~1e-16 where the exact value is 0)
    grad_scale = float(const.L) * float(rho if rho is not None and math.isfinite(rho) else 1.0)

    def hetero() -> CertifiedConstant:
        k, w = int(wit["H"]["client"]), _vec(wit["H"]["point"])
        up = max(math.sqrt(max(trs_dual_upper(*_hetero_trs(problem, j), rho, _vec(wit["H"]["points"][j])), 0.0))
                 for j in range(problem.clients))
        ok = float(np.linalg.norm(w)) <= rho * (1 + 1e-12)
        return CertifiedConstant(
            "H", const.H, _hetero_at(problem, k, w) if ok else math.nan, up, {"client": k, "point": w.tolist()},
            "‖∇F(w) − ∇f_k(w)‖ from the problem's gradients at the TRS maximiser (‖w‖ ≤ ρ checked)",
            "Lagrangian dual of sup_{‖w‖≤ρ}‖(Q̄ − Q_k)w − (b̄ − b_k)‖² per client (Cholesky), max over clients",
            D["H"].formula, D["H"].assumption, scale=grad_scale)

    if math.isfinite(const.H) and rho is not None and "H" in wit and "points" in wit["H"]:
        add("H", hetero)
    elif math.isfinite(const.H) and "H" in wit:
        k = int(wit["H"]["client"])
        add("H", lambda: CertifiedConstant(
            "H", const.H, _hetero_at(problem, k, np.zeros(problem.dim)),
            max(_hetero_at(problem, j, np.zeros(problem.dim)) for j in range(problem.clients)),
            {"client": k}, "‖∇F − ∇f_k‖ (constant: identical client Hessians)",
            "exhaustive maximum over clients", D["H"].formula, D["H"].assumption, scale=grad_scale))
    else:
        skip["H"] = "H = inf (unbounded domain) or a bound: nothing finite to certify"

    B, rep = int(const.batch), bool(const.replace)

    def variance(name: str) -> CertifiedConstant:
        pts = wit["sigma2"].get("points")
        vals = []
        ups = []
        how = ""
        for j in range(problem.clients):
            if problem.sampling == "gaussian":
                v, how = _variance_at(problem, j, np.zeros(problem.dim), B, rep)
                vals.append(v)
                ups.append(v)
                continue
            w = _vec(pts[j])
            v, how = _variance_at(problem, j, w, B, rep)
            vals.append(v if float(np.linalg.norm(w)) <= rho * (1 + 1e-12) else math.nan)
            P, b, c0, fac = _variance_trs(problem, j, B, rep)
            ups.append(fac * max(trs_dual_upper(P, b, c0, rho, w), 0.0))
        vals_a, ups_a = np.array(vals), np.array(ups)
        up_how = ("closed form σ²/B" if problem.sampling == "gaussian" else
                  "Lagrangian dual of the variance quadratic on the ball per client (Cholesky)")
        if name == "sigma2":
            k = int(np.nanargmax(vals_a)) if np.any(np.isfinite(vals_a)) else 0
            return CertifiedConstant("sigma2", const.sigma2, float(vals_a[k]), float(np.max(ups_a)),
                                     {"client": k, **({} if pts is None else {"point": list(pts[k])}), "batch": B},
                                     how + ", largest over clients", up_how + ", max over clients",
                                     D["sigma2"].formula, D["sigma2"].assumption)
        p2 = np.asarray(problem.weights, float) ** 2
        return CertifiedConstant("sigma_bar2", const.sigma_bar2, float(p2 @ vals_a), float(p2 @ ups_a),
                                 {"weights": "π_k² (problem weights)", "batch": B},
                                 "Σ_k π_k² × the variance at each client's witness point (" + how + ")",
                                 up_how + ", weighted by π_k²", D["sigma_bar2"].formula, D["sigma_bar2"].assumption)

    if math.isfinite(const.sigma2) and "sigma2" in wit:
        add("sigma2", lambda: variance("sigma2"))
        if math.isfinite(const.sigma_bar2):
            wit.setdefault("sigma_bar2", wit["sigma2"])
            add("sigma_bar2", lambda: variance("sigma_bar2"))
    else:
        skip["sigma2"] = skip["sigma_bar2"] = "σ² = inf (unbounded domain): nothing finite to certify"

    if const.sigma2_ref is not None and "sigma2_ref" in wit:
        def var_ref() -> CertifiedConstant:
            from fedrates.solvers.constants import minibatch_variance

            w = const.w_star
            k = int(wit["sigma2_ref"]["client"])
            v, how = _variance_at(problem, k, w, B, rep)
            return CertifiedConstant("sigma2_ref", const.sigma2_ref, v,
                                     float(np.max(minibatch_variance(problem, w, B, rep))), {"client": k},
                                     how + " at the reference point",
                                     "exhaustive maximum over clients of the closed-form variance",
                                     D["sigma2_ref"].formula, D["sigma2_ref"].assumption)
        add("sigma2_ref", var_ref)

    if math.isfinite(const.Delta_star_max) and "Delta_star_max" in wit:
        add("Delta_star_max", lambda: _cert_delta_star(problem, const.Delta_star_max, const.w_star, None,
                                                       D["Delta_star_max"].formula, D["Delta_star_max"].assumption))
    else:
        skip["Delta_star_max"] = "some f_i is unbounded below (Δ_i* = inf)"

    if "delta" in wit:
        def pair() -> CertifiedConstant:
            i, j = wit["delta"]["pair"]
            v = _vec(wit["delta"]["vector"])
            Hv = _hess_times(problem, v)
            Q = _hessians(problem)
            K = Q.shape[0]
            ups = [abs_eig_upper(Q[a] - Q[a + 1:], const.delta) for a in range(K - 1)] or [0.0]
            return CertifiedConstant("delta", const.delta, abs(float(v @ (Hv[i] - Hv[j]) / (v @ v))), max(ups),
                                     {"pair": [int(i), int(j)], "vector": v.tolist()},
                                     "|vᵀ(Q_i − Q_j)v| with Q v from the client gradients",
                                     "Cholesky of uI ∓ (Q_i − Q_j) over all pairs", D["delta"].formula,
                                     D["delta"].assumption, scale=scale)
        add("delta", pair)
    if "delta_mean" in wit:
        def to_mean() -> CertifiedConstant:
            k = int(wit["delta_mean"]["client"])
            v = _vec(wit["delta_mean"]["vector"])
            Hv = _hess_times(problem, v)
            Qv = problem.flat(problem.gradient(problem.unflat(v))) - problem.flat(problem.gradient(problem.zeros()))
            Q = _hessians(problem)
            return CertifiedConstant("delta_mean", const.delta_mean, abs(float(v @ (Hv[k] - Qv) / (v @ v))),
                                     abs_eig_upper(Q - 0.5 * (Qbar + Qbar.T)[None], const.delta_mean),
                                     {"client": k, "vector": v.tolist()}, "|vᵀ(Q_k − Q̄)v| from the gradients",
                                     "Cholesky of uI ∓ (Q_k − Q̄) for every client", D["delta_mean"].formula,
                                     D["delta_mean"].assumption, scale=scale)
        add("delta_mean", to_mean)

    if const.Psi is not None and problem.truth is not None:
        add("Psi", lambda: _cert_psi(problem, const.Psi, wit["Psi"]))
    else:
        skip["Psi"] = "no ground truth w°"
    if const.lam_opt is not None and problem.truth is not None:
        add("lam_opt", lambda: _cert_lam_opt(problem, const.lam_opt, wit["lam_opt"]))
    else:
        skip["lam_opt"] = "no ground truth w°"
    skip.setdefault("tau", "definitional: 0 when μ is the per-client minimum (certified through mu), else not "
                           "computed (RSC tolerance, NP-hard in general)")
    skip.setdefault("nu", "definitional: 0 because L is the per-client maximum (certified through L)")
    skip.setdefault("Psi_2r", "√(2r) of the certified rank r (see Psi)")
    for name in ("L_k", "mu_k", "H_k", "sigma2_k", "Delta_star"):
        skip.setdefault(name, "per-client array: its extreme is certified (L, mu, H, sigma2, Delta_star_max)")
    return certs, skip


def _cert_psi(problem: Any, value: float, wit: Mapping) -> CertifiedConstant:
    from fedrates.solvers.penalties import L1, Nuclear

    truth = np.asarray(problem.truth, float)
    pen = problem.penalty
    if isinstance(pen, L1):
        support = [int(i) for i in wit["support"]]
        flat = truth.reshape(-1)
        ok = all(flat[i] != 0 for i in support)
        return CertifiedConstant("Psi", value, math.sqrt(len(support)) if ok else math.nan,
                                 math.sqrt(sum(1 for x in flat if x != 0)), {"support_size": len(support)},
                                 "√|support| of the listed nonzero coordinates of w°",
                                 "√(number of nonzero entries), counted one by one", "√s, s = ‖w°‖₀",
                                 "Bao et al. 2022 Definition 1")
    if isinstance(pen, Nuclear):
        from scipy.linalg import qr

        r = int(wit["rank"])
        sv = np.linalg.svd(truth, compute_uv=False)
        tol = max(truth.shape) * EPS * (sv[0] if sv.size else 0.0)
        _, R, _ = qr(truth, pivoting=True)
        rq = int(np.sum(np.abs(np.diag(R)) > max(truth.shape) * EPS * abs(R[0, 0]) * 10))
        return CertifiedConstant("Psi", value, math.sqrt(int(np.sum(sv > tol))) if r == int(np.sum(sv > tol))
                                 else math.nan, math.sqrt(rq), {"rank": r},
                                 "√(number of singular values above d·u·σ₁)", "√rank by pivoted QR",
                                 "√r, r = rank W°", "Bao et al. 2022 Definition 1")
    return CertifiedConstant("Psi", value, 1.0, 1.0, {}, "no penalty: R = ‖·‖₂", "Ψ = 1", "1",
                             "Bao et al. 2022 Definition 1")


def _cert_lam_opt(problem: Any, value: float, wit: Mapping) -> CertifiedConstant:
    """2R*(∇F(w°)): ℓ∞ (witness coordinate, exhaustive maximum of Q̄w° − b̄); spectral norm (witness singular pair,
    Cholesky of u²I − GᵀG); Euclidean (the gradient itself)."""
    from fedrates.solvers.penalties import L1, Nuclear

    truth = np.asarray(problem.truth, float)
    g = problem.flat(problem.gradient(truth))
    Qbar, bbar, _ = problem.quadratic
    g2 = Qbar @ truth.reshape(-1) - bbar  # second route: the stored quadratic
    pen = problem.penalty
    # magnitude of the terms of ∇F(w°) = Q̄w° − b̄ (rounding of a gradient that vanishes at w°)
    scale = 2 * (float(np.linalg.norm(Qbar, 2)) * float(np.linalg.norm(truth)) + float(np.linalg.norm(bbar)))
    out = _lam_opt(problem, value, wit, g, g2, pen, L1, Nuclear)
    return CertifiedConstant(**{**out.__dict__, "scale": scale})


def _lam_opt(problem: Any, value: float, wit: Mapping, g: np.ndarray, g2: np.ndarray, pen: Any, L1: Any,
             Nuclear: Any) -> CertifiedConstant:
    if isinstance(pen, L1):
        j = int(wit["coordinate"])
        return CertifiedConstant("lam_opt", value, 2 * abs(float(g[j])), 2 * float(np.max(np.abs(g2))),
                                 {"coordinate": j}, "2|∂_jF(w°)| from the problem's gradient",
                                 "2 max_j |(Q̄w° − b̄)_j| (exhaustive)", "2‖∇F(w°)‖_∞",
                                 "Bao et al. 2022 Proposition 3.1 / eq. (8)")
    if isinstance(pen, Nuclear):
        G = g.reshape(problem.shape)
        u, v = _vec(wit["left"]), _vec(wit["right"])
        G2 = g2.reshape(problem.shape)
        s = value / 2
        up = math.sqrt(max(lambda_max_upper(G2.T @ G2, s * s), 0.0))
        return CertifiedConstant("lam_opt", value, 2 * abs(float(u @ G @ v)) / float(np.linalg.norm(u) *
                                 np.linalg.norm(v)), 2 * up, {"left": u.tolist(), "right": v.tolist()},
                                 "2|uᵀ∇F(W°)v| at the top singular pair", "2√(Cholesky bound on λ_max(GᵀG))",
                                 "2‖∇F(W°)‖₂ (spectral norm)", "Bao et al. 2022 Proposition 3.1 / eq. (8)")
    return CertifiedConstant("lam_opt", value, 2 * float(np.linalg.norm(g)), 2 * float(np.linalg.norm(g2)), {},
                             "2‖∇F(w°)‖₂ from the problem's gradient", "2‖Q̄w° − b̄‖₂", "2‖∇F(w°)‖₂",
                             "Bao et al. 2022 Proposition 3.1 / eq. (8)")


def _das(problem: Any, L: float, Delta: np.ndarray, w_star: np.ndarray) -> dict[str, CertifiedConstant]:
    """Certificates of the constants Das et al.'s claims read: L = max_i λ_max(Q_i) and max_i Δ_i* with
    Δ_i* = f_i(w*) − min f_i at the given (certified) w*."""
    Q = _hessians(problem)
    k = int(np.argmax(np.linalg.eigvalsh(Q)[:, -1]))
    v = np.linalg.eigh(Q[k])[1][:, -1]
    from fedrates.solvers.constants import DEFINITIONS as D

    return {"L": _cert_L(problem, float(L), {"client": k, "vector": v}, D["L"].formula, "Das et al. L-smoothness"),
            "Delta_star_max": _cert_delta_star(problem, float(np.max(Delta)), w_star, None,
                                               D["Delta_star_max"].formula, D["Delta_star_max"].assumption)}


# ==== Dinh et al. (FedProxVR) ======================================================================================
def for_dinh_device(problem: Any, const: Any) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Certificates of the per-device constants of Assumption 1 (L of (3), L_ms, L_F, λ of (4)) of a
    :class:`~fedrates.solvers.fedproxvr_constants.DinhDeviceConstants` or ``DinhConstants``: every witness and every
    upper side reads each device's own sample or device Hessians, never the average Ā (so they exist when Ā is
    singular or indefinite)."""
    from fedrates.solvers.fedproxvr_constants import ASSUMPTIONS as A
    from fedrates.solvers.problems.finite_sum import finite_sum

    wit = dict(getattr(const, "witnesses", {}) or {})
    fs = finite_sum(problem)
    Qi = fs.sample_hessians
    n, d = Qi.shape[1], Qi.shape[2]
    Adev = _stack(problem.datafit.hessians)
    certs: dict[str, CertifiedConstant] = {}
    scale = max(float(const.L), np.finfo(float).tiny)

    dev, smp, v = int(wit["L"]["device"]), int(wit["L"]["sample"]), _vec(wit["L"]["vector"])
    certs["L"] = CertifiedConstant(
        "L", const.L, abs(float(v @ Qi[dev, smp] @ v / (v @ v))), abs_eig_upper(Qi.reshape(-1, d, d), const.L),
        {"device": dev, "sample": smp, "vector": v.tolist()},
        "|vᵀQ_iv|/vᵀv for the witness sample's Hessian Q_i = x_ix_iᵀ + E_n",
        "Cholesky of uI ∓ Q_i over every sample of every device", "max_{n,i} ‖Q_i‖₂", A["L"])
    dev, v = int(wit["L_ms"]["device"]), _vec(wit["L_ms"]["vector"])
    Qv = np.einsum("ide,e->id", Qi[dev], v)
    Msq = np.einsum("kide,kief->kdf", Qi, Qi) / n
    certs["L_ms"] = CertifiedConstant(
        "L_ms", const.L_ms, math.sqrt(float(np.mean(np.sum(Qv * Qv, axis=1))) / float(v @ v)),
        math.sqrt(max(lambda_max_upper(Msq, const.L_ms**2), 0.0)), {"device": dev, "vector": v.tolist()},
        "√(mean_i ‖Q_iv‖²)/‖v‖ on the witness device", "√(Cholesky bound on λ_max(mean_i Q_i²)) over devices",
        "max_n √λ_max(mean_i Q_i²)", A["L_ms"])
    dev, v = int(wit["L_F"]["device"]), _vec(wit["L_F"]["vector"])
    certs["L_F"] = CertifiedConstant(
        "L_F", const.L_F, abs(_rayleigh(problem, dev, v)), abs_eig_upper(Adev, const.L_F),
        {"device": dev, "vector": v.tolist()}, "|Rayleigh quotient| of ∇F_n(v) − ∇F_n(0)",
        "Cholesky of uI ∓ A_n for every device", "max_n ‖A_n‖₂", A["L_F"])
    dev, v = int(wit["lam"]["device"]), _vec(wit["lam"]["vector"])
    low = lambda_min_lower(Adev, -const.lam) if const.lam > 0 else lambda_min_lower(Adev, 0.0)
    certs["lam"] = CertifiedConstant(
        "lam", const.lam, max(0.0, -_rayleigh(problem, dev, v)), max(0.0, -low),
        {"device": dev, "vector": v.tolist()},
        "max(0, −vᵀA_nv/vᵀv) with A_nv = ∇F_n(v) − ∇F_n(0) on the witness device (each device's own Hessian)",
        "max(0, −l), l ≤ min_n λ_min(A_n) by Cholesky of A_n − lI over every device",
        "max_n max(0, −λ_min(A_n))", A["lam"], scale=scale)
    return certs, {}


def for_dinh(problem: Any, const: Any) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Certificates of :class:`~fedrates.solvers.fedproxvr_constants.DinhConstants` (Assumption 1): the per-device
    ones of :func:`for_dinh_device`, then m, Δ and σ̄² (which need the global optimum)."""
    from fedrates.solvers.fedproxvr_constants import ASSUMPTIONS as A

    wit = dict(getattr(const, "witnesses", {}) or {})
    K, d = problem.datafit.hessians.shape[0], problem.dim
    Adev = _stack(problem.datafit.hessians)
    certs, skip = for_dinh_device(problem, const)
    scale = max(float(const.L), np.finfo(float).tiny)
    v = _vec(wit["m"]["vector"])
    certs["m"] = CertifiedConstant(
        "m", const.m, _mean_rayleigh(problem, v), lambda_min_lower(const.Abar, const.m), {"vector": v.tolist()},
        "Rayleigh quotient of ∇F̄(v) − ∇F̄(0)", "Cholesky of Ā − lI", "λ_min(Ā)", A["m"], sense="inf", scale=scale)
    w_star = _vec(const.w_star)
    w0 = _vec(wit["Delta"]["w0"])
    F = lambda w: float(problem.smooth_value(problem.unflat(_vec(w))))  # noqa: E731
    g = problem.flat(problem.gradient(problem.unflat(w_star)))
    m_low = lambda_min_lower(const.Abar, const.m)
    certs["Delta"] = CertifiedConstant(
        "Delta", const.Delta, F(w0) - F(w_star),
        F(w0) - (F(w_star) - float(g @ g) / (2 * m_low)) if m_low > 0 else math.inf,
        {"w0": w0.tolist(), "w_star": w_star.tolist()}, "F̄(w⁰) − F̄(w*) from the problem's objective",
        "F̄(w⁰) − (F̄(w*) − ‖∇F̄(w*)‖²/(2m̂)), m̂ by Cholesky", "F̄(w̄⁰) − F̄*", A["Delta"])
    if const.realisable:
        p = np.asarray(problem.weights, float)
        ratios, ups = [], []
        inv = np.linalg.inv(const.Abar)
        for k in range(K):
            u = _vec(wit["sigma_bar_sq"]["directions"][k])
            w = w_star + np.linalg.solve(const.Abar, u)
            Wk = problem.flat(problem.client_gradients(problem.unflat(np.broadcast_to(w, (K, d)))))[k]
            gb = problem.flat(problem.gradient(problem.unflat(w)))
            ratios.append(float(np.linalg.norm(Wk - gb) / np.linalg.norm(gb)))
            Bm = (Adev[k] - const.Abar) @ inv
            ups.append(max(lambda_max_upper(Bm.T @ Bm, float(const.sigma[k]) ** 2), 0.0))
        r2, u2 = np.array(ratios) ** 2, np.array(ups)
        certs["sigma_bar_sq"] = CertifiedConstant(
            "sigma_bar_sq", const.sigma_bar_sq, float(p @ r2), float(p @ u2),
            {"weights": "p_n = D_n/D", "points": "w* + Ā⁻¹u_n, u_n the top right singular vector of (A_n − Ā)Ā⁻¹"},
            "Σ_n p_n (‖∇F_n(w) − ∇F̄(w)‖/‖∇F̄(w)‖)² at each device's witness point (the ratio of (5))",
            "Σ_n p_n × Cholesky bound on λ_max(B_nᵀB_n), B_n = (A_n − Ā)Ā⁻¹", "Σ_n p_n σ_n²", A["sigma_bar_sq"])
    else:
        skip["sigma_bar_sq"] = "σ_n = inf (the devices do not share a stationary point)"
    return certs, skip


# ==== Bylinkin et al. (two-group separation) =======================================================================
def _separation(problem: Any) -> dict[str, CertifiedConstant]:
    """Certificates of the two-group constants (keys of ``SEPARATION_DEFINITIONS``): group Hessians applied through
    the node datafits (A_f v = mean over f-nodes of ½(∇f_m(v) − ∇f_m(0))), server Hessians from its data, and the
    other side by Cholesky tests — δ_f, δ_g of both signs (the largest *modulus* eigenvalue of the signed
    difference)."""
    from fedrates.solvers.constants import SEPARATION_DEFINITIONS as D
    from fedrates.solvers.problems.separation import split

    sp = split(problem)
    group = np.asarray(problem.extras["group"])
    ex = problem.extras

    def apply(v: np.ndarray) -> dict[str, np.ndarray]:
        Hv = 0.5 * _hess_times(problem, v)
        Af, Ag = Hv[group == 0].mean(axis=0), Hv[group == 1].mean(axis=0)
        return {"f": Af, "g": Ag, "f1": np.asarray(ex["A_f1"]) @ v, "g1": np.asarray(ex["A_g1"]) @ v}

    mats = {"H": sp.A_f + sp.A_g, "A_f": sp.A_f, "A_g": sp.A_g, "df": sp.A_f1 - sp.A_f, "dg": sp.A_g1 - sp.A_g,
            "h1": sp.A_f1 + sp.A_g1, "f1g": sp.A_f1 + sp.A_g}
    how = {"H": (lambda a: a["f"] + a["g"]), "A_f": (lambda a: a["f"]), "A_g": (lambda a: a["g"]),
           "df": (lambda a: a["f1"] - a["f"]), "dg": (lambda a: a["g1"] - a["g"]),
           "h1": (lambda a: a["f1"] + a["g1"]), "f1g": (lambda a: a["f1"] + a["g"])}
    spec = {"mu": ("H", "min"), "L": ("H", "max"), "L_f": ("A_f", "max"), "L_g": ("A_g", "max"),
            "delta_f": ("df", "abs"), "delta_g": ("dg", "abs"), "lambda_min_g": ("A_g", "min"),
            "lambda_min_h1": ("h1", "min"), "lambda_min_f1_plus_g": ("f1g", "min")}
    consts = sp.constants()
    scale = max(abs(float(sp.L)), np.finfo(float).tiny)
    out = {}
    for name, (key, kind) in spec.items():
        M = _stack(mats[key])[0]
        value = float(consts[name])
        lam, V = np.linalg.eigh(M)
        idx = {"min": 0, "max": -1, "abs": int(np.argmax(np.abs(lam)))}[kind]
        v = V[:, idx]
        r = float(v @ how[key](apply(v)) / (v @ v))
        if kind == "abs":
            wv, up, um = abs(r), abs_eig_upper(M, value), "Cholesky of uI ∓ (signed difference)"
        elif kind == "max":
            wv, up, um = r, lambda_max_upper(M, value), "Cholesky of uI − A"
        else:
            wv, up, um = r, lambda_min_lower(M, value), "Cholesky of A − lI"
        out[name] = CertifiedConstant(name, value, wv, up, {"vector": v.tolist()},
                                      "Rayleigh quotient with the group means applied through the node datafits",
                                      um, D[name].formula, D[name].assumption,
                                      sense="inf" if kind == "min" else "sup", scale=scale)
    return out


# ==== Buttaci & Calafiore (similar_quadratic) ======================================================================
def _buttaci(problem: Any, consts: Mapping[str, Any]) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Certificates of :func:`~fedrates.solvers.problems.similar_quadratic.exact_constants`: Γ (Definition 3) with
    the degree weights p_i = Σ_n A_in/𝟏ᵀA𝟏 recomputed from the graph's adjacency, L = max_i ‖H_i‖₂ and
    μ = min_i λ_min(H_i) (Assumptions 4–5, per client), S = Σ p_i², σ² (Assumption 2)."""
    H = _stack(problem.datafit.hessians)
    A = np.asarray(problem.extras["graph"].adjacency, float)
    A = np.where(np.isfinite(A), A, 0.0)
    p = A.sum(axis=1) / A.sum()
    certs: dict[str, CertifiedConstant] = {}
    skip: dict[str, str] = {}
    ev, V = np.linalg.eigh(H)
    absmax = np.max(np.abs(ev), axis=1)
    k = int(np.argmax(absmax))
    j = int(np.argmax(np.abs(ev[k])))
    scale = max(float(consts["L"]), np.finfo(float).tiny)
    certs["L"] = CertifiedConstant(
        "L", float(consts["L"]), abs(_rayleigh(problem, k, V[k][:, j])), abs_eig_upper(H, float(consts["L"])),
        {"client": k, "vector": V[k][:, j].tolist()}, "|Rayleigh quotient| of ∇f_i(v) − ∇f_i(0)",
        "Cholesky of uI ∓ H_i for every client", "max_i ‖H_i‖₂", "Buttaci & Calafiore Assumption 4 (every f_i)")
    k = int(np.argmin(ev[:, 0]))
    certs["mu"] = CertifiedConstant(
        "mu", float(consts["mu"]), _rayleigh(problem, k, V[k][:, 0]), lambda_min_lower(H, float(consts["mu"])),
        {"client": k, "vector": V[k][:, 0].tolist()}, "Rayleigh quotient of ∇f_i(v) − ∇f_i(0)",
        "Cholesky of H_i − lI for every client", "min_i λ_min(H_i)", "Buttaci & Calafiore Assumption 5 (every f_i)",
        sense="inf", scale=scale)
    certs["S"] = CertifiedConstant("S", float(consts["S"]), float(p @ p), float(np.sum(np.square(
        np.asarray(problem.extras["graph"].weights, float).sum(axis=1)))), {"weights": "graph degrees"},
        "Σ p_i² with p_i = Σ_n A_in/𝟏ᵀA𝟏 from the adjacency", "Σ_i (Σ_n p_in)² from the similarity weights",
        "Σ_i p_i²", "Buttaci & Calafiore Theorems 1–4 (S)")
    certs["sigma2"] = CertifiedConstant("sigma2", float(consts["sigma2"]), float(problem.noise_std) ** 2,
                                        float(problem.noise_std) ** 2, {}, "E‖ζ‖² of ζ ~ N(0, σ²/d I)",
                                        "closed form", "σ²", "Buttaci & Calafiore Assumption 2")
    gamma = float(consts["Gamma"])
    if math.isfinite(gamma):
        w_star = _vec(consts["w_star"])
        mins = np.stack([_client_minimiser(problem, i) for i in range(problem.clients)])
        fi_star = problem.client_losses(problem.unflat(w_star))
        f_at = float(p @ fi_star)
        fi_min, grads = _values_at_own_points(problem, mins)
        lows = np.array([_min_lower(problem, i, mins[i], float(fi_min[i]), grads[i])[0] for i in range(len(p))])
        certs["Gamma"] = CertifiedConstant(
            "Gamma", gamma, f_at - float(p @ fi_min), f_at - float(p @ lows),
            {"w_star": w_star.tolist(), "weights": "degrees p_i from the adjacency"},
            "f(w*) − Σ_i p_i f_i(w_i*) with degree weights p_i from the graph and w_i* by least squares",
            "f(w*) − Σ_i p_i (f_i(w_i*) − ‖∇f_i(w_i*)‖²/(2μ̂_i)), μ̂_i by Cholesky", "f* − Σ_i p_i f_i(w_i*)",
            "Buttaci & Calafiore Definition 3 (degree weights of Algorithm 1)", scale=abs(f_at))
    else:
        skip["Gamma"] = "some f_i is unbounded below (nonconvex client): Γ undefined"
    skip["G"] = ("an a-priori bound on a ball the claim chooses (not an instance constant): certify it with "
                 "buttaci_G2(problem, centre, radius, G2)")
    return certs, skip


def buttaci_G2(problem: Any, center: np.ndarray, radius: float, G2: float) -> CertifiedConstant:
    """Certificate of an a-priori G² (Buttaci & Calafiore Assumption 3, E‖g_i(w)‖² ≤ G², here with additive noise
    E‖g_i‖² = ‖∇f_i(w)‖² + σ²) on the ball B(c, ρ) the claim's run is checked to stay in.  G² is a *bound*
    (``kind = "bound"``): the witness is the maximiser of max_i ‖∇f_i(c + u)‖² over ‖u‖ ≤ ρ (trust-region
    subproblem per client, evaluated with the client gradients), the second route the Lagrangian dual bound of the
    same suprema (Cholesky); G² holds iff it is not below that certified supremum."""
    from fedrates.solvers._trs import maximize_on_ball

    c = _vec(center)
    H = _stack(problem.datafit.hessians)
    K, d = problem.clients, problem.dim
    grads_c = problem.flat(problem.client_gradients(problem.unflat(np.broadcast_to(c, (K, d)))))
    s2 = float(problem.noise_std) ** 2
    vals, ups, points = [], [], []
    for i in range(K):
        P, b, c0 = H[i] @ H[i], -H[i] @ grads_c[i], float(grads_c[i] @ grads_c[i])
        _, u = maximize_on_ball(P, b, c0, radius)
        points.append(c + u)
        ups.append(trs_dual_upper(P, b, c0, radius, u))
    G = problem.flat(problem.client_gradients(problem.unflat(np.stack(points))))
    vals = np.einsum("kd,kd->k", G, G)
    k = int(np.argmax(vals))
    return CertifiedConstant(
        "G2", float(G2), float(vals[k]) + s2, float(max(ups)) + s2,
        {"client": k, "point": points[k].tolist(), "center": c.tolist(), "radius": float(radius)},
        "‖∇f_i(w)‖² + σ² at the client's maximiser on the ball (client gradients)",
        "Lagrangian dual of sup_{‖u‖≤ρ}‖∇f_i(c + u)‖² per client (Cholesky), + σ²",
        "sup_{w ∈ B(c, ρ)} max_i E‖g_i(w)‖²", "Buttaci & Calafiore Assumption 3 (on the ball the run stays in)",
        upper_exact=False, kind="bound")


@dataclass
class _Bundle:
    """Certificates and the uncertified names of one instance (what the cache stores)."""

    certificates: dict[str, CertifiedConstant] = field(default_factory=dict)
    uncertified: dict[str, str] = field(default_factory=dict)


# ==== on-disk cache (next to the reference cache: same key scheme and checksummed documents) ======================
#: modules whose source decides a certificate (a change gives another key)
_CODE = ("fedrates.solvers.certify", "fedrates.solvers.constants", "fedrates.solvers.fedproxvr_constants",
         "fedrates.solvers._trs", "fedrates.solvers.problems.datafits")
_MEMORY: dict[str, tuple[dict, dict]] = {}


def code_digest(modules: Iterable[str] = _CODE) -> str:
    """SHA-256 of the source of ``modules`` and of the code of every function bound in their namespaces at call
    time (so that a function replaced at run time, e.g. a broken variant patched in, gives another key)."""
    import hashlib
    import importlib
    import importlib.util
    from pathlib import Path

    h = hashlib.sha256()
    for name in modules:
        h.update(Path(importlib.util.find_spec(name).origin).read_bytes())
        mod = importlib.import_module(name)
        for attr, obj in sorted(vars(mod).items()):
            if not isinstance(obj, types.FunctionType):  # (never touch lazy modules: getattr would import them)
                continue
            code = obj.__code__
            if code is not None:
                h.update(attr.encode())
                h.update(code.co_code)
                h.update(repr(code.co_consts).encode())
    return h.hexdigest()


def _digest_values(obj: Any) -> str:
    """SHA-256 of everything a certificate reads from a constants object: its values and its witnesses."""
    import hashlib

    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, Mapping):
            for k in sorted(x, key=str):
                h.update(str(k).encode())
                feed(x[k])
        elif isinstance(x, np.ndarray) or (isinstance(x, (list, tuple)) and x and
                                           isinstance(x[0], (float, np.floating, list, np.ndarray))):
            a = np.ascontiguousarray(np.asarray(x, dtype=float))
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        else:
            h.update(repr(x).encode())

    if isinstance(obj, Mapping):
        fields = dict(obj)
    else:
        fields = {k: v for k, v in vars(obj).items() if not k.startswith("_") and k not in ("problem_ref", "seconds")}
    feed(fields)
    return h.hexdigest()


def _cached(problem: Any, kind: str, source: Any, compute: Callable[[], tuple[dict, dict]],
            use_disk: bool = True) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Memory, then disk (``<cache>/certificates/``), then ``compute()``; see :func:`cached_certificates`."""
    from fedrates.solvers import _cache

    key = _cache.entry_key(problem.fingerprint, {"what": "certificates", "kind": kind,
                                                 "values": _digest_values(source), "code": code_digest()})
    if key in _MEMORY:
        return _MEMORY[key]
    directory = _cache.cache_dir() / "certificates"
    doc = _cache.load_document(key, directory) if use_disk else None
    if doc is not None:
        try:
            out = ({n: from_dict(c) for n, c in doc["certificates"].items()}, dict(doc["uncertified"]))
        except (KeyError, TypeError):
            out = None
        if out is not None:
            _MEMORY[key] = out
            return out
    certs, skip = compute()
    if use_disk:
        _cache.store_document(key, {"certificates": {n: to_dict(c) for n, c in certs.items()},
                                    "uncertified": skip}, directory)
    _MEMORY[key] = (certs, skip)
    return certs, skip


def for_das(problem: Any, L: float, Delta: np.ndarray, w_star: np.ndarray,
            cache: bool = True) -> dict[str, CertifiedConstant]:
    """Certificates of the constants Das et al.'s claims read: L = max_i λ_max(Q_i) (witness: the largest client's
    top eigenvector; other side: Cholesky tests) and max_i Δ_i* = max_i f_i(w*) − min f_i at the given
    (certified) w* (witness: the client minimiser; other side: a certified lower bound on min f_i).  Cached."""
    source = {"L": float(L), "Delta": np.asarray(Delta, float), "w_star": np.asarray(w_star, float)}
    return _cached(problem, "das", source, lambda: (_das(problem, L, Delta, w_star), {}), cache)[0]


def for_separation(problem: Any, cache: bool = True) -> dict[str, CertifiedConstant]:
    """Certificates of Bylinkin et al.'s two-group constants (see :func:`_separation`).  Cached."""
    from fedrates.solvers.problems.separation import split

    source = {**{k: v for k, v in split(problem).constants().items()},
              **{k: np.asarray(problem.extras[k], float) for k in ("A_f1", "A_g1", "b_f1", "b_g1")}}
    return _cached(problem, "separation", source, lambda: (_separation(problem), {}), cache)[0]


def for_buttaci(problem: Any, consts: Mapping[str, Any],
                cache: bool = True) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """Certificates of Buttaci & Calafiore's constants (see :func:`_buttaci`) and the uncertified ones.  Cached."""
    source = {k: v for k, v in consts.items() if k in ("L", "mu", "L_f", "mu_f", "S", "Gamma", "w_star", "sigma2")}
    return _cached(problem, "buttaci", source, lambda: _buttaci(problem, consts), cache)


def cached_certificates(problem: Any, const: Any, kind: str = "constants",
                        use_disk: bool = True) -> tuple[dict[str, CertifiedConstant], dict[str, str]]:
    """The certificates of ``const`` (a Constants or DinhConstants of ``problem``), computed once per instance and
    kept on disk beside the reference cache (``<cache>/certificates/<key>.json``, a checksummed document of
    :mod:`fedrates.solvers._cache`).  The key is :func:`fedrates.solvers._cache.entry_key` of the problem's
    fingerprint and the settings {kind, digest of the values and witnesses certified, code digest}: a changed
    value (e.g. a constant replaced after it was computed) or changed code is a miss, never a stale hit.  A damaged
    entry is removed and recomputed (see :func:`fedrates.solvers._cache.load_document`)."""
    def compute() -> tuple[dict, dict]:
        if kind == "dinh-device":
            return for_dinh_device(problem, const)
        return for_dinh(problem, const) if kind == "dinh" else for_constants(problem, const)

    return _cached(problem, kind, const, compute, use_disk)


def for_structured(problem: Any, values: Mapping[str, float] | None = None) -> dict[str, CertifiedConstant]:
    """Certificates of the shared-basis quadratics (L, μ, L_F, μ_F, ζ*², Γ):
    :func:`fedrates.solvers.certify_structured.for_structured`."""
    from fedrates.solvers.certify_structured import for_structured as certify_structured

    return certify_structured(problem, values)


def for_lowrank(problem: Any, values: Mapping[str, float] | None = None) -> dict[str, CertifiedConstant]:
    """Certificates of the diagonal-plus-rank-one quadratics (L, μ, L_F, μ_F, ζ*², Γ):
    :func:`fedrates.solvers.certify_lowrank.for_lowrank`."""
    from fedrates.solvers.certify_lowrank import for_lowrank as certify_lowrank

    return certify_lowrank(problem, values)


def for_implicit(problem: Any, values: Mapping[str, float] | None = None, batch: int = 1,
                 replace: bool = False) -> dict[str, CertifiedConstant]:
    """Certificates of least squares with implicit features (L, μ, L_F, μ_F, ζ*², Γ, σ²_ref, σ² on a ball):
    :func:`fedrates.solvers.certify_implicit.for_implicit`."""
    from fedrates.solvers.certify_implicit import for_implicit as certify_implicit

    return certify_implicit(problem, values, batch, replace)

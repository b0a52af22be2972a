"""Two-group quadratic federations with exactly prescribed similarity constants (Bylinkin et al.).

Bylinkin, Skorik, Bystrov, Berezin, Avetisyan, Beznosikov, *Accelerated Methods with Complexity Separation Under
Data Similarity for Federated Learning Problems*, problem (2):

    min_x h(x) = f(x) + g(x),   f = (1/|M_f|) Σ_{m∈M_f} f_m,   g = (1/|M_g|) Σ_{m∈M_g} g_m,

with a server holding h_1 = f_1 + g_1.  Every function is a quadratic φ(x) = ½xᵀA_φx − b_φᵀx:

* H = V diag(λ) Vᵀ, λ log-spaced in [μ, L] (Haar V), so μ = λ_min(H) exactly;
* A_f = H^{1/2} W H^{1/2} with 0 ⪯ W ⪯ I and A_g = H − A_f: both PSD, so g is convex (Assumption 3);
* server: A_{f1} = A_f + E_f, A_{g1} = A_g + E_g with E = δ U diag(s) Uᵀ, max|s_i| = 1 attained, so
  ‖A_{f1} − A_f‖₂ = δ_f and ‖A_{g1} − A_g‖₂ = δ_g exactly (Definition 1 in the spectral norm).
  ``perturbation=psd`` (s ∈ [0, 1]) keeps h_1 = f_1 + g_1 and f_1 + g convex — the preconditions the proofs use
  without stating them (App. B/C: "A_θ is 1/θ-strongly convex"; Section 7: Kovalev et al.'s q = f_1 + g convex);
  ``perturbation=signed`` puts s = −1 on the bottom eigenvector of H, so both fail (negative tests);
  ``perturbation=mixed`` puts s = −1 on the top eigenvector and s ∈ [0, 1) elsewhere: δ is attained by a negative
  eigenvalue only (a δ computed from the signed largest eigenvalue would be smaller) while h_1 and f_1 + g stay
  convex when L ≥ δ_f + δ_g;
* ``components=indefinite`` splits the same H as A_f = H/2 + S, A_g = H/2 − S with S symmetric, eigenvalues in
  [−L, L]: f and g non-convex, as §5-6 allow (Assumption 3, g convex, is then violated: §7 only);
* nodes: A_m = A_f + Δ_m with Σ_m Δ_m = 0 (``node_spread``), linear terms likewise, so the group means are exact;
* linear terms: ``linear=generic`` (b_f = A_f x_f°, b_g = A_g x_g°, server terms perturbed: the oracle variance at
  x* is positive) or ``linear=shared`` (every function minimised at the same x°: interpolation regime).

The :class:`~fedrates.solvers.problems.base.Problem` has K = |M_f| + |M_g| clients (f-nodes first) with weights
1/(2|M_f|) and 1/(2|M_g|) and client datafits 2f_m, 2g_m, so that Σ_k π_k f_k = f + g = h exactly (the paper
weighs f and g equally whatever the node counts).  The server is not a client (the paper's experiments exclude
it from both groups).  :func:`split` recovers the group means and the server functions with their exact constants;
the builder checks that what it built has the requested μ, δ_f, δ_g (relative 1e-9) and raises otherwise.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic
from fedrates.solvers.problems.quadratic import haar_orthogonal, spectrum

__all__ = ["FAMILY", "Split", "split", "BUILD_TOLERANCE"]

#: relative agreement required between the requested and the built μ, δ_f, δ_g (floating point only)
BUILD_TOLERANCE = 1e-9

PARAMETERS = {
    "dim": Param(8, "int", "dimension d >= 2", low=2),
    "mu": Param(0.01, "float", "strong convexity mu = lambda_min(H) > 0", low=0.0, low_inclusive=False),
    "L": Param(1.0, "float", "largest eigenvalue L >= mu of H", low=0.0, low_inclusive=False),
    "delta_f": Param(0.05, "float", "similarity delta_f = ||A_f1 - A_f||_2 > 0", low=0.0, low_inclusive=False),
    "delta_g": Param(0.5, "float", "similarity delta_g = ||A_g1 - A_g||_2 > 0", low=0.0, low_inclusive=False),
    "nodes_f": Param(4, "int", "number of nodes |M_f| >= 1", low=1),
    "nodes_g": Param(4, "int", "number of nodes |M_g| >= 1", low=1),
    "node_spread": Param(0.1, "float", "spread of node Hessians/linear terms around their group mean >= 0", low=0.0),
    "perturbation": Param("psd", "choice", "server perturbation: psd (h_1, f_1 + g convex), signed (not), or mixed "
                          "(eigenvalue -delta on the top eigenvector of H, the rest in [0, 1): h_1 convex when "
                          "L >= delta_f + delta_g)", choices=("psd", "signed", "mixed")),
    "components": Param("convex", "choice", "split of H: convex (A_f, A_g PSD) or indefinite (A_f = H/2 + S, "
                        "A_g = H/2 - S, S symmetric with eigenvalues in [-L, L]: f and g non-convex)",
                        choices=("convex", "indefinite")),
    "linear": Param("generic", "choice", "linear terms: generic or shared (common minimiser, interpolation)",
                    choices=("generic", "shared")),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    # the separation regime: mu < delta_f << delta_g, every precondition holds
    "bylinkin-separation": {"dim": 8, "mu": 1e-3, "L": 1.0, "delta_f": 0.02, "delta_g": 0.5},
    # interpolation: all parts share the minimiser, so the oracle variances vanish at x*
    "bylinkin-interpolation": {"dim": 8, "mu": 1e-2, "L": 1.0, "delta_f": 0.05, "delta_g": 0.5, "linear": "shared"},
    # the unstated preconditions fail (h_1 and f_1 + g non-convex): validity-boundary tests
    "bylinkin-signed": {"dim": 8, "mu": 1e-2, "L": 1.0, "delta_f": 0.05, "delta_g": 0.5, "perturbation": "signed"},
}


def _check(p: dict) -> None:
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")


def _sym(A: np.ndarray) -> np.ndarray:
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def _perturbation(rng: np.random.Generator, d: int, delta: float, kind: str, bottom: np.ndarray) -> np.ndarray:
    """δ U diag(s) Uᵀ with max|s_i| = 1 attained: spectral norm δ exactly."""
    if kind == "psd":
        s = rng.uniform(0.0, 1.0, d)
        s[int(np.argmax(s))] = 1.0
        U = haar_orthogonal(rng, d)
    elif kind == "mixed":
        # one eigenvalue −δ (on ``bottom``, here the TOP eigenvector of H), the others in [0, 1): the modulus is
        # attained only by the negative eigenvalue, so the signed largest eigenvalue is < δ
        s = rng.uniform(0.0, 1.0, d)
        s[0] = -1.0
        basis = np.column_stack([bottom, rng.standard_normal((d, d - 1))])
        U, r = np.linalg.qr(basis)
        U = U * np.sign(np.diag(r))
    else:
        s = rng.uniform(-1.0, 1.0, d)
        s[0] = -1.0
        basis = np.column_stack([bottom, rng.standard_normal((d, d - 1))])
        U, r = np.linalg.qr(basis)
        U = U * np.sign(np.diag(r))  # first column = ±bottom; the sign does not matter for U diag(s) Uᵀ
    return _sym(delta * (U * s) @ U.T)


def _centred(rng: np.random.Generator, n: int, shape: tuple[int, ...], scale: float) -> np.ndarray:
    X = scale * rng.standard_normal((n,) + shape)
    return X - X.mean(axis=0, keepdims=True)


def build(params: dict, preset: str | None = None) -> Problem:
    d, mu, L = params["dim"], params["mu"], params["L"]
    nf, ng, spread = params["nodes_f"], params["nodes_g"], params["node_spread"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    V = haar_orthogonal(rng, d)
    lam = spectrum(mu, L, d)
    H = _sym((V * lam) @ V.T)
    Hh = _sym((V * np.sqrt(lam)) @ V.T)
    Qw = haar_orthogonal(rng, d)
    W = _sym((Qw * rng.uniform(0.2, 0.8, d)) @ Qw.T)
    Af = _sym(Hh @ W @ Hh)
    Ag = _sym(H - Af)
    if params.get("components", "convex") == "indefinite":
        # §5-6 allow non-convex f and g: the same h = f + g, split with an indefinite S (eigenvalues in [−L, L])
        Qs = haar_orthogonal(rng, d)
        S = _sym((Qs * (L * rng.uniform(-1.0, 1.0, d))) @ Qs.T)
        Af, Ag = _sym(H / 2 + S), _sym(H / 2 - S)
    kind = params["perturbation"]
    bottom = V[:, -1] if kind == "mixed" else V[:, 0]
    Af1 = _sym(Af + _perturbation(rng, d, params["delta_f"], kind, bottom))
    Ag1 = _sym(Ag + _perturbation(rng, d, params["delta_g"], kind, bottom))
    if params["linear"] == "shared":
        xo = rng.standard_normal(d)
        bf, bg, bf1, bg1 = Af @ xo, Ag @ xo, Af1 @ xo, Ag1 @ xo
    else:
        xf, xg = rng.standard_normal(d), rng.standard_normal(d)
        bf, bg = Af @ xf, Ag @ xg
        bf1 = bf + 0.1 * rng.standard_normal(d)
        bg1 = bg + 0.1 * rng.standard_normal(d)
    # nodes around the group means (the means are exact: the deviations are centred)
    Qf = Af[None] + _sym(_centred(rng, nf, (d, d), spread)) if nf > 1 else Af[None].copy()
    Qg = Ag[None] + _sym(_centred(rng, ng, (d, d), spread)) if ng > 1 else Ag[None].copy()
    Bf = bf[None] + (_centred(rng, nf, (d,), spread) if nf > 1 else 0.0)
    Bg = bg[None] + (_centred(rng, ng, (d,), spread) if ng > 1 else 0.0)
    Q = 2.0 * np.concatenate([Qf, Qg])
    b = 2.0 * np.concatenate([Bf, Bg])
    weights = np.concatenate([np.full(nf, 0.5 / nf), np.full(ng, 0.5 / ng)])
    problem = Problem(
        family="separation", preset=preset, params=params, shape=(d,), weights=weights,
        datafit=DenseQuadratic(Q=Q, b=b, c=np.zeros(nf + ng)), penalty=Zero(), sampling="gaussian",
        noise_std=0.0, description="two-group quadratic federation with prescribed delta_f, delta_g, mu",
        extras={"group": np.concatenate([np.zeros(nf, int), np.ones(ng, int)]),
                "A_f1": Af1, "b_f1": bf1, "A_g1": Ag1, "b_g1": bg1},
    )
    sp = split(problem)
    for name, want, got in (("mu", mu, sp.mu), ("delta_f", params["delta_f"], sp.delta_f),
                            ("delta_g", params["delta_g"], sp.delta_g)):
        if abs(got - want) > BUILD_TOLERANCE * want:
            raise InputError(f"built instance has {name}={got!r}, not the requested {want!r}; "
                             f"expected agreement within {BUILD_TOLERANCE:g} (increase dim or change the seed)")
    return problem


@dataclass(frozen=True, eq=False)
class Split:
    """The group means f, g, the server's f_1, g_1 and their exact constants (all from the node data).

    Quadratics φ(x) = ½xᵀA x − bᵀx; ``H = A_f + A_g``, ``H1 = A_f1 + A_g1``; ``xstar = H⁻¹(b_f + b_g)``.
    """

    A_f: np.ndarray
    b_f: np.ndarray
    A_g: np.ndarray
    b_g: np.ndarray
    A_f1: np.ndarray
    b_f1: np.ndarray
    A_g1: np.ndarray
    b_g1: np.ndarray

    def __post_init__(self) -> None:
        ev = np.linalg.eigvalsh
        H = _sym(self.A_f + self.A_g)
        lam, vec = np.linalg.eigh(H)
        values = {
            "H": H, "b": self.b_f + self.b_g, "H1": _sym(self.A_f1 + self.A_g1), "b1": self.b_f1 + self.b_g1,
            "mu": float(lam[0]), "L": float(lam[-1]), "bottom": vec[:, 0].copy(),
            "L_f": float(ev(self.A_f)[-1]), "L_g": float(ev(self.A_g)[-1]),
            "delta_f": float(np.max(np.abs(ev(_sym(self.A_f1 - self.A_f))))),
            "delta_g": float(np.max(np.abs(ev(_sym(self.A_g1 - self.A_g))))),
            "lambda_min_g": float(ev(self.A_g)[0]),
            "lambda_min_h1": float(ev(_sym(self.A_f1 + self.A_g1))[0]),
            "lambda_min_f1_plus_g": float(ev(_sym(self.A_f1 + self.A_g))[0]),
        }
        values["xstar"] = np.linalg.solve(H, values["b"])
        for k, v in values.items():
            object.__setattr__(self, k, v)

    # gradients, vectorized over replicas: X (R, d) -> (R, d)
    def grad_f(self, X: np.ndarray) -> np.ndarray:
        return X @ self.A_f - self.b_f

    def grad_g(self, X: np.ndarray) -> np.ndarray:
        return X @ self.A_g - self.b_g

    def grad_f1(self, X: np.ndarray) -> np.ndarray:
        return X @ self.A_f1 - self.b_f1

    def grad_g1(self, X: np.ndarray) -> np.ndarray:
        return X @ self.A_g1 - self.b_g1

    def gap(self, X: np.ndarray) -> np.ndarray:
        """h(x) − h* = ½(x − x*)ᵀH(x − x*) (no cancellation)."""
        E = X - self.xstar
        return 0.5 * np.einsum("...i,ij,...j->...", E, self.H, E)

    def certificate(self) -> float:
        """Certified gap of the closed-form optimum: ‖∇h(x*)‖²/(2μ)."""
        r = self.H @ self.xstar - self.b
        return float(r @ r / (2 * self.mu))

    def constants(self) -> dict[str, Any]:
        """Exact constants and precondition flags (JSON-friendly)."""
        return {
            "mu": self.mu, "L": self.L, "L_f": self.L_f, "L_g": self.L_g, "delta_f": self.delta_f,
            "delta_g": self.delta_g, "lambda_min_g": self.lambda_min_g, "lambda_min_h1": self.lambda_min_h1,
            "lambda_min_f1_plus_g": self.lambda_min_f1_plus_g,
            "assumption2": bool(self.mu < self.delta_f < self.delta_g),
            "g_convex": bool(self.lambda_min_g >= 0), "h1_convex": bool(self.lambda_min_h1 >= 0),
            "f1_plus_g_convex": bool(self.lambda_min_f1_plus_g >= 0),
        }


_SPLITS: dict[str, Split] = {}


def split(problem: Problem) -> Split:
    """The :class:`Split` of a ``separation`` problem (group means recomputed from the client data; cached)."""
    if problem.family != "separation":
        raise InputError(f"problem family {problem.family!r} has no two-group split; expected a separation problem")
    h = hashlib.sha256(problem.fingerprint.encode())
    for name in ("A_f1", "b_f1", "A_g1", "b_g1"):  # the server's data is not part of the client fingerprint
        h.update(np.ascontiguousarray(problem.extras[name], dtype=float).tobytes())
    key = h.hexdigest()
    if key not in _SPLITS:
        group = np.asarray(problem.extras["group"])
        fit = problem.datafit
        Qh, bh = 0.5 * fit.Q, 0.5 * fit.b
        ex = problem.extras
        _SPLITS[key] = Split(
            A_f=_sym(Qh[group == 0].mean(axis=0)), b_f=bh[group == 0].mean(axis=0),
            A_g=_sym(Qh[group == 1].mean(axis=0)), b_g=bh[group == 1].mean(axis=0),
            A_f1=np.asarray(ex["A_f1"]), b_f1=np.asarray(ex["b_f1"]), A_g1=np.asarray(ex["A_g1"]),
            b_g1=np.asarray(ex["b_g1"]),
        )
    return _SPLITS[key]


FAMILY = Family("separation", "two-group quadratic federations with prescribed delta_f, delta_g, mu (Bylinkin et al.)",
                PARAMETERS, PRESETS, build, (_check,))

"""The "Synthetic" federation of Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient
Algorithms" (ICPP 2020, §5): multinomial logistic regression on data generated like the Synthetic(α, β) sets of
Li et al., "Federated Optimization in Heterogeneous Networks" (MLSys 2020).

**What the paper specifies** (§5): a "Synthetic" data set with statistical heterogeneity "as in [16, 26]"; 100 devices
for the convex model (multinomial logistic regression); sample sizes following a power law as in Li et al.; "each
device contains only two different labels over 10 labels"; training sizes per device in [37, 3277]; a random 75/25
train/test split.  Fig. 4 (the μ trade-off) runs FedProxVR on it.

**What we chose** (the paper leaves it open; each choice is a parameter):

* the generator of Li et al. (d = 60 features, C = 10 classes): device k draws u_k ~ N(0, α²) and B_k ~ N(0, β²)
  (``alpha``, ``beta_syn``; standard deviations, as numpy's generator of Li et al. reads N(0, α)), a model
  W_k ∈ ℝ^{d×C}, b_k ∈ ℝ^C with entries ~ N(u_k, 1), a feature mean v_k ∈ ℝ^d with entries ~ N(B_k, 1), and features
  x ~ N(v_k, Σ), Σ = diag(j^{−1.2}); default α = β = 0 (Synthetic(0, 0));
* the paper's two labels per device: device k draws two distinct labels {c₁, c₂} uniformly and labels x by the larger
  of its two logits (xᵀW_k + b_k)_{c₁}, (xᵀW_k + b_k)_{c₂} (Li et al. take the argmax over all C classes);
* power-law sizes as in Li et al.: D_k^{tot} = ⌊LogNormal(4, 2)⌋ + 50 samples, of which the training part
  D_k = ⌊0.75·D_k^{tot}⌋ is clipped to the paper's range [37, 3277]; only training samples are generated (the claims
  are about the training loss).  ``scale`` ∈ (0, 1] shrinks every D_k to max(2, round(scale·D_k)) for verification;
* an ℓ2 term (ρ/2)‖w‖² in every sample loss (``ridge`` ρ > 0; the paper has none): F̄ is then ρ-strongly convex,
  which gives a unique optimum and its certificate.

Per-sample loss (x̃ = (x, 1) ∈ ℝ^{d+1}, model w = vec(Ω), Ω ∈ ℝ^{(d+1)×C} row-major, s(z) the softmax):

    f_i(w) = −log s(Ωᵀx̃_i)_{y_i} + (ρ/2)‖w‖²,   ∇f_i(w) = vec(x̃_i (s(Ωᵀx̃_i) − e_{y_i})ᵀ) + ρw,
    F_n = (1/D_n) Σ_{i∈𝒟_n} f_i,   F̄ = Σ_n (D_n/D) F_n = (1/D) Σ_i f_i   ((1), (2) of Dinh et al.).

Constants: ∇²f_i(w) = (diag(s) − ssᵀ) ⊗ x̃_ix̃_iᵀ + ρI and λ_max(diag(s) − ssᵀ) ≤ ½ (approached when two logits
dominate equally), so **L = max_i ‖x̃_i‖²/2 + ρ is the exact supremum over w of ‖∇²f_i(w)‖₂** (the smallest constant
valid for (3) on all of ℝ^{(d+1)C}); λ = 0 (every F_n is convex, even ρ-strongly; read as λ → 0⁺).  Assumption (5)
fails (the devices' minimisers differ): σ_n = ∞ and Theorem 1 does not apply — claims on this instance are the
paper's qualitative §5 claims.  The reference optimum (:func:`reference`) is Newton's method with conjugate-gradient
steps, certified by strong convexity: F̄(w) − F̄* ≤ ‖∇F̄(w)‖²/(2ρ).

Data are stored padded: X (K, n_max, d + 1) and y (K, n_max) with rows beyond D_k zero (never sampled, masked in
full gradients); all values and gradients are vectorised over replicas and devices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param, resolve
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import Datafit

__all__ = ["SoftmaxFiniteSum", "SoftmaxDatafit", "SyntheticReference", "make", "reference", "FAMILY", "PRESETS",
           "PAPER_SIZE_RANGE"]

#: training samples per device stated by the paper for "Synthetic" (§5)
PAPER_SIZE_RANGE = (37, 3277)


def _softmax(Z: np.ndarray) -> np.ndarray:
    Z = Z - Z.max(axis=-1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=-1, keepdims=True)


@dataclass(frozen=True, eq=False)
class SoftmaxFiniteSum:
    """Per-sample softmax losses of every device (module docstring): X (K, n, p), y (K, n), sizes (K,)."""

    X: np.ndarray
    y: np.ndarray
    sizes: np.ndarray
    classes: int
    ridge: float
    shifted: bool = field(default=False)

    @property
    def samples(self) -> int:
        """Padded rows per device (the largest D_n)."""
        return int(self.X.shape[1])

    @property
    def features(self) -> int:
        return int(self.X.shape[2])

    @property
    def dim(self) -> int:
        return self.features * self.classes

    @cached_property
    def mask(self) -> np.ndarray:
        return np.arange(self.samples)[None, :] < self.sizes[:, None]

    @cached_property
    def onehot(self) -> np.ndarray:
        return np.eye(self.classes)[self.y] * self.mask[..., None]

    @cached_property
    def weights(self) -> np.ndarray:
        """p_n = D_n/D."""
        return self.sizes / self.sizes.sum()

    @cached_property
    def L(self) -> float:
        """max_i ‖x̃_i‖²/2 + ρ: the supremum over w of ‖∇²f_i(w)‖₂ (exact as a supremum; module docstring)."""
        return float(np.max(np.sum(self.X * self.X, axis=-1)[self.mask])) / 2 + self.ridge

    def _omega(self, W: np.ndarray) -> np.ndarray:
        return W.reshape(W.shape[:-1] + (self.features, self.classes))

    # ---- values and gradients, vectorised over leading axes and devices -------------------------------------
    def client_values(self, w: np.ndarray) -> np.ndarray:
        """F_n of every device at one point per leading index: w (..., P) -> (..., K)."""
        w = np.asarray(w, dtype=float)
        Z = np.einsum("knp,...pc->...knc", self.X, self._omega(w))
        Zmax = Z.max(axis=-1, keepdims=True)
        lse = np.log(np.exp(Z - Zmax).sum(axis=-1)) + Zmax[..., 0]
        picked = np.sum(Z * self.onehot, axis=-1)
        loss = np.sum((lse - picked) * self.mask, axis=-1) / self.sizes
        return loss + 0.5 * self.ridge * np.sum(w * w, axis=-1)

    def full_gradients(self, W: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """∇F_n at per-(replica, device) points: W (R, m, P), clients (R, m) -> (R, m, P)."""
        Xc = self.X[clients]  # (R, m, n, p)
        S = _softmax(np.einsum("rmnp,rmpc->rmnc", Xc, self._omega(W))) * self.mask[clients][..., None]
        S -= self.onehot[clients]
        G = np.einsum("rmnp,rmnc->rmpc", Xc, S) / self.sizes[clients][..., None, None]
        return G.reshape(W.shape) + self.ridge * W

    def sample_gradients(self, W: np.ndarray, clients: np.ndarray, idx: np.ndarray,
                         *others: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        """(1/B) Σ_{i∈I} ∇f_i at W (R, m, P) for minibatches idx (R, m, B); with ``others`` the same minibatch at
        every further point (a tuple), as :func:`fedrates.solvers.problems.finite_sum.sample_gradients`."""
        Xb = self.X[clients[..., None], idx]  # (R, m, B, p)
        Yb = self.onehot[clients[..., None], idx]  # (R, m, B, C)
        B = idx.shape[-1]
        out = []
        for P in (W, *others):
            S = _softmax(Xb @ self._omega(P)) - Yb
            out.append((np.swapaxes(Xb, -1, -2) @ S).reshape(P.shape) / B + self.ridge * P)
        return out[0] if not others else tuple(out)

    # ---- the global objective F̄ = (1/D) Σ_i f_i -------------------------------------------------------------
    @cached_property
    def _flat(self) -> tuple[np.ndarray, np.ndarray]:
        return self.X[self.mask], self.onehot[self.mask]

    def objective(self, w: np.ndarray) -> float:
        return float(self.weights @ self.client_values(w))

    def gradient(self, w: np.ndarray) -> np.ndarray:
        X, Y = self._flat
        S = _softmax(X @ self._omega(w)) - Y
        return (X.T @ S).reshape(-1) / X.shape[0] + self.ridge * w

    def hessian_vector(self, w: np.ndarray, v: np.ndarray) -> np.ndarray:
        """∇²F̄(w)v = (1/D) Σ_i x̃_i (diag(s_i) − s_is_iᵀ)(Vᵀx̃_i) + ρv."""
        X, _ = self._flat
        S = _softmax(X @ self._omega(w))
        U = X @ self._omega(v)
        M = S * U - S * np.sum(S * U, axis=-1, keepdims=True)
        return (X.T @ M).reshape(-1) / X.shape[0] + self.ridge * v


class SoftmaxDatafit(Datafit):
    """The generic datafit view (client values and gradients) of a :class:`SoftmaxFiniteSum` (not quadratic:
    ``hessians``/``mean_quadratic`` are not defined)."""

    def __init__(self, fs: SoftmaxFiniteSum) -> None:
        self.fs = fs
        self.clients = int(fs.X.shape[0])
        self.dim = fs.dim

    def client_values(self, w: np.ndarray) -> np.ndarray:
        return self.fs.client_values(w)

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        """∇F_k(W_k): W (..., K, P) -> (..., K, P)."""
        W = np.asarray(W, dtype=float)
        Wr = W.reshape((-1,) + W.shape[-2:])
        clients = np.broadcast_to(np.arange(self.clients), Wr.shape[:2])
        return self.fs.full_gradients(Wr, clients).reshape(W.shape)


# ---------------------------------------------------------------------------------------------- generator
PARAMETERS = {
    "clients": Param(100, "int", "number of devices N >= 2 (paper: 100)", low=2),
    "dim": Param(60, "int", "features d >= 1 (Li et al.: 60)", low=1),
    "classes": Param(10, "int", "classes C >= 2 (paper: 10)", low=2),
    "alpha": Param(0.0, "float", "std alpha >= 0 of the device-model means u_k (Synthetic(alpha, beta))", low=0.0),
    "beta_syn": Param(0.0, "float", "std beta >= 0 of the feature means B_k (Synthetic(alpha, beta))", low=0.0),
    "scale": Param(1.0, "float", "fraction 0 < scale <= 1 of the paper's sample sizes (verification)", low=0.0,
                   low_inclusive=False),
    "ridge": Param(1e-2, "float", "l2 weight rho > 0 added to every sample loss (not in the paper)", low=0.0,
                   low_inclusive=False),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    "dinh-synthetic": {},
    # the verification instance: 20 devices, 2% of the paper's sizes (D_n in [2, 66]), d = 20, C = 10
    "dinh-synthetic-small": {"clients": 20, "dim": 20, "scale": 0.02, "ridge": 0.05},
}


def _check(p: dict) -> None:
    if p["scale"] > 1:
        raise InputError(f"parameter scale={p['scale']!r} is out of range; expected 0 < scale <= 1")


def sizes(params: dict) -> np.ndarray:
    """Training samples per device: power law as Li et al., clipped to the paper's [37, 3277], then scaled."""
    g = np.random.default_rng(np.random.SeedSequence(params["seed"]).spawn(1)[0])
    total = np.floor(g.lognormal(4.0, 2.0, params["clients"])).astype(np.int64) + 50
    train = np.clip(np.floor(0.75 * total).astype(np.int64), *PAPER_SIZE_RANGE)
    return np.maximum(2, np.round(params["scale"] * train).astype(np.int64))


def build(params: dict, preset: str | None = None) -> Problem:
    K, d, C = params["clients"], params["dim"], params["classes"]
    D = sizes(params)
    n = int(D.max())
    streams = np.random.SeedSequence(params["seed"]).spawn(K + 1)[1:]  # one generator per device
    X = np.zeros((K, n, d + 1))
    y = np.zeros((K, n), dtype=np.int64)
    sd = np.arange(1, d + 1, dtype=float) ** -0.6  # Σ^{1/2} = diag(j^{-1.2})^{1/2}
    for k, s in enumerate(streams):  # data generation only: one stream per device
        g = np.random.default_rng(s)
        u, Bk = g.normal(0.0, params["alpha"]), g.normal(0.0, params["beta_syn"])
        Wk, bk = g.normal(u, 1.0, (d, C)), g.normal(u, 1.0, C)
        vk = g.normal(Bk, 1.0, d)
        labels = g.choice(C, 2, replace=False)
        x = vk + sd * g.standard_normal((D[k], d))
        logits = x @ Wk[:, labels] + bk[labels]
        X[k, :D[k], :d], X[k, :D[k], d] = x, 1.0
        y[k, :D[k]] = labels[np.argmax(logits, axis=1)]
    fs = SoftmaxFiniteSum(X=X, y=y, sizes=D, classes=C, ridge=params["ridge"])
    return Problem(family="dinh_synthetic", preset=preset, params=params, shape=(fs.dim,), weights=fs.weights,
                   datafit=SoftmaxDatafit(fs), penalty=Zero(lam=0.0), sampling="empirical",
                   description="Synthetic(alpha, beta) multinomial logistic regression, two labels per device "
                               "(Dinh et al. 2020, Sec. 5)",
                   extras={"finite_sum": fs})


FAMILY = Family(
    name="dinh_synthetic",
    description="the Synthetic federation of Dinh et al. 2020 (Sec. 5): softmax regression, power-law sizes, "
                "two labels per device, l2 term rho",
    parameters=PARAMETERS, presets=PRESETS, builder=build, checks=(_check,),
)


def make(preset: str | None = None, **params: Any) -> Problem:
    """Build the Synthetic federation from defaults, an optional preset and overrides (InputError on bad values)."""
    return build(resolve(FAMILY, preset, params), preset)


# ---------------------------------------------------------------------------------------------- reference
@dataclass(frozen=True)
class SyntheticReference:
    """Certified optimum: ``gap`` = ‖∇F̄(w)‖²/(2ρ) ≥ F̄(w) − F̄* (ρ-strong convexity)."""

    w: np.ndarray
    value: float
    gap: float
    iterations: int


def reference(problem: Problem, tol: float = 1e-13, max_iter: int = 100) -> SyntheticReference:
    """Newton's method with conjugate-gradient directions (Hessian-vector products) and Armijo backtracking on F̄,
    from 0, until the strong-convexity certificate ‖∇F̄‖²/(2ρ) ≤ tol·max(1, |F̄|)."""
    from scipy.sparse.linalg import LinearOperator, cg

    fs = problem.extras["finite_sum"]
    w = np.zeros(fs.dim)
    f = fs.objective(w)
    for it in range(max_iter):
        g = fs.gradient(w)
        gap = float(g @ g) / (2 * fs.ridge)
        if gap <= tol * max(1.0, abs(f)):
            return SyntheticReference(w=w, value=f, gap=gap, iterations=it)
        H = LinearOperator((fs.dim, fs.dim), matvec=lambda v, w=w: fs.hessian_vector(w, v))
        step, _ = cg(H, -g, rtol=1e-10, atol=0.0, maxiter=10 * fs.dim)
        t = 1.0
        while True:
            cand = w + t * step
            fc = fs.objective(cand)
            if fc <= f + 1e-4 * t * float(g @ step) or t < 1e-12:
                break
            t *= 0.5
        w, f = cand, fc
    g = fs.gradient(w)
    raise ArithmeticError(f"Newton did not certify the optimum: gap {float(g @ g) / (2 * fs.ridge):.3g}")

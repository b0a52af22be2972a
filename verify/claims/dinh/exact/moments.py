"""Exact first and second moments of FedProxVR (Dinh et al., ICPP 2020, Algorithm 1) on realisable quadratics.

Written from the paper's update rules, independently of :mod:`fedrates.solvers.algorithms._fedproxvr`, to give the
claims exact predictions.

**Why it is exact.**  On a finite-sum federation whose sample gradients all vanish at c = w*
(:mod:`fedrates.solvers.problems.finite_sum`: ∇f_i(w) = Q_i z with z = w − c), one local step is linear in the
local state s_t with a random matrix that depends only on the fresh minibatch I_t:

* SVRG (8b) / SGD: s_t = (z_t, z̄);                  z_{t+1} = κ[(I − ηQ_I)z_t + η(Q_I − A_n + μI)z̄]  (SVRG)
                                                      z_{t+1} = κ[(I − ηQ_I)z_t + ημ z̄]              (SGD)
* SARAH (8a):       s_t = (z_t, z_{t−1}, v_{t−1}, z̄); v_t = Q_I(z_t − z_{t−1}) + v_{t−1},
                                                      z_{t+1} = κ(z_t − ηv_t + ημz̄)

with κ = 1/(1 + ημ) (the prox (10)), Q_I = (1/B)Σ_{i∈I}Q_i (i.i.d. uniform indices), s_1 = G z̄ from
z_1 = (I − κηA_n)z̄ and v_0 = A_n z̄.  Since I_t is independent of s_t, E[s_{t+1}] = M(A_n)E[s_t] and
E[s_{t+1}s_{t+1}ᵀ] = M(A_n)Σ_tM(A_n)ᵀ + (1/B)·mean_i Δ_iΣ_tΔ_iᵀ with Δ_i = M(Q_i) − M(A_n) (M is affine in Q).
The output w^{(t')}, t' ~ U{0..τ} independent of the path, has E[z_out z_outᵀ] = (1/(τ+1))Σ_t E[z_t z_tᵀ].  Devices
are independent given z̄, so the server point z̄' = Σ_n p_n z_out^n has E z̄' = P̄ E z̄ (P̄ = Σ p_n P_n) and
E z̄'z̄'ᵀ = P̄ S P̄ᵀ + Σ_n p_n²(𝒮_n(S) − P_n S P_nᵀ), a linear map of S = E z̄z̄ᵀ: the round is a d²×d² matrix and
multi-round moments are its powers.  With exact gradients Δ_i = 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from fedrates.solvers.problems.finite_sum import FiniteSum

__all__ = ["FedProxVRMoments"]


@dataclass(frozen=True)
class FedProxVRMoments:
    """Exact moments of FedProxVR on a realisable finite-sum quadratic.

    Args:
        fs: the per-sample structure (sample Hessians Q_i = x_ix_iᵀ + E_n; all sample gradients vanish at ``fs.c``
            — checked by :meth:`check_realisable`).
        weights: p_n (K,).
        estimator: ``svrg``, ``sarah`` or ``sgd``.
        eta, mu, tau, batch: the algorithm's η = 1/(βL), μ, τ, B.
        exact: exact gradients (no sampling noise).
        output_rule: ``random`` (t' ~ U{0..τ}) or ``last`` (w^{(τ)}).
    """

    fs: FiniteSum
    weights: np.ndarray
    estimator: str
    eta: float
    mu: float
    tau: int
    batch: int = 1
    exact: bool = False
    output_rule: str = "random"

    # ---- structure --------------------------------------------------------------------------------------------
    @property
    def d(self) -> int:
        return int(self.fs.X.shape[2])

    @cached_property
    def Q(self) -> np.ndarray:
        return self.fs.sample_hessians  # (K, n, d, d)

    @cached_property
    def A(self) -> np.ndarray:
        return self.Q.mean(axis=1)  # (K, d, d)

    def check_realisable(self, tol: float = 1e-9) -> None:
        """Every sample gradient vanishes at c (else the moments would need affine terms)."""
        g = np.einsum("kid,kid->ki", self.fs.X, np.broadcast_to(self.fs.c, self.fs.X.shape)) - self.fs.y
        if np.max(np.abs(g)) > tol * (1 + np.max(np.abs(self.fs.y))):
            raise ValueError("sample gradients do not vanish at the centre: the instance is not realisable")

    @property
    def blocks(self) -> int:
        return 4 if self.estimator == "sarah" else 2

    def transition(self, Qm: np.ndarray) -> np.ndarray:
        """M(Q) for a stack of matrices Q (..., d, d) -> (..., bd, bd); affine in Q (the constant part uses A)."""
        d, b = self.d, self.blocks
        eta, mu = self.eta, self.mu
        kappa = 1.0 / (1.0 + eta * mu)
        eye = np.broadcast_to(np.eye(d), Qm.shape)
        M = np.zeros(Qm.shape[:-2] + (b * d, b * d))
        zb = slice((b - 1) * d, b * d)
        M[..., zb, zb] = eye
        if self.estimator == "sarah":
            M[..., 0:d, 0:d] = kappa * (eye - eta * Qm)
            M[..., 0:d, d:2 * d] = kappa * eta * Qm
            M[..., 0:d, 2 * d:3 * d] = -kappa * eta * eye
            M[..., 0:d, zb] = kappa * eta * mu * eye
            M[..., d:2 * d, 0:d] = eye
            M[..., 2 * d:3 * d, 0:d] = Qm
            M[..., 2 * d:3 * d, d:2 * d] = -Qm
            M[..., 2 * d:3 * d, 2 * d:3 * d] = eye
            return M
        M[..., 0:d, 0:d] = kappa * (eye - eta * Qm)
        if self.estimator == "svrg":
            A = self.A.reshape(self.A.shape[:1] + (1,) * (Qm.ndim - 3) + self.A.shape[1:]) if Qm.ndim > 3 else self.A
            M[..., 0:d, zb] = kappa * eta * (Qm - A + mu * eye)
        else:
            M[..., 0:d, zb] = kappa * eta * mu * eye
        return M

    @cached_property
    def _maps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(G (K, bd, d), M̄ (K, bd, bd), Δ (K, n, bd, bd))."""
        d, b = self.d, self.blocks
        K = self.A.shape[0]
        kappa = 1.0 / (1.0 + self.eta * self.mu)
        G = np.zeros((K, b * d, d))
        G[:, 0:d] = np.eye(d) - kappa * self.eta * self.A
        G[:, (b - 1) * d:] = np.eye(d)
        if self.estimator == "sarah":
            G[:, d:2 * d] = np.eye(d)
            G[:, 2 * d:3 * d] = self.A
        Mbar = self.transition(self.A)
        Delta = np.zeros((K, 1, b * d, b * d)) if self.exact else self.transition(self.Q) - Mbar[:, None]
        return G, Mbar, Delta

    # ---- one round, batched over second-moment inputs ---------------------------------------------------------
    def local_states(self, S: np.ndarray) -> list[np.ndarray]:
        """State second moments E[s_t s_tᵀ] for t = 1..τ given E z̄z̄ᵀ = S: S (..., d, d) -> list of (K, ..., bd, bd)."""
        G, Mbar, Delta = self._maps
        lead = S.shape[:-2]
        Gx = G.reshape(G.shape[:1] + (1,) * len(lead) + G.shape[1:])
        Sig = Gx @ S[None] @ np.swapaxes(Gx, -1, -2)
        out = [Sig]
        Mx = Mbar.reshape(Mbar.shape[:1] + (1,) * len(lead) + Mbar.shape[1:])
        n = Delta.shape[1]
        for _ in range(1, self.tau):
            noise = np.einsum("kiab,k...bc,kidc->k...ad", Delta, Sig, Delta) / (n * self.batch)
            Sig = Mx @ Sig @ np.swapaxes(Mx, -1, -2) + noise
            out.append(Sig)
        return out

    def local_means(self) -> list[np.ndarray]:
        """E[s_t] = P_t z̄ for t = 1..τ: list of (K, bd, d)."""
        G, Mbar, _ = self._maps
        P = [G]
        for _ in range(1, self.tau):
            P.append(Mbar @ P[-1])
        return P

    @cached_property
    def output_mean_maps(self) -> np.ndarray:
        """P_n with E[z_out^n | z̄] = P_n z̄: (K, d, d)."""
        d = self.d
        P = self.local_means()
        if self.output_rule == "last":
            return P[-1][:, :d]
        return (np.eye(d)[None] + sum(p[:, :d] for p in P)) / (self.tau + 1)

    def output_second(self, S: np.ndarray) -> np.ndarray:
        """𝒮_n(S) = E[z_out z_outᵀ] per device given E z̄z̄ᵀ = S (..., d, d) -> (K, ..., d, d)."""
        d = self.d
        states = self.local_states(S)
        if self.output_rule == "last":
            return states[-1][..., :d, :d]
        K = self.A.shape[0]
        return (np.broadcast_to(S, (K,) + S.shape) + sum(s[..., :d, :d] for s in states)) / (self.tau + 1)

    @cached_property
    def round_operator(self) -> tuple[np.ndarray, np.ndarray]:
        """(P̄ (d, d), 𝒯 (d², d²)): E z̄' = P̄ E z̄ and vec(E z̄'z̄'ᵀ) = 𝒯 vec(E z̄z̄ᵀ)."""
        d = self.d
        p = np.asarray(self.weights, dtype=float)
        basis = np.eye(d * d).reshape(d * d, d, d)
        basis = 0.5 * (basis + np.swapaxes(basis, -1, -2))  # symmetric inputs suffice (S is symmetric)
        Pn = self.output_mean_maps
        Pbar = np.einsum("k,kab->ab", p, Pn)
        Sn = self.output_second(basis)  # (K, d², d, d)
        mean_part = Pbar @ basis @ Pbar.T
        own = Sn - Pn[:, None] @ basis[None] @ np.swapaxes(Pn, -1, -2)[:, None]
        out = mean_part + np.einsum("k,kjab->jab", p**2, own)
        # column j of 𝒯 is vec of the image of the j-th (symmetrised) basis matrix
        return Pbar, out.reshape(d * d, d * d).T

    def rounds(self, z0: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
        """Exact (E z̄^{(s)}, E z̄^{(s)}z̄^{(s)ᵀ}) for s = 0..T from a deterministic z̄⁰: shapes (T+1, d), (T+1, d, d)."""
        Pbar, op = self.round_operator
        d = self.d
        m = [np.asarray(z0, dtype=float)]
        S = [np.outer(z0, z0)]
        for _ in range(T):
            m.append(Pbar @ m[-1])
            S.append((op @ S[-1].reshape(-1)).reshape(d, d))
        return np.array(m), np.array(S)

    # ---- per-device quantities of Lemma 1 ---------------------------------------------------------------------
    def surrogate_grad_sq(self, z0: np.ndarray) -> np.ndarray:
        """E‖∇J_n(w_n)‖² per device for a deterministic z̄ (= z0): (K,).  ∇J_n(w) = (A_n + μI)z − μz̄."""
        d, b = self.d, self.blocks
        K = self.A.shape[0]
        states = self.local_states(np.outer(z0, z0))
        C = np.zeros((K, d, b * d))
        C[:, :, :d] = self.A + self.mu * np.eye(d)
        C[:, :, (b - 1) * d:] = -self.mu * np.eye(d)
        per_t = [np.einsum("kab,kbc,kac->k", C, s, C) for s in states]
        first = np.sum((self.A @ z0) ** 2, axis=-1)  # t = 0: ∇J_n(w̄) = ∇F_n(w̄)
        if self.output_rule == "last":
            return per_t[-1]
        return (first + sum(per_t)) / (self.tau + 1)

    def estimator_errors(self, z0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(E‖∇F_n(w_t) − v_t‖², step term) for t = 1..τ−1 per device, deterministic z̄ = z0: shapes (K, τ−1).

        The error is exact: v_t − ∇F_n(w_t) = (Q_I − A_n)(z_t − z̄) (SVRG) or (Q_I − A_n)(z_t − z_{t−1}) + e_{t−1}
        (SARAH, e_0 = 0) with I independent of the state.  The step term is what (35) and (33) multiply by L²:
        SVRG E‖w_t − w̄‖², SARAH Σ_{j=1}^{t} E‖w_j − w_{j−1}‖²."""
        d, b = self.d, self.blocks
        states = self.local_states(np.outer(z0, z0))
        Dev = self.Q - self.A[:, None]  # (K, n, d, d)
        n = Dev.shape[1]
        errs, bounds = [], []
        carry = np.zeros(self.A.shape[0])
        steps_sum = np.zeros(self.A.shape[0])
        for t in range(1, self.tau):
            Sig = states[t - 1]  # state at time t (s_t)
            if self.estimator == "sarah":
                # z_t − z_{t−1}: blocks 0 and 1
                Kmat = np.concatenate([np.eye(d), -np.eye(d), np.zeros((d, 2 * d))], axis=1)
            else:
                Kmat = np.concatenate([np.eye(d)] + [np.zeros((d, d))] * (b - 2) + [-np.eye(d)], axis=1)
            D = Kmat @ Sig @ Kmat.T  # (K, d, d)
            fresh = np.einsum("kiab,kbc,kiac->k", Dev, D, Dev) / (n * self.batch)
            if self.estimator == "sarah":
                carry = carry + fresh
                steps_sum = steps_sum + np.trace(D, axis1=-2, axis2=-1)
                errs.append(carry.copy())
                bounds.append(steps_sum.copy())
            elif self.estimator == "svrg":
                errs.append(fresh)
                bounds.append(np.trace(D, axis1=-2, axis2=-1))
            else:
                raise ValueError("estimator errors are defined for svrg and sarah")
        return np.array(errs).T, np.array(bounds).T

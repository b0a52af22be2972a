"""The mutual-similarity graph of Buttaci & Calafiore, "Aiding Global Convergence in Federated Learning via Local
Perturbation and Mutual Similarity Information" (Def. 1–2 and Algorithm 1).

* **Message** of client i: the first principal component of its local dataset by *uncentered, unscaled* PCA, i.e.
  the top right-singular vector of the raw data matrix X_i (N_i × D), equivalently the top eigenvector of X_iᵀX_i.
  A singular vector is defined up to sign while Def. 1 is sign-sensitive; :func:`canonical_sign` fixes it (the
  entry of largest magnitude is made positive, the first such entry on ties), so that the graph does not depend on
  the arbitrary sign an SVD routine returns (a choice the paper does not make; m and −m give mis and 1 − mis).
* **Misalignment** (Def. 1): mis(i, n) = (1 − m_iᵀm_n)/2 = ‖m_i − m_n‖²/4 ∈ [0, 1].
* **Adjacency** (Def. 2): [A]_in = −ln mis(i, n) · 1{i ≠ n} on the complete undirected graph.  Identical messages
  give mis = 0 and A = +∞; mis is clipped from below at ``clip`` (default 1e-12, so A ≤ 27.6) and the number of
  clipped pairs is recorded (:attr:`Graph.clipped`).  Opposite messages give A = 0 (no edge).
* **Similarity weights** (Algorithm 1): p_in = [A]_in / (𝟏ᵀA𝟏), symmetric, p_ii = 0, Σ_{i,n} p_in = 1.
* **Degrees** p_i = Σ_n p_in (Σ_i p_i = 1): both the neighbour normaliser of u_t^i and the aggregation weights of
  the "Adjacency scheme" (Lemma 1 needs exactly these).

Refused (:class:`~fedrates.solvers.errors.InputError`, one line): non-finite or zero messages, fewer than two
clients, a graph with no edge (𝟏ᵀA𝟏 = 0), and a client of degree 0 (every other message is exactly its opposite),
since u_t^i divides by p_i.  The number of connected components of the edge set {A_in > 0} is reported; a graph of
several components with positive degrees is valid for Lemma 1 (which needs no connectivity), and
:func:`build_graph` refuses it only when ``require_connected`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedrates.solvers.errors import InputError

__all__ = ["Graph", "canonical_sign", "messages", "misalignment", "adjacency", "build_graph", "laplacian",
           "DEFAULT_CLIP"]

#: lower clip of the misalignment (identical messages): A_in ≤ −ln(1e-12) ≈ 27.6
DEFAULT_CLIP = 1e-12


@dataclass(frozen=True, eq=False)
class Graph:
    """A similarity graph: messages (C, D), misalignment, adjacency, weights p_in (C, C), degrees p_i (C,)."""

    messages: np.ndarray
    misalignment: np.ndarray
    adjacency: np.ndarray
    weights: np.ndarray
    degrees: np.ndarray
    clipped: int
    components: int
    clip: float

    @property
    def clients(self) -> int:
        return int(self.degrees.shape[0])

    @property
    def neighbour_weights(self) -> np.ndarray:
        """p_in / p_i (rows sum to one): u_t^i = Σ_n (p_in/p_i) w_{t−1,E}^n."""
        return self.weights / self.degrees[:, None]


def canonical_sign(M: np.ndarray) -> np.ndarray:
    """Flip each row so that its entry of largest magnitude (the first such, on ties) is positive."""
    M = np.asarray(M, dtype=float)
    idx = np.argmax(np.abs(M), axis=-1)
    lead = np.take_along_axis(M, idx[..., None], axis=-1)
    return M * np.where(lead < 0, -1.0, 1.0)


def messages(X: np.ndarray | list[np.ndarray], canonical: bool = True) -> np.ndarray:
    """First principal component of each client's raw data (uncentered, unscaled PCA): (C, N, D) or a list of
    (N_i, D) arrays -> unit vectors (C, D), sign-canonicalised unless ``canonical`` is False."""
    blocks = list(X) if isinstance(X, (list, tuple)) else [np.asarray(x) for x in np.asarray(X, dtype=float)]
    if not blocks:
        raise InputError("no client data given; expected at least two clients' data matrices")
    out = []
    for i, x in enumerate(blocks):
        x = np.asarray(x, dtype=float)
        if x.ndim != 2 or x.shape[0] == 0:
            raise InputError(f"client {i} data has shape {x.shape}; expected a non-empty (samples, features) matrix")
        if not np.all(np.isfinite(x)):
            raise InputError(f"client {i} data contains NaN or infinite values; expected finite data")
        # top eigenvector of XᵀX (D × D): the top right-singular vector of X
        vals, vecs = np.linalg.eigh(x.T @ x)
        if vals[-1] <= 0:
            raise InputError(f"client {i} data is all zero; its principal component is undefined")
        out.append(vecs[:, -1])
    M = np.stack(out)
    return canonical_sign(M) if canonical else M


def _check_messages(M: np.ndarray) -> np.ndarray:
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] < 2:
        raise InputError(f"messages have shape {M.shape}; expected (clients >= 2, dim) unit vectors")
    if not np.all(np.isfinite(M)):
        bad = int(np.argmax(~np.all(np.isfinite(M), axis=1)))
        raise InputError(f"message of client {bad} contains NaN or infinite values; expected finite unit vectors")
    norms = np.linalg.norm(M, axis=1)
    if np.any(np.abs(norms - 1.0) > 1e-9):
        bad = int(np.argmax(np.abs(norms - 1.0)))
        raise InputError(f"message of client {bad} has norm {norms[bad]:.6g}; expected a unit vector (Def. 1)")
    return M


def misalignment(M: np.ndarray) -> np.ndarray:
    """mis(i, n) = (1 − m_iᵀm_n)/2 for unit messages (C, D) -> (C, C) in [0, 1] (exact 0 on the diagonal)."""
    M = _check_messages(M)
    mis = np.clip(0.5 * (1.0 - M @ M.T), 0.0, 1.0)
    np.fill_diagonal(mis, 0.0)
    return 0.5 * (mis + mis.T)


def adjacency(mis: np.ndarray, clip: float = DEFAULT_CLIP) -> tuple[np.ndarray, int]:
    """[A]_in = −ln max(mis(i, n), clip) for i ≠ n, 0 on the diagonal; returns (A, number of clipped pairs i < n)."""
    if not (0.0 < clip < 1.0):
        raise InputError(f"misalignment clip={clip!r} is not valid; expected 0 < clip < 1")
    mis = np.asarray(mis, dtype=float)
    off = ~np.eye(mis.shape[0], dtype=bool)
    clipped = int(np.count_nonzero(np.triu((mis < clip) & off, 1)))
    A = np.where(off, -np.log(np.maximum(mis, clip)), 0.0)
    return np.maximum(A, 0.0), clipped


def _components(A: np.ndarray) -> int:
    """Connected components of the graph with edges {A_in > 0} (breadth-first search)."""
    C = A.shape[0]
    seen = np.zeros(C, dtype=bool)
    count = 0
    for start in range(C):
        if seen[start]:
            continue
        count += 1
        frontier = np.zeros(C, dtype=bool)
        frontier[start] = True
        while frontier.any():
            seen |= frontier
            frontier = np.any(A[frontier] > 0, axis=0) & ~seen
    return count


def build_graph(M: np.ndarray, clip: float = DEFAULT_CLIP, require_connected: bool = False) -> Graph:
    """The similarity graph of unit messages M (C, D) (Def. 1–2, Algorithm 1); see the module docstring."""
    M = _check_messages(M)
    mis = misalignment(M)
    A, clipped = adjacency(mis, clip)
    total = float(A.sum())
    if not total > 0:
        raise InputError("the similarity graph has no edge (every pair of messages is opposite); expected at least "
                         "one pair with misalignment < 1")
    P = A / total
    P = 0.5 * (P + P.T)
    degrees = P.sum(axis=1)
    if np.any(degrees <= 0):
        bad = int(np.argmin(degrees))
        raise InputError(f"client {bad} has no neighbour (degree 0: every other message is its opposite); "
                         "expected a positive degree for every client (u_t^i divides by p_i)")
    components = _components(A)
    if require_connected and components > 1:
        raise InputError(f"the similarity graph has {components} connected components; expected a connected graph")
    return Graph(messages=M, misalignment=mis, adjacency=A, weights=P, degrees=degrees, clipped=clipped,
                 components=components, clip=float(clip))


def laplacian(A: np.ndarray) -> np.ndarray:
    """diag(A𝟏) − A (App. C.6)."""
    A = np.asarray(A, dtype=float)
    return np.diag(A.sum(axis=1)) - A

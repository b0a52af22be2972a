"""Canonical sympy symbols.

Every symbol is created with ``positive=True`` (all the papers' constants, sizes and step sizes are positive), so
that sympy can simplify powers and logarithms.  Theorems use their paper's own letters (``T``, ``K``, ``E`` ...);
each :class:`fedrates.bounds.theorem.Theorem` maps those letters onto the canonical vocabulary of fedrates
(``clients``, ``rounds``, ``local_steps``, ``iterations``, ``batch``, ``participating``, ``dim``).

Use :func:`sym` to get a symbol: two calls with the same name return equal symbols, across modules.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

__all__ = ["VOCABULARY", "MEANINGS", "sym", "syms"]

#: the canonical run-parameter vocabulary (DESIGN.md "Vocabulary")
VOCABULARY = {
    "clients": "number of clients",
    "rounds": "number of communication rounds",
    "local_steps": "local steps per round (E)",
    "iterations": "per-client steps = rounds x local_steps",
    "batch": "minibatch size",
    "participating": "clients sampled per round",
    "dim": "dimension of the model",
}

#: one-line meanings of frequently used letters (papers may give a letter another meaning; a Theorem's
#: ``symbols`` map is authoritative for that theorem)
MEANINGS = {
    "T": "total local iterations per client",
    "K": "number of clients",
    "E": "local steps per round",
    "R": "number of rounds",
    "L": "smoothness constant",
    "mu": "strong-convexity constant",
    "Lam": "global smoothness constant",
    "H": "heterogeneity bound",
    "sigma": "stochastic-gradient standard deviation",
    "sigma_bar": "weighted gradient-noise level sqrt(sum pi_k^2 sigma^2)",
    "rho": "radius of the l2 (Frobenius) ball domain",
    "B": "squared initial distance ||w0 - w_hat||^2",
    "a": "shift of the weights alpha_t = (t + a)^2",
    "delta": "failure probability or Hessian similarity (see the theorem)",
    "Psi": "subspace Lipschitz constant",
    "lam": "regularisation parameter",
    "eps": "target accuracy",
}


@cache
def sym(name: str) -> sp.Symbol:
    """The canonical positive symbol called ``name``."""
    return sp.Symbol(name, positive=True)


def syms(names: str) -> tuple[sp.Symbol, ...]:
    """Several symbols from a space-separated string, e.g. ``syms("T K E")``."""
    return tuple(sym(n) for n in names.split())

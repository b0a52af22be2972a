"""``fedrates new ID [--dir PATH]``.

Writes a working external paper package into PATH (default ``./ID``): a ``pyproject.toml`` declaring the
``fedrates.papers`` entry point ``ID = "ID:PAPER"``, and the package ``ID`` with one algorithm (gradient descent on
the clients' averaged gradient, i.e. FedAvg with one local step and exact gradients), one theorem (the linear rate
‖w_t − w*‖ ≤ (1 − ημ)^t ‖w_0 − w*‖ for 0 < η ≤ 1/L on a μ-strongly convex, L-smooth objective, with its
conditions), one claim (that bound on the built-in ``quadratic`` family, a :class:`fedrates.BoundClaim` on the
certified constants of the instance), one broken variant (client gradients averaged with equal weights instead of
the client weights) and one test, all written with the public API (``from fedrates import ...``).  Then::

    pip install -e PATH
    fedrates verify --only 'ID.*' --profile quick
    fedrates selfcheck --only 'ID_gd/*'
    pytest PATH

pass as written.  ID must be a lower-case Python identifier that no installed paper uses and that does not shadow an
importable module; PATH must not exist or be an empty directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import re
import sys
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError

_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("new", help="write a new external paper package (a plugin) to start from",
                              description=__doc__)
    p.add_argument("paper_id", metavar="ID", help="the paper's id: a lower-case Python identifier (e.g. mypaper)")
    p.add_argument("--dir", dest="directory", metavar="PATH", help="where to write the package (default ./ID)")
    p.set_defaults(handler=run)


def check_id(paper_id: str) -> None:
    """Refuse (:class:`InputError`, one line) an id that is not a lower-case identifier, is a keyword, is taken by
    an installed paper or would shadow an importable module."""
    from fedrates import plugins

    if not _ID.match(paper_id) or keyword.iskeyword(paper_id):
        raise InputError(f"paper id {paper_id!r} is not a lower-case Python identifier ([a-z][a-z0-9_]*, not a "
                         f"keyword)")
    if paper_id in plugins.ids():
        raise InputError(f"paper id '{paper_id}' is already taken by an installed paper "
                         f"({plugins.get(paper_id).origin}); choose another id")
    try:
        spec = importlib.util.find_spec(paper_id)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        raise InputError(f"paper id '{paper_id}' is the name of an importable module ({spec.origin or spec.name}); "
                         f"choose another id, the package would shadow it")


def files(paper_id: str) -> dict[str, str]:
    """The files of the new package: ``{relative path: text}``."""
    return {path.format(id=paper_id): text.replace("PAPERID", paper_id) for path, text in _TEMPLATES.items()}


def write(paper_id: str, directory: Path) -> list[Path]:
    """Check the id and the directory, write the package and return the files written."""
    check_id(paper_id)
    if directory.exists() and not directory.is_dir():
        raise InputError(f"'{directory}' exists and is not a directory")
    if directory.is_dir() and any(directory.iterdir()):
        raise InputError(f"directory '{directory}' exists and is not empty; give a new or empty --dir")
    written = []
    for rel, text in files(paper_id).items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    directory = Path(args.directory if args.directory is not None else args.paper_id)
    written = write(args.paper_id, directory)
    pid = args.paper_id
    sys.stdout.write(f"wrote the paper package '{pid}' ({len(written)} files) to {directory}\n"
                     f"next:\n"
                     f"  pip install -e {directory}\n"
                     f"  fedrates verify --only '{pid}.*' --profile quick\n"
                     f"  fedrates selfcheck --only '{pid}_gd/*'\n"
                     f"  pytest {directory}\n")
    return 0


# ---- the package ---------------------------------------------------------------------------------------------------
# ``PAPERID`` is replaced by the id in the texts, ``{id}`` in the file names.

_PYPROJECT = '''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "PAPERID"
version = "0.1.0"
description = "The claims of one paper, checked by fedrates"
requires-python = ">=3.11"
dependencies = ["fedrates"]

# fedrates discovers the paper through this entry point: `fedrates list claims` shows it once installed
[project.entry-points."fedrates.papers"]
PAPERID = "PAPERID:PAPER"

[tool.setuptools]
packages = ["PAPERID"]

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.ruff]
line-length = 120
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP"]
'''

_README = '''\
# PAPERID

A paper checked by [fedrates](https://pypi.org/project/fedrates/), written by `fedrates new PAPERID`.

    pip install -e .
    fedrates list claims | grep PAPERID
    fedrates verify --only 'PAPERID.*' --profile quick
    fedrates selfcheck --only 'PAPERID_gd/*'
    pytest

Edit `PAPERID/theory.py` (the theorem), `PAPERID/algorithms.py` (the method), `PAPERID/claims.py` (what is
checked, on which instances) and `PAPERID/variants.py` (plausible bugs the claims must catch).
'''

_INIT = '''\
\"\"\"The paper's declaration, found by fedrates through the ``fedrates.papers`` entry point (pyproject.toml).

It imports nothing but :class:`fedrates.Paper`: the modules it names are imported only when a command needs them,
so listing claims stays fast.
\"\"\"

from fedrates import Paper

PAPER = Paper(
    id="PAPERID",
    authors="A. Author, B. Author",
    title="Title of the paper (Venue Year)",
    package=__name__,
    theorems=(".theory",),
    algorithms=(".algorithms",),
    claims=(".claims",),
    variants=(".variants",),
)
'''

_ALGORITHMS = '''\
\"\"\"Gradient descent on the clients' weighted average gradient (FedAvg with one local step):

    w_{t+1} = w_t − η Σ_k π_k ∇f_k(w_t),

π_k the client weights; every client takes part in every round.
\"\"\"

from dataclasses import dataclass
from typing import Any

import numpy as np
from fedrates import Algorithm, RoundContext, hyper, register


@register
@dataclass(frozen=True, kw_only=True)
class AveragedGD(Algorithm):
    \"\"\"w_{t+1} = w_t − η Σ_k π_k ∇f_k(w_t) (see the module docstring).\"\"\"

    name = "PAPERID_gd"
    summary = "gradient descent on the weighted average of the client gradients (FedAvg, one local step)"
    uses_client_streams = False  # draws nothing but through ctx.gradients

    step: float = hyper(1.0, "step size eta > 0", low=0.0, strict=True)

    def supports(self, problem: Any) -> str | None:
        if self.local_steps != 1:
            return f"{self.name} takes one step per round (local_steps=1), got local_steps={self.local_steps}"
        return None

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        return {"x": np.array(w0, dtype=float)}

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        x = state["x"]  # (R, d): one row per seed simulated together
        m = ctx.clients.shape[1]
        grads = ctx.gradients(np.repeat(x[:, None], m, axis=1))  # (R, m, d): every client at the server point
        return {"x": x - self.step * self.direction(ctx.weights, grads)}

    def direction(self, weights: np.ndarray, grads: np.ndarray) -> np.ndarray:
        \"\"\"The server's descent direction Σ_k π_k ∇f_k (weights (R, m), grads (R, m, d)).\"\"\"
        return np.einsum("rm,rmd->rd", weights, grads)

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]
'''

_THEORY = '''\
\"\"\"The theorem, as data: a sympy right-hand side, what it bounds and the conditions under which it holds.

Theorem 1.  If F = Σ_k π_k f_k is μ-strongly convex and L-smooth and 0 < η ≤ 1/L, gradient descent on F satisfies
‖w_t − w*‖ ≤ (1 − ημ)^t ‖w_0 − w*‖ for every t ≥ 0 (Nesterov, Lectures on Convex Optimization, 2004, Thm 2.1.15).
\"\"\"

import sympy as sp
from fedrates import Theorem, syms

eta, mu, L, t, B = syms("eta mu L t B")

THEOREM_1 = Theorem(
    id="PAPERID.thm1",
    paper="PAPERID",
    label="Theorem 1",
    title="linear convergence of averaged gradient descent",
    statement=r"\\|w_t - w^\\star\\| \\le (1 - \\eta\\mu)^t \\, \\|w_0 - w^\\star\\|",
    algorithms=("PAPERID_gd",),
    lhs="distance_to_optimum",
    rhs=(1 - eta * mu) ** t * sp.sqrt(B),
    kind="explicit",
    conditions=(sp.Le(eta, 1 / L), sp.Le(mu, L)),
    assumptions=("F mu-strongly convex and L-smooth",),
    symbols={"eta": "step size", "mu": "strong convexity constant of F", "L": "smoothness constant of F",
             "t": "rounds", "B": "squared initial distance ||w_0 - w*||^2"},
    equation="Theorem 1",
)

THEOREMS = (THEOREM_1,)
'''

_CLAIMS = '''\
\"\"\"The claims: Theorem 1 checked on a federated quadratic with its certified constants.\"\"\"

from fedrates import BoundClaim

from .theory import THEOREM_1


def curvature(inst, point=None):
    \"\"\"mu and L of F (the extreme eigenvalues of the mean Hessian) and the step eta = 1/L.\"\"\"
    c = inst.constants
    return {"mu": c.mu_F, "L": c.Lambda, "eta": 1.0 / c.Lambda}


CLAIMS = (
    BoundClaim(
        id="PAPERID.thm1.bound",
        theorem=THEOREM_1,
        title="Theorem 1: the linear rate, round by round",
        algorithm="PAPERID_gd",
        problem="quadratic",
        problem_params={"clients": 4, "dim": 6, "mu": 0.1, "L": 1.0, "weight_skew": 1.0},
        regime="exact gradients, eta = 1/L, w_0 = 0, rounds 0..40",
        why="the bound is the decay of the slowest eigen-direction: a slower method, or one converging elsewhere, "
            "breaks it",
        gradients="exact",
        hyper=lambda inst: {"step": curvature(inst)["eta"]},
        values=curvature,
        metric="distance_to_optimum",
        x="round",
        grid={"quick": (0, 5, 10, 20, 40)},
        n_seeds={"quick": 1, "standard": 1, "full": 1},  # exact gradients: every seed gives the same run
    ),
)
'''

_VARIANTS = '''\
\"\"\"Broken variants: plausible bugs that the claims must catch (``fedrates selfcheck`` runs them).\"\"\"

from dataclasses import dataclass

import numpy as np
from fedrates import BrokenVariant

from .algorithms import AveragedGD


@dataclass(frozen=True, kw_only=True)
class UnweightedGD(AveragedGD):
    \"\"\"The bug: the client gradients are averaged with equal weights instead of the weights π_k.\"\"\"

    def direction(self, weights: np.ndarray, grads: np.ndarray) -> np.ndarray:
        return grads.mean(axis=1)


VARIANTS = (
    BrokenVariant(
        id="PAPERID_gd/unweighted-mean",
        target="algorithm",
        bug="the server averages the client gradients with equal weights, not with the client weights pi_k",
        claims=("PAPERID.thm1.*",),
        apply=lambda claim: claim.with_algorithm(UnweightedGD()),
    ),
)
'''

_TEST = '''\
\"\"\"The paper's own tests: the claim passes on the algorithm and fails on the broken variant.\"\"\"

from fedrates import assert_seeds_independent, check

from PAPERID.claims import CLAIMS
from PAPERID.variants import VARIANTS


def test_the_claim_passes():
    for claim in CLAIMS:
        assert check(claim)["verdict"] == "pass"


def test_a_seed_does_not_depend_on_the_seeds_beside_it():
    for claim in CLAIMS:
        assert_seeds_independent(claim)


def test_the_broken_variant_fails():
    for variant in VARIANTS:
        for claim in CLAIMS:
            assert check(variant.apply(claim))["verdict"] == "fail"
'''

_TEMPLATES = {
    "pyproject.toml": _PYPROJECT,
    "README.md": _README,
    "{id}/__init__.py": _INIT,
    "{id}/algorithms.py": _ALGORITHMS,
    "{id}/theory.py": _THEORY,
    "{id}/claims.py": _CLAIMS,
    "{id}/variants.py": _VARIANTS,
    "tests/test_{id}.py": _TEST,
}

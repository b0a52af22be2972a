"""Fake installed papers for tests, written as files: a package and a ``<name>-0.1.dist-info`` directory with its
``entry_points.txt``, found by ``importlib.metadata`` on ``sys.path`` (no pip install)."""

from __future__ import annotations

import textwrap
from pathlib import Path

MINI_INIT = '''
from fedrates import Paper

PAPER = Paper(id="mini", authors="A. Mini", title="Gradient descent contracts (a test paper)", package="mini_paper",
              theorems=(".theory",), algorithms=(".algorithm",), problems=(".problems",), claims=(".claims",),
              variants=(".variants",))
'''

MINI_PROBLEMS = '''
import numpy as np

from fedrates import DenseQuadratic, Family, Param, Problem
from fedrates.solvers.penalties import Zero


def build(params, preset=None):
    """One client, f(w) = ½(w − 1)ᵀ diag(linspace(mu, L, d)) (w − 1)."""
    d = params["dim"]
    Q = np.diag(np.linspace(params["mu"], params["L"], d))[None]
    centre = np.ones((1, d))
    b = np.einsum("kij,kj->ki", Q, centre)
    return Problem(family="mini_diag", preset=preset, params=params, shape=(d,), weights=np.ones(1),
                   datafit=DenseQuadratic(Q=Q, b=b, c=0.5 * np.einsum("ki,ki->k", b, centre)), penalty=Zero(),
                   sampling="gaussian", description="one diagonal quadratic")


FAMILIES = (Family("mini_diag", "one client, diagonal Hessian with spectrum linspace(mu, L)",
                   {"dim": Param(3, "int", "dimension d >= 1", low=1),
                    "mu": Param(0.5, "float", "smallest eigenvalue mu > 0", low=0.0, low_inclusive=False),
                    "L": Param(2.0, "float", "largest eigenvalue L >= mu", low=0.0, low_inclusive=False)},
                   {"tiny": {"dim": 2}}, build),)
'''

MINI_ALGORITHM = '''
from dataclasses import dataclass

from fedrates import register
from fedrates.solvers.algorithms.fedavg import FedAvg


@register
@dataclass(frozen=True, kw_only=True)
class MiniGD(FedAvg):
    """FedAvg under another name: the paper's algorithm."""

    name = "mini_gd"
    summary = "gradient descent of the mini paper"
'''

MINI_THEORY = '''
import sympy as sp

from fedrates import Theorem, syms

mu, L, T, B = syms("mu L T B")
THEOREMS = (Theorem(id="mini.thm1", paper="mini", label="Theorem 1", title="GD with step 1/L contracts",
                    statement=r"\\|x_T - x^*\\| \\le (1 - \\mu/L)^T \\|x_0 - x^*\\|", algorithms=("mini_gd",),
                    lhs="distance_to_optimum", rhs=(1 - mu / L) ** T * sp.sqrt(B), kind="explicit",
                    conditions=(sp.Le(mu, L),),
                    symbols={"mu": "strong convexity", "L": "smoothness", "T": "iterations",
                             "B": "squared initial distance"}),)
'''

MINI_CLAIMS = '''
from fedrates import BoundClaim, ContractionClaim

from .theory import THEOREMS

PROBLEM = {"clients": 1, "dim": 4, "mu": 0.5, "L": 2.0, "seed": 3}
COMMON = dict(theorem=THEOREMS[0], algorithm="mini_gd", problem="quadratic", problem_params=PROBLEM,
              regime="one client, exact gradients", why="Theorem 1 with its explicit constants",
              hyper=lambda inst: {"step": 1 / inst.constants.L, "local_steps": 1})
CLAIMS = (
    BoundClaim(id="mini.thm1/bound", title="the distance stays below Theorem 1", gradients="exact",
               metric="distance_to_optimum", x="iterations", grid={"quick": (1, 4, 16, 32)},
               n_seeds={"quick": 1, "standard": 1, "full": 1}, **COMMON),
    ContractionClaim(id="mini.thm1/contraction", title="per-round factor 1 - mu/L", rounds=30, sharp=True,
                     factor=lambda inst, v: 1 - v["mu"] / v["L"], **COMMON),
)
'''

MINI_VARIANTS = '''
from fedrates import BrokenVariant
from fedrates.solvers.algorithms import make

VARIANTS = (BrokenVariant(id="mini.gd/step-0.3", target="algorithm", bug="step 0.3/L instead of 1/L",
                          claims=("mini.thm1/*",),
                          apply=lambda claim: claim.with_algorithm(make("mini_gd", step=0.15, local_steps=1))),)
'''

#: broken plugins: each is (distribution name, entry points, {module file: source})
BROKEN = {
    "bad_import": ("bad1 = no_such_module_for_fedrates_tests:PAPER", {}),
    "dup_paper": ("dup = dup_paper:PAPER", {"dup_paper/__init__.py": '''
from fedrates import Paper
PAPER = Paper(id="bao", authors="Somebody", title="Not Bao")
'''}),
    "badalg_paper": ("badalg = badalg_paper:PAPER", {"badalg_paper/__init__.py": '''
from fedrates import Paper
PAPER = Paper(id="badalg", authors="X", title="Y", claims=("badalg_paper.claims",))
''', "badalg_paper/claims.py": '''
from fedrates import LimitClaim
CLAIMS = (LimitClaim(id="badalg.x/limit", theorem="bao.thm2.1", title="t", algorithm="no_such_algorithm",
                     problem="quadratic", regime="r", rounds=5),)
'''}),
    "badprefix_paper": ("badprefix = badprefix_paper:PAPER", {"badprefix_paper/__init__.py": '''
from fedrates import Paper
PAPER = Paper(id="badprefix", authors="X", title="Y", claims=("badprefix_paper.claims",))
''', "badprefix_paper/claims.py": '''
from fedrates import LimitClaim
CLAIMS = (LimitClaim(id="other.x/limit", theorem="bao.thm2.1", title="t", algorithm="fedavg",
                     problem="quadratic", regime="r", rounds=5),)
'''}),
    "unfrozen_paper": ("unfrozen = unfrozen_paper:PAPER", {"unfrozen_paper/__init__.py": '''
from fedrates import Paper
PAPER = Paper(id="unfrozen", authors="X", title="Y", algorithms=("unfrozen_paper.algorithm",))
''', "unfrozen_paper/algorithm.py": '''
from fedrates import register
from fedrates.solvers.algorithms.fedavg import FedAvg


@register
class NotFrozen(FedAvg):  # no @dataclass(frozen=True): step0 would silently not be a hyperparameter
    name = "unfrozen_alg"
    step0: float = 0.5
'''}),
}


def _dist(root: Path, name: str, entry_points: str) -> None:
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[fedrates.papers]\n{entry_points}\n", encoding="utf-8")


def _files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def write_mini(root: Path) -> Path:
    """The working paper ``mini`` (package ``mini_paper``) into ``root``; returns ``root``."""
    _files(root, {"mini_paper/__init__.py": MINI_INIT, "mini_paper/algorithm.py": MINI_ALGORITHM,
                  "mini_paper/theory.py": MINI_THEORY, "mini_paper/problems.py": MINI_PROBLEMS,
                  "mini_paper/claims.py": MINI_CLAIMS, "mini_paper/variants.py": MINI_VARIANTS})
    _dist(root, "mini_paper", "mini = mini_paper:PAPER")
    return root


def write_broken(root: Path) -> Path:
    """Every broken plugin of :data:`BROKEN` into ``root``; returns ``root``."""
    for name, (entry_points, files) in BROKEN.items():
        _files(root, files)
        _dist(root, name, entry_points)
    return root

"""Dinh et al.: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its claims, broken variants and instances are the modules of this package."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="dinh",
    authors="Dinh, Tran, Nguyen, Bao, Zomaya, Zhou",
    title=("Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms (ICPP "
           "2020)"),
    package=__name__,
    theorems=("fedrates.bounds.catalog.dinh",),
    algorithms=(
        "fedrates.solvers.algorithms.fedproxvr_svrg",
        "fedrates.solvers.algorithms.fedproxvr_sarah",
        "fedrates.solvers.algorithms.fedprox_sgd",
        "fedrates.solvers.algorithms.fedproxvr_fedavg",
    ),
    claims=(".theorems", ".exact", ".experiments", ".errata"),
    variants=(".variants",),
    falsify=(".falsify",),
    figures=(".experiments",),
    subjects=("formulas", "oracle"),
)

"""Bao et al.: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its claims, broken variants and instances are the modules of this package."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="bao",
    authors="Bao, Crawshaw, Luo, Liu",
    title="Fast Composite Optimization and Statistical Recovery in Federated Learning (ICML 2022)",
    package=__name__,
    theorems=("fedrates.bounds.catalog.bao",),
    algorithms=(
        "fedrates.solvers.algorithms.fedavg",
        "fedrates.solvers.algorithms.fedprox",
        "fedrates.solvers.algorithms.fedda",
        "fedrates.solvers.algorithms.fast_fedda",
        "fedrates.solvers.algorithms.c_fedda",
    ),
    claims=(".theorems", ".exact", ".experiments", ".errata"),
    variants=(".variants",),
    falsify=(".falsify",),
    figures=(".experiments",),
    subjects=("oracle", "reference", "mc_fedda", "fedmid", "fedavg_sgd", "formulas"),
)

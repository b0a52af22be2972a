"""Buttaci & Calafiore: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its claims, broken variants and instances are the modules of this package."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="buttaci",
    authors="Buttaci, Calafiore",
    title=("Aiding Global Convergence in Federated Learning via Local Perturbation and Mutual Similarity "
           "Information"),
    package=__name__,
    theorems=("fedrates.bounds.catalog.buttaci",),
    algorithms=(
        "fedrates.solvers.algorithms.pfl",
        "fedrates.solvers.algorithms.fedprox",
        "fedrates.solvers.algorithms.fedavg",
    ),
    claims=(".theorems", ".exact", ".experiments", ".errata"),
    variants=(".variants",),
    falsify=(".falsify",),
    figures=(".experiments",),
    subjects=("formulas",),
)

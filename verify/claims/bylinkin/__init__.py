"""Bylinkin et al.: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its claims, broken variants and instances are the modules of this package."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="bylinkin",
    authors="Bylinkin, Skorik, Bystrov, Berezin, Avetisyan, Beznosikov",
    title=("Accelerated Methods with Complexity Separation Under Data Similarity for Federated Learning "
           "Problems"),
    package=__name__,
    theorems=("fedrates.bounds.catalog.bylinkin",),
    algorithms=(
        "fedrates.solvers.algorithms.sc_acc_extragradient",
        "fedrates.solvers.algorithms.aeg",
        "fedrates.solvers.algorithms.vrcs",
        "fedrates.solvers.algorithms.acc_vrcs",
        "fedrates.solvers.algorithms.c_acc_extragradient",
    ),
    claims=(".theorems", ".exact", ".experiments", ".errata"),
    variants=(".variants",),
    falsify=(".falsify",),
    figures=(".experiments",),
    subjects=("formulas",),
)

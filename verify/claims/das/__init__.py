"""Das et al.: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its claims, broken variants and instances are the modules of this package."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="das",
    authors="Das, Hashemi, Sanghavi, Dhillon",
    title=("On the Convergence of Differentially Private Federated Learning on Non-Lipschitz Objectives, and "
           "with Normalized Client Updates"),
    package=__name__,
    theorems=("fedrates.bounds.catalog.das",),
    algorithms=("fedrates.solvers.algorithms.dp_fedavg_clip", "fedrates.solvers.algorithms.dp_normfedavg"),
    claims=(".theorems.bounds", ".theorems.privacy", ".exact.sampling", ".errata", ".experiments",
            ".theorems.heterogeneity"),
    variants=(".theorems.bounds", ".exact.sampling"),
    falsify=(".falsify",),
    subjects=("formulas",),
)

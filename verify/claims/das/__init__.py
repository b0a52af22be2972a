"""Das et al.: the paper's declaration (:class:`fedrates.Paper`), registered through the ``fedrates.papers``
entry point like any installed paper. Its instances, claims, broken variants and falsifier targets are the modules
of this package, in the standard layout (``instances``, ``theorems``, ``exact``, ``experiments``, ``errata``,
``variants``, ``falsify``)."""

from fedrates.plugins import Paper

PAPER = Paper(
    id="das",
    authors="Das, Hashemi, Sanghavi, Dhillon",
    title=("On the Convergence of Differentially Private Federated Learning on Non-Lipschitz Objectives, and "
           "with Normalized Client Updates"),
    package=__name__,
    theorems=("fedrates.bounds.catalog.das",),
    algorithms=("fedrates.solvers.algorithms.dp_fedavg_clip", "fedrates.solvers.algorithms.dp_normfedavg"),
    claims=(".theorems", ".exact", ".experiments", ".errata"),
    variants=(".variants",),
    falsify=(".falsify",),
    figures=(".experiments",),
    subjects=("formulas",),
)

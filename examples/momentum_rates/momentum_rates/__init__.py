"""Polyak's heavy ball and Nesterov's accelerated gradient on strongly convex quadratics: the declaration of the
paper for fedrates (found through the ``fedrates.papers`` entry point of this package's pyproject.toml).

Sources: B. T. Polyak, "Some methods of speeding up the convergence of iteration methods", USSR Comput. Math. Math.
Phys. 4(5), 1964 (heavy ball and its optimal tuning); Yu. Nesterov, "Introductory Lectures on Convex Optimization",
2004, §2.2 (the accelerated method with constant momentum); L. Lessard, B. Recht, A. Packard, "Analysis and Design
of Optimization Algorithms via Integral Quadratic Constraints", SIAM J. Optim. 26(1), 2016, §2.3 and Prop. 1 (the
spectral radii of both iteration matrices on quadratics).
"""

from fedrates.plugins import Paper

PAPER = Paper(
    id="momentum_rates",
    authors="Polyak (1964); Nesterov (2004); Lessard, Recht, Packard (2016)",
    title="Linear rates of heavy ball and Nesterov's method on strongly convex quadratics",
    package=__name__,
    theorems=(".theory",),
    algorithms=(".algorithms",),
    claims=(".claims",),
    variants=(".variants",),
)

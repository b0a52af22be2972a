"""fedrates solvers: synthetic federations, certified reference optima, exact constants, federated algorithms."""

__version__ = "0.1.0"

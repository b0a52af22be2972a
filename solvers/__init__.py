"""fedrates solvers: synthetic federations, certified reference optima, exact constants, federated algorithms."""

from fedrates import __version__

__all__ = ["__version__"]

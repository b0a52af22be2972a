"""Federated algorithms: protocol, registry and runner (:mod:`fedrates.solvers.algorithms.base`) and the algorithms.

``get(name)`` → class, ``names()``, ``make(name, **hyper)``, ``run(name_or_algorithm, problem, rounds, ...)`` →
:class:`Trace`, ``run_batch(..., seeds=...)`` → :class:`BatchTrace`.
"""

from __future__ import annotations

import importlib

from fedrates.solvers.algorithms.base import (
    COLUMNS,
    Algorithm,
    BatchTrace,
    RoundContext,
    Trace,
    get,
    hyper,
    hyperparameters,
    make,
    names,
    register,
    run,
    run_batch,
)

__all__ = [
    "COLUMNS", "Algorithm", "BatchTrace", "RoundContext", "Trace", "get", "hyper", "hyperparameters", "make",
    "names", "register", "run", "run_batch", "MODULES",
]

#: algorithm modules imported (and so registered) with the package; a module not written yet is skipped
MODULES = ("fedavg", "fedprox", "fedda", "fast_fedda", "c_fedda", "pfl", "fedproxvr_svrg", "fedproxvr_sarah",
           "fedprox_sgd", "sc_acc_extragradient", "aeg", "vrcs", "acc_vrcs", "c_acc_extragradient", "dp_fedavg_clip",
           "dp_normfedavg", "fedproxvr_fedavg")

for _name in MODULES:
    _module = f"{__name__}.{_name}"
    try:
        importlib.import_module(_module)
    except ModuleNotFoundError as _exc:
        if _exc.name != _module:
            raise

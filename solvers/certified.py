"""The certificates a constants object carries: one mixin for every family's constants.

A constants dataclass (``Constants``, ``DinhConstants``, ``DinhDeviceConstants``) that mixes in
:class:`CarriesCertificates` exposes ``certificates`` (name → :class:`~fedrates.solvers.certify.CertifiedConstant`,
a witness attaining the value and an upper side computed by a second route) and ``uncertified`` (name → why a value
has none), built once per object from the values it carries and cached on disk per instance
(:func:`fedrates.solvers.certify.cached_certificates`, with the object's ``_certify_kind``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

__all__ = ["CarriesCertificates"]


class CarriesCertificates:
    """Mixin of the constants dataclasses; needs a ``problem_ref`` attribute (the instance, or None)."""

    #: which certificates :func:`fedrates.solvers.certify.cached_certificates` builds for this object
    _certify_kind: ClassVar[str] = "constants"

    @cached_property
    def _certified(self) -> tuple[dict, dict]:
        from fedrates.solvers import certify

        problem = getattr(self, "problem_ref", None)
        if problem is None:
            return {}, {"*": "no instance attached: certificates need the problem"}
        return certify.cached_certificates(problem, self, kind=self._certify_kind)

    @property
    def certificates(self) -> dict[str, Any]:
        """name → :class:`~fedrates.solvers.certify.CertifiedConstant` of every certified constant, built from the
        values this object carries (so a value replaced after it was computed is checked, not trusted)."""
        return self._certified[0]

    @property
    def uncertified(self) -> dict[str, str]:
        """name → why the constant has no certificate (a bound, infinite, definitional, per-client array)."""
        return self._certified[1]

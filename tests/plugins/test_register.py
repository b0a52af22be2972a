"""``@register`` refuses an algorithm class that is not a frozen dataclass, in one line naming the class."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from fedrates import Algorithm, hyper, register
from fedrates.solvers.algorithms import base


def test_register_refuses_a_class_without_dataclass():
    with pytest.raises(TypeError) as info:
        @register
        class Plain(Algorithm):
            name = "test-register-plain"
            step0: float = 0.5

    message = str(info.value)
    assert "\n" not in message
    assert "Plain ('test-register-plain') must be decorated with @dataclass(frozen=True)" in message
    assert "test-register-plain" not in base._REGISTRY


def test_register_refuses_a_class_without_a_name():
    with pytest.raises(TypeError, match="has no algorithm name"):
        @register
        @dataclass(frozen=True, kw_only=True)
        class Nameless(Algorithm):
            name = ""


def test_register_accepts_a_frozen_dataclass_and_its_fields_are_hyperparameters():
    @register
    @dataclass(frozen=True, kw_only=True)
    class Decay(Algorithm):
        name = "test-register-frozen"
        step0: float = hyper(0.5, "initial step > 0", low=0.0, strict=True)

    try:
        assert base.make("test-register-frozen", step0=0.25).step0 == 0.25
    finally:
        base._REGISTRY.pop("test-register-frozen", None)

"""Many random streams at once, bit-identical to ``default_rng(SeedSequence(entropy, spawn_key=key))``.

numpy's :class:`~numpy.random.SeedSequence` hashes its entropy and spawn key into a pool of four 32-bit words and
expands the pool into the bit generator's initial state (O'Neill's seed_seq hash with the constants of
``numpy/random/bit_generator.pyx``). Built one at a time, a stream costs about 25 µs, most of it in that hashing;
a run with thousands of per-client streams per replica (the DP algorithms' noise streams) spent half its time
there. :func:`generators` runs the same hash for all seeds at once in numpy (the hash constants do not depend on
the data, so every seed of one length goes through the same vectorised operations) and hands each PCG64 its
precomputed state: the same streams, drawing the same numbers (tested against numpy for run seeds of one to four
words and keys of every length used), at a few µs each.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.random.bit_generator import ISeedSequence

__all__ = ["generators", "pcg64_states"]

_MASK = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_POOL = 4


def _words(value: int) -> list[int]:
    """The little-endian 32-bit words of a non-negative integer (0 → one word), as SeedSequence reads it."""
    if value < 0:
        raise ValueError(f"seed entropy and spawn keys must be non-negative integers, got {value}")
    words = []
    while True:
        words.append(value & _MASK)
        value >>= 32
        if not value:
            return words


def _assembled(entropy: int, key: Sequence[int]) -> list[int]:
    run = _words(int(entropy))
    spawn = [w for k in key for w in _words(int(k))]
    if spawn and len(run) < _POOL:  # SeedSequence pads the run entropy so that keys cannot alias it
        run = run + [0] * (_POOL - len(run))
    return run + spawn


def _hashmix(values: np.ndarray, const: int) -> tuple[np.ndarray, int]:
    values = values ^ np.uint32(const)
    const = (const * _MULT_A) & _MASK
    values = values * np.uint32(const)
    return values ^ (values >> np.uint32(_XSHIFT)), const


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.uint32(_MIX_MULT_L) * x - np.uint32(_MIX_MULT_R) * y
    return result ^ (result >> np.uint32(_XSHIFT))


def pcg64_states(seeds: Sequence[tuple[int, Sequence[int]]]) -> np.ndarray:
    """(len(seeds), 4) uint64: ``SeedSequence(entropy, spawn_key=key).generate_state(4, np.uint64)`` for every
    ``(entropy, key)`` of ``seeds``."""
    rows = [_assembled(entropy, key) for entropy, key in seeds]
    out = np.empty((len(rows), 4), dtype=np.uint64)
    by_length: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_length.setdefault(len(row), []).append(i)
    with np.errstate(over="ignore"):
        for length, index in by_length.items():
            data = np.array([rows[i] for i in index], dtype=np.uint32)  # (m, length)
            pool = np.zeros((len(index), _POOL), dtype=np.uint32)
            const = _INIT_A
            for i in range(_POOL):
                pool[:, i], const = _hashmix(data[:, i] if i < length else np.zeros(len(index), np.uint32), const)
            for src in range(_POOL):
                for dst in range(_POOL):
                    if src != dst:
                        mixed, const = _hashmix(pool[:, src], const)
                        pool[:, dst] = _mix(pool[:, dst], mixed)
            for src in range(_POOL, length):
                for dst in range(_POOL):
                    mixed, const = _hashmix(data[:, src], const)
                    pool[:, dst] = _mix(pool[:, dst], mixed)
            state = np.empty((len(index), 8), dtype=np.uint32)
            const = _INIT_B
            for i in range(8):
                value = pool[:, i % _POOL] ^ np.uint32(const)
                const = (const * _MULT_B) & _MASK
                value = value * np.uint32(const)
                state[:, i] = value ^ (value >> np.uint32(_XSHIFT))
            out[index] = state.astype("<u4").view("<u8").astype(np.uint64)
    return out


class _Precomputed(ISeedSequence):
    """A seed sequence that hands PCG64 the state :func:`pcg64_states` computed for it (``entropy`` and
    ``spawn_key`` are those of the SeedSequence it stands for, as code reading ``bit_generator.seed_seq`` expects)."""

    __slots__ = ("_state", "entropy", "spawn_key")

    def __init__(self, state: np.ndarray, entropy: int, spawn_key: tuple[int, ...]) -> None:
        self._state = state
        self.entropy = entropy
        self.spawn_key = spawn_key

    def generate_state(self, n_words: int, dtype: type = np.uint32) -> np.ndarray:
        if n_words != 4 or np.dtype(dtype) != np.dtype(np.uint64):  # PCG64 asks for four 64-bit words
            raise ValueError(f"precomputed PCG64 state: asked for {n_words} words of {np.dtype(dtype)}")
        return self._state


#: below this many streams numpy's own SeedSequence is cheaper than the vectorised hash (≈ 20 µs per stream against
#: ≈ 200 µs of fixed cost plus ≈ 3 µs per stream)
_FEW = 12


def generators(seeds: Sequence[tuple[int, Sequence[int]]]) -> list[np.random.Generator]:
    """``[default_rng(SeedSequence(entropy, spawn_key=key)) for entropy, key in seeds]``, bit-identical, hashed at
    once when there are enough of them (the numpy work is per call, so pass every stream of a run together)."""
    if len(seeds) < _FEW:
        return [np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=tuple(key))) for entropy, key in seeds]
    return [np.random.Generator(np.random.PCG64(_Precomputed(state, int(entropy), tuple(int(k) for k in key))))
            for state, (entropy, key) in zip(pcg64_states(seeds), seeds, strict=True)]

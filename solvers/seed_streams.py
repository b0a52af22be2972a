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


def _word_groups_by_row(seeds: Sequence[tuple[int, Sequence[int]]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(row indices, words (m, length) uint32) per length of the assembled words, one seed at a time."""
    rows = [_assembled(entropy, key) for entropy, key in seeds]
    by_length: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_length.setdefault(len(row), []).append(i)
    return [(np.array(index), np.array([rows[i] for i in index], dtype=np.uint32).reshape(len(index), length))
            for length, index in by_length.items()]


def _word_groups_vectorised(seeds: Sequence[tuple[int, Sequence[int]]]) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """:func:`_word_groups_by_row` in numpy when every entropy and key value lies in [0, 2⁶⁴) and all keys have one
    length (each value one or two 32-bit words); None otherwise."""
    try:
        # Python ints first: a negative numpy integer would wrap around silently in a uint64 array
        entropy = np.array([int(e) for e, _ in seeds], dtype=np.uint64)
        keys = np.array([[int(v) for v in k] for _, k in seeds], dtype=np.uint64)
    except (OverflowError, ValueError, TypeError):  # a negative or ≥ 2⁶⁴ value, or keys of several lengths
        return None
    keys = keys.reshape(len(seeds), -1)
    columns = np.column_stack((entropy, keys))  # (n, 1 + L)
    low = (columns & np.uint64(_MASK)).astype(np.uint32)
    high = (columns >> np.uint64(32)).astype(np.uint32)
    two = high > 0  # which values take two words
    pattern = two @ (1 << np.arange(columns.shape[1], dtype=np.int64))  # rows of one pattern have one layout
    groups = []
    for code in np.unique(pattern):
        index = np.flatnonzero(pattern == code)
        parts = [low[index, 0]] + ([high[index, 0]] if two[index[0], 0] else [])
        if keys.shape[1]:  # SeedSequence pads the run entropy to the pool size when there is a spawn key
            parts += [np.zeros(len(index), np.uint32)] * (_POOL - len(parts))
        for c in range(1, columns.shape[1]):
            parts += [low[index, c]] + ([high[index, c]] if two[index[0], c] else [])
        groups.append((index, np.column_stack(parts)))
    return groups


def _hashed(data: np.ndarray) -> np.ndarray:
    """PCG64's four state words for each row of assembled words ``data`` (m, length) uint32."""
    m, length = data.shape
    pool = np.zeros((m, _POOL), dtype=np.uint32)
    const = _INIT_A
    for i in range(_POOL):
        pool[:, i], const = _hashmix(data[:, i] if i < length else np.zeros(m, np.uint32), const)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                mixed, const = _hashmix(pool[:, src], const)
                pool[:, dst] = _mix(pool[:, dst], mixed)
    for src in range(_POOL, length):
        for dst in range(_POOL):
            mixed, const = _hashmix(data[:, src], const)
            pool[:, dst] = _mix(pool[:, dst], mixed)
    state = np.empty((m, 8), dtype=np.uint32)
    const = _INIT_B
    for i in range(8):
        value = pool[:, i % _POOL] ^ np.uint32(const)
        const = (const * _MULT_B) & _MASK
        value = value * np.uint32(const)
        state[:, i] = value ^ (value >> np.uint32(_XSHIFT))
    return state.astype("<u4").view("<u8").astype(np.uint64)


def pcg64_states(seeds: Sequence[tuple[int, Sequence[int]]]) -> np.ndarray:
    """(len(seeds), 4) uint64: ``SeedSequence(entropy, spawn_key=key).generate_state(4, np.uint64)`` for every
    ``(entropy, key)`` of ``seeds``."""
    out = np.empty((len(seeds), 4), dtype=np.uint64)
    if not len(seeds):
        return out
    groups = _word_groups_vectorised(seeds)
    with np.errstate(over="ignore"):
        for index, data in groups if groups is not None else _word_groups_by_row(seeds):
            out[index] = _hashed(data)
    return out


class _Precomputed(ISeedSequence):
    """A seed sequence that hands PCG64 the state :func:`pcg64_states` computed for it (``entropy`` and
    ``spawn_key`` are those of the SeedSequence it stands for, as code reading ``bit_generator.seed_seq`` expects)."""

    __slots__ = ("_state", "entropy", "spawn_key")

    def __init__(self, state: np.ndarray, entropy: int, spawn_key: Sequence[int]) -> None:
        self._state = state
        self.entropy = entropy
        self.spawn_key = spawn_key  # as the caller gave it (a tuple of ints in this project)

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
    generator, pcg64 = np.random.Generator, np.random.PCG64
    return [generator(pcg64(_Precomputed(state, entropy, key)))
            for state, (entropy, key) in zip(pcg64_states(seeds), seeds, strict=True)]

"""The children of many seed sequences at once: ``SeedSequence(s).spawn(n)`` for several seeds s, vectorized.

numpy's :class:`~numpy.random.SeedSequence` hashes its entropy into a pool of four 32-bit words (``mix_entropy``) and
a bit generator is seeded from words hashed out of that pool (``generate_state``); both are loops over Python-level
integers, about 9 µs per child.  The same hash computed with numpy over all children of all seeds at once gives the
same words (tested against numpy), and :func:`generators` seeds each ``PCG64`` from them through :class:`Child`, a
stand-in for the child sequence that builds the real ``SeedSequence(s, spawn_key=(i,))`` only when it is used
otherwise (``entropy``, ``spawn_key``, ``spawn``, ...): the generators, their states and their ``seed_seq`` answers
are those of ``np.random.default_rng(SeedSequence(s).spawn(n)[i])``.

The hash (O'Neill's ``seed_seq`` as numpy implements it), all arithmetic modulo 2³²:
hashmix(v) = ((v ⊕ h)·h') ⊕ ((v ⊕ h)·h' ≫ 16) with h' = h·MULT_A the running constant (from INIT_A);
mix(x, y) = (L·x − R·y) ⊕ (… ≫ 16); the pool is hashmix of the entropy words, then every word mixed with hashmix
of every other, then with hashmix of the remaining entropy words; state word i = ((pool[i mod 4] ⊕ c_i)·c_{i+1})
⊕ (… ≫ 16) with c_0 = INIT_B, c_{i+1} = c_i·MULT_B.  The entropy of child i is the seed's 32-bit words (least
significant first) padded with zeros to 4 words, then i.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence

__all__ = ["Child", "agrees_with_numpy", "generators"]

_M32 = np.uint64(0xFFFFFFFF)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_SHIFT = np.uint64(16)
_POOL = 4
#: seeds handled here: non-negative integers of at most _POOL 32-bit words (others: numpy's own code)
LIMIT = 1 << (32 * _POOL)


def _pools(entropy: np.ndarray) -> np.ndarray:
    """Pools (N, 4) of entropy rows (N, L) of 32-bit words held in uint64, L ≥ 4."""
    h = _INIT_A

    def hashmix(v: np.ndarray) -> np.ndarray:
        nonlocal h
        v = v ^ np.uint64(h)
        h = (h * _MULT_A) & 0xFFFFFFFF
        v = (v * np.uint64(h)) & _M32
        return v ^ (v >> _SHIFT)

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> _SHIFT)

    mixer = [hashmix(entropy[:, i]) for i in range(_POOL)]
    for s in range(_POOL):
        for d in range(_POOL):
            if s != d:
                mixer[d] = mix(mixer[d], hashmix(mixer[s]))
    for s in range(_POOL, entropy.shape[1]):
        for d in range(_POOL):
            mixer[d] = mix(mixer[d], hashmix(entropy[:, s]))
    return np.stack(mixer, axis=1)


def _states(pools: np.ndarray) -> np.ndarray:
    """``generate_state(4, np.uint64)`` of each pool: (N, 4) uint64."""
    words = np.empty((pools.shape[0], 8), dtype=np.uint64)
    c = _INIT_B
    for i in range(8):
        v = pools[:, i % _POOL] ^ np.uint64(c)
        c = (c * _MULT_B) & 0xFFFFFFFF
        v = (v * np.uint64(c)) & _M32
        words[:, i] = v ^ (v >> _SHIFT)
    return np.ascontiguousarray(words.astype("<u4")).view("<u8").astype(np.uint64)


class Child:
    """``SeedSequence(entropy, spawn_key=(key,))`` with its bit-generator seed words computed in advance; the real
    sequence is built on the first other use and answers everything else (``spawn``, ``pool``, ``state``, ...)."""

    __slots__ = ("entropy", "spawn_key", "pool_size", "_words", "_real")

    def __init__(self, entropy: int, key: int, words: np.ndarray) -> None:
        self.entropy, self.spawn_key, self.pool_size = entropy, (key,), _POOL
        self._words = words
        self._real: np.random.SeedSequence | None = None

    def real(self) -> np.random.SeedSequence:
        if self._real is None:
            self._real = np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)
        return self._real

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words == 4 and np.dtype(dtype) == np.uint64:
            return self._words.copy()
        return self.real().generate_state(n_words, dtype)

    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:
        return self.real().spawn(n_children)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real(), name)

    def __repr__(self) -> str:
        return repr(self.real())


ISpawnableSeedSequence.register(Child)


def _words(seeds: list[int], n: int) -> np.ndarray:
    """Seed words (len(seeds), n, 4) uint64 of the children ``SeedSequence(s).spawn(n)``."""
    entropy = np.zeros((len(seeds), n, _POOL + 1), dtype=np.uint64)
    for r, s in enumerate(seeds):
        for w in range(_POOL):
            entropy[r, :, w] = (s >> (32 * w)) & 0xFFFFFFFF
    entropy[:, :, _POOL] = np.arange(n, dtype=np.uint64)
    return _states(_pools(entropy.reshape(-1, _POOL + 1))).reshape(len(seeds), n, 4)


_AGREES: list[bool] = []


def agrees_with_numpy() -> bool:
    """Whether this hash reproduces the installed numpy's on a few children (checked once per process; if numpy
    ever hashed differently, :func:`fedrates.solvers.oracles.make_streams_many` would use numpy's own code)."""
    if not _AGREES:
        seeds = [0, 7, (1 << 96) + 12345]
        words = _words(seeds, 3)
        _AGREES.append(all(np.array_equal(c.generate_state(4, np.uint64), words[r, i])
                           for r, s in enumerate(seeds) for i, c in enumerate(np.random.SeedSequence(s).spawn(3))))
    return _AGREES[0]


def generators(seeds: Sequence[int], n: int) -> list[list[np.random.Generator]]:
    """``[[np.random.default_rng(c) for c in SeedSequence(s).spawn(n)] for s in seeds]``, hashed for all children
    at once; seeds must be integers in [0, :data:`LIMIT`)."""
    seeds = [int(s) for s in seeds]
    if any(not 0 <= s < LIMIT for s in seeds):
        raise ValueError(f"seeds must be integers in [0, 2**{32 * _POOL}); got {seeds}")
    words = _words(seeds, n)
    return [[np.random.Generator(np.random.PCG64(Child(s, i, words[r, i]))) for i in range(n)]
            for r, s in enumerate(seeds)]

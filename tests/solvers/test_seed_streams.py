"""seed_streams builds the same streams as numpy's SeedSequence, hashed for many seeds at once."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import seed_streams


def _seeds() -> list[tuple[int, tuple[int, ...]]]:
    rng = np.random.default_rng(20261127)
    entropies = [0, 1, 2**32 - 1, 2**32, 2**64 + 99, 2**127 + 2**64 + 11,
                 *(int(x) for x in rng.integers(0, 2**63, size=6)),
                 int(np.random.SeedSequence(5).entropy)]  # a 128-bit entropy as SeedSequence draws it
    keys = [(), (0,), (3,), (1, 2), (7, 0xD9, 0), (2**32 + 5, 1, 9), (17, 2**40, 0, 1),
            *((int(i) + 1, 0xD9, int(ns)) for i, ns in rng.integers(0, 1000, size=(6, 2)))]
    return [(e, k) for e in entropies for k in keys]


def test_states_equal_seedsequence_for_every_length_of_seed_and_key() -> None:
    seeds = _seeds()
    states = seed_streams.pcg64_states(seeds)
    expected = np.array([np.random.SeedSequence(e, spawn_key=k).generate_state(4, np.uint64) for e, k in seeds])
    assert states.dtype == np.uint64 and states.shape == (len(seeds), 4)
    assert np.array_equal(states, expected)


def test_generators_draw_what_default_rng_draws() -> None:
    seeds = _seeds()[::7]
    ours = seed_streams.generators(seeds)
    for (entropy, key), g in zip(seeds, ours, strict=True):
        ref = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
        assert np.array_equal(g.standard_normal(40), ref.standard_normal(40))
        assert np.array_equal(g.integers(0, 10**9, 10), ref.integers(0, 10**9, 10))


def test_a_negative_seed_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        seed_streams.pcg64_states([(1, (-1,))])


def test_generators_keep_the_entropy_and_key_they_stand_for() -> None:
    for count in (1, seed_streams._FEW, 40):  # numpy's own path below _FEW streams, the vectorised hash above
        seeds = [(2**40 + i, (i + 1, 7)) for i in range(count)]
        for (entropy, key), g in zip(seeds, seed_streams.generators(seeds), strict=True):
            assert g.bit_generator.seed_seq.entropy == entropy and tuple(g.bit_generator.seed_seq.spawn_key) == key


def test_streams_made_together_are_the_streams_made_one_by_one() -> None:
    """make_streams_many hashes client k's streams of all seeds at once, on the first use of client k: the numbers
    of numpy's SeedSequence(seed).spawn(K + 1), whichever stream is used first, and a stream drawn from is kept."""
    from fedrates.solvers import oracles

    seeds, K = [3, 2**33 + 1, 17, 99, 5, 6, 7, 8, 9, 10, 11, 12, 13], 5
    many = oracles.make_streams_many(seeds, K)
    first = many[4].clients[3].random(3)  # the first access, to a client of a later seed
    assert [sorted(st.clients._built) for st in many] == [[3]] * len(seeds)  # client 3 only, of every seed
    for s, st in zip(seeds, many, strict=True):  # against numpy's own SeedSequence(s).spawn(K + 1)
        children = np.random.SeedSequence(s).spawn(K + 1)
        assert np.array_equal(st.server.random(4), np.random.default_rng(children[0]).random(4))
        for k in range(K):
            ref = np.random.default_rng(children[1 + k]).random(6)
            got = st.clients[k].random(6)
            if (s, k) == (5, 3):
                assert np.array_equal(first, ref[:3]) and np.array_equal(got[:3], ref[3:])
            else:
                assert np.array_equal(got, ref)
    assert len({id(g) for st in many for g in st.clients}) == len(seeds) * K
    assert all(st.clients.seed == s for s, st in zip(seeds, many, strict=True))


def test_iterating_a_seeds_streams_builds_every_client_of_every_seed_in_few_hashes(monkeypatch) -> None:
    """Iterating over one seed's client streams (as the oracle does before drawing ahead) builds every client's
    generator of every seed in chunked hashes instead of one hash per client, after a client was already built
    by first use: the same streams as numpy's SeedSequence(seed).spawn(K + 1), client k of seed s drawn from once."""
    from fedrates.solvers import oracles

    monkeypatch.setattr(oracles, "_FILL_CHUNK", 40)  # 3 seeds x 13 clients per hash: the chunking is exercised
    hashes = []
    generators = seed_streams.generators
    monkeypatch.setattr(seed_streams, "generators", lambda seeds: hashes.append(len(seeds)) or generators(seeds))
    seeds, K = [3, 2**33 + 1, 17], 30
    many = oracles.make_streams_many(seeds, K)
    hashes.clear()
    early = many[2].clients[5].random(2)  # one client built before the others, by first use
    assert hashes == [3]
    hashes.clear()
    listed = list(many[1].clients)
    assert hashes == [39, 39, 9] and sum(hashes) == len(seeds) * (K - 1)
    assert listed == [many[1].clients[k] for k in range(K)]  # the built generators, not new ones
    for s, st in zip(seeds, many, strict=True):
        children = np.random.SeedSequence(s).spawn(K + 1)
        for k in range(K):
            ref = np.random.default_rng(children[1 + k]).random(4)
            got = st.clients[k].random(4 if (s, k) != (17, 5) else 2)
            assert np.array_equal(got, ref if (s, k) != (17, 5) else ref[2:])
    assert np.array_equal(early, np.random.default_rng(np.random.SeedSequence(17).spawn(K + 1)[6]).random(2))
    hashes.clear()
    list(many[0].clients)
    assert hashes == []  # nothing left to build


def test_a_rounds_participants_are_built_together_in_one_hash(monkeypatch) -> None:
    """The oracle takes a round's participants with ``ClientStreams.take``: the generators not built yet, of every
    seed, in one chunked hash rather than one hash per client (at 10⁶ clients and 2 seeds a round built its streams
    one client at a time, 18 µs each); the same generators and numbers as client-by-client access."""
    from fedrates.solvers import oracles

    hashes = []
    generators = seed_streams.generators
    monkeypatch.setattr(seed_streams, "generators", lambda seeds: hashes.append(len(seeds)) or generators(seeds))
    seeds, K = [5, 2**35 + 7], 40
    many = oracles.make_streams_many(seeds, K)
    hashes.clear()
    single = many[0].clients[7]  # built by first use, before the round
    assert hashes == [2]
    hashes.clear()
    wanted = [3, 7, 11, 3, 39, 0]  # a repeat and an already-built client
    taken = many[1].clients.take(wanted)
    assert hashes == [2 * 4]  # clients 3, 11, 39, 0 of both seeds, in one hash
    assert taken == [many[1].clients[k] for k in wanted] and many[0].clients[7] is single
    hashes.clear()
    assert many[0].clients.take([0, 3, 11]) == [many[0].clients[k] for k in (0, 3, 11)] and hashes == []
    for s, st in zip(seeds, many, strict=True):
        children = np.random.SeedSequence(s).spawn(K + 1)
        for k in (0, 3, 7, 11, 39):
            assert np.array_equal(st.clients[k].random(3), np.random.default_rng(children[1 + k]).random(3))


def test_the_oracle_takes_a_rounds_participants_in_bulk(monkeypatch) -> None:
    """A round's draws with gradient noise build the participants' streams through ``take`` (one hash for the round,
    not one per client), and the gradients are those of numpy's SeedSequence(seed).spawn(K + 1) streams."""
    from fedrates.solvers import oracles, problems

    problem = problems.make("structured_quadratic", clients=30, dim=3, sigma=0.5)
    hashes = []
    generators = seed_streams.generators
    monkeypatch.setattr(seed_streams, "generators", lambda seeds: hashes.append(len(seeds)) or generators(seeds))
    many = oracles.make_streams_many([1, 2], problem.clients)
    oracle = oracles.GradientOracle(problem, [st.clients for st in many], 1, prefetch=False)
    hashes.clear()
    clients = np.array([[4, 9, 20], [1, 4, 29]])
    oracle.begin_round(clients, 1)
    W = np.zeros((2, 3) + problem.shape)
    G = oracle(W)
    assert hashes == [2 * 5]  # clients 1, 4, 9, 20, 29 of both seeds, in one hash
    exact = oracles.exact_gradients(problem, problem.flat(W), clients)
    for r, s in enumerate((1, 2)):
        children = np.random.SeedSequence(s).spawn(problem.clients + 1)
        for i, k in enumerate(clients[r]):
            noise = np.random.default_rng(children[1 + k]).standard_normal(problem.dim)
            expected = exact[r, i] + 0.5 / np.sqrt(problem.dim * 1) * noise
            assert np.allclose(problem.flat(G)[r, i], expected, rtol=1e-13, atol=1e-15)


def test_a_run_whose_client_streams_would_not_fit_is_refused_in_one_line(monkeypatch) -> None:
    """Stochastic gradients that draw build one generator per seed and client (about 1 KB each): a run that would
    need more than half of the available memory for them is refused before they are built; exact gradients,
    noiseless gaussian sampling and client sampling over few rounds build few or none and run."""
    from fedrates.solvers import algorithms, oracles, problems
    from fedrates.solvers.errors import InputError
    from fedrates.solvers.problems import _params

    noisy = problems.make("structured_quadratic", clients=50, dim=2, sigma=0.1)
    quiet = problems.make("structured_quadratic", clients=50, dim=2, sigma=0.0)
    # 50 clients x 4 seeds x 1,100 B = 220,000 B: refused when 300,000 B are available (more than half)
    monkeypatch.setattr(_params, "available_memory", lambda: 300_000)
    with pytest.raises(InputError) as refused:
        algorithms.run_batch("fedavg", noisy, 2, seeds=range(4))
    message = str(refused.value)
    assert "\n" not in message and "4 seed(s) x 50 clients" in message and "GiB" in message
    oracles.check_stream_memory(noisy, 4, 1, False, exact=True)  # no streams drawn: nothing to refuse
    oracles.check_stream_memory(quiet, 4, 1, False, exact=False)
    oracles.check_stream_memory(noisy, 4, 1, False, exact=False, taking_part=2 * 10)  # 40 clients: 176,000 B
    with pytest.raises(InputError):
        oracles.check_stream_memory(noisy, 4, 1, False, exact=False, taking_part=2 * 30)  # all 50: refused
    monkeypatch.setattr(_params, "available_memory", lambda: 450_000)
    assert algorithms.run_batch("fedavg", noisy, 2, seeds=range(4)).final().shape[0] == 4
    # DP-FedAvg holds a noise stream and 32 rounds of d noise draws per seed and client, whatever the gradients:
    # 4 x 50 x (1,100 + 8 x 32 x 2) = 322,400 B, refused with 450,000 B available, run with twice as much
    assert algorithms.make("dp_fedavg_clip").bytes_per_client(quiet) == 1100 + 8 * 32 * 2
    with pytest.raises(InputError, match="4 seed"):
        algorithms.run_batch("dp_fedavg_clip", quiet, 2, seeds=range(4), gradients="exact")
    monkeypatch.setattr(_params, "available_memory", lambda: 900_000)
    assert algorithms.run_batch("dp_fedavg_clip", quiet, 2, seeds=range(4), gradients="exact").final().shape[0] == 4


def test_the_dp_noise_seed_is_read_without_building_a_client_stream() -> None:
    """DP-FedAvg derives its noise streams from the run seed, read from the replica's client streams: reading it
    builds none of them (exact-gradient runs never draw from them)."""
    from types import SimpleNamespace

    from fedrates.solvers import oracles
    from fedrates.solvers.algorithms.dp_fedavg_clip import _run_entropy

    many = oracles.make_streams_many([41, 2**40 + 3] * 7, 50)
    ctx = SimpleNamespace(client_rngs=[st.clients for st in many])
    assert [_run_entropy(ctx, r) for r in range(len(many))] == [41, 2**40 + 3] * 7
    assert all(not st.clients._built for st in many)
    plain = SimpleNamespace(client_rngs=[[np.random.default_rng(np.random.SeedSequence(9, spawn_key=(1,)))]])
    assert _run_entropy(plain, 0) == 9  # a plain list of generators: read from the first one's seed sequence


@pytest.mark.parametrize("key_length", [0, 1, 3])
def test_the_vectorised_words_give_seedsequence_states(monkeypatch, key_length: int) -> None:
    """Seeds below 2⁶⁴ with keys of one length take the vectorised path (the row-by-row one is made to fail here):
    entropies and key values of one and of two 32-bit words, mixed in one call."""
    rng = np.random.default_rng(7)
    entropies = [0, 1, 2**32 - 1, 2**32, 2**40 + 3, 2**64 - 1, *(int(x) for x in rng.integers(0, 2**63, size=5))]
    values = [0, 5, 2**32 - 1, 2**32 + 7, 2**63 + 1]
    seeds = [(e, tuple(values[(i + j) % len(values)] for j in range(key_length))) for i, e in enumerate(entropies)]
    monkeypatch.setattr(seed_streams, "_word_groups_by_row", lambda s: pytest.fail("row-by-row path taken"))
    expected = np.array([np.random.SeedSequence(e, spawn_key=k).generate_state(4, np.uint64) for e, k in seeds])
    assert np.array_equal(seed_streams.pcg64_states(seeds), expected)


def test_negative_numpy_integers_are_refused_not_wrapped() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        seed_streams.pcg64_states([(np.int64(-1), (1,))])
    with pytest.raises(ValueError, match="non-negative"):
        seed_streams.pcg64_states([(3, (np.int64(-2),))])

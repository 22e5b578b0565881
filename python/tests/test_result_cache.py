"""Session result caches from Python: Model.session(result_cache_bytes=...)
and Session.cache_stats(), on the runtime tests' add artifact (float32[2,3]
a + b -> y: an entry of 3 x 24 = 72 bytes)."""

import numpy as np
import pytest

import tessel

ENTRY_BYTES = 72


@pytest.fixture
def add_model(add_model_so):
    with tessel.load(add_model_so) as model:
        yield model


def inputs(seed):
    rng = np.random.default_rng(seed)
    return {"a": rng.standard_normal((2, 3), dtype=np.float32),
            "b": rng.standard_normal((2, 3), dtype=np.float32)}


def test_hits_equal_a_full_run(add_model):
    with add_model.session(num_threads=1, result_cache_bytes=1 << 20) as cached, \
            add_model.session(num_threads=1) as plain:
        rng = np.random.default_rng(0)
        seen, repeats = set(), 0
        for _ in range(200):
            # Half the requests repeat an earlier input.
            seed = int(rng.integers(len(seen))) if seen and rng.random() < 0.5 \
                else len(seen)
            repeats += seed in seen
            seen.add(seed)
            got = cached.run(inputs(seed))["y"]
            expected = plain.run(inputs(seed))["y"]
            assert got.tobytes() == expected.tobytes()
        stats = cached.cache_stats()
        assert stats["hits"] == repeats > 50
        assert stats["misses"] == 200 - repeats
        assert stats["entries"] == len(seen)
        assert stats["bytes"] == len(seen) * ENTRY_BYTES
        assert stats["capacity_bytes"] == 1 << 20
        assert stats["evictions"] == 0


def test_a_hit_is_a_copy(add_model):
    with add_model.session(result_cache_bytes=4096) as session:
        first = session.run(inputs(1))["y"]
        first[...] = 0  # the caller's array, not the cache's
        second = session.run(inputs(1))["y"]
        assert second is not first
        np.testing.assert_array_equal(second, inputs(1)["a"] + inputs(1)["b"])
        assert session.cache_stats()["hits"] == 1


def test_asynchronous_runs_use_the_cache(add_model):
    with add_model.session(result_cache_bytes=4096) as session:
        futures = [session.run_async(inputs(2)) for _ in range(3)]
        results = [future.result()["y"] for future in futures]
        for result in results:
            np.testing.assert_array_equal(result, results[0])
        stats = session.cache_stats()
        assert (stats["hits"], stats["misses"]) == (2, 1)


def test_the_bound_holds(add_model):
    with add_model.session(result_cache_bytes=2 * ENTRY_BYTES + 10) as session:
        for seed in range(20):
            session.run(inputs(seed % 5))
            stats = session.cache_stats()
            assert stats["bytes"] <= 2 * ENTRY_BYTES + 10
            assert stats["entries"] <= 2
        # Round robin over 5 inputs with room for 2: every run misses.
        assert stats["hits"] == 0 and stats["evictions"] == 18


def test_no_cache_by_default(add_model):
    with add_model.session() as session:
        session.run(inputs(3))
        session.run(inputs(3))
        assert session.cache_stats() == {
            "hits": 0, "misses": 0, "evictions": 0, "entries": 0, "bytes": 0,
            "capacity_bytes": 0}
    assert add_model.descriptor.nondeterministic is False


def test_a_nondeterministic_model_gets_no_cache(nondeterministic_model_so):
    with tessel.load(nondeterministic_model_so) as model, \
            model.session(result_cache_bytes=1 << 20) as session:
        assert model.descriptor.nondeterministic is True
        session.run(inputs(4))
        session.run(inputs(4))
        stats = session.cache_stats()
        assert stats["capacity_bytes"] == 0
        assert stats["hits"] == stats["misses"] == 0


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, True, "1024"])
def test_a_bad_bound_is_refused(add_model, bad):
    with pytest.raises(tessel.TesselError, match="result_cache_bytes must be an "
                       r"int >= 0 \(0: no cache\)") as error:
        add_model.session(result_cache_bytes=bad)
    assert error.value.code_name == "invalid argument"


def test_stats_of_a_closed_session(add_model):
    session = add_model.session(result_cache_bytes=4096)
    session.close()
    with pytest.raises(tessel.TesselError, match="closed"):
        session.cache_stats()

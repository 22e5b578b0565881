"""tessel.Scheduler: the runtime's batching scheduler from Python.

examples/tiny_cnn compiled at batch 1 and batch 4 serves single samples from
several threads with exactly the outputs of direct runs of the batch-1
artifact. Queueing, deadlines, priorities, closing and interpreter exit are
made deterministic by the runtime tests' gate artifact (block_model.c, a
batch-1 model): its runs block until the test opens the gate, so requests
stay queued behind a running batch for as long as a test needs.
"""

import concurrent.futures
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tessel
from conftest import DEADLINE_MS, TINY_CNN, gate, log  # noqa: F401 (gate: a fixture)

SAMPLES = 64
CLIENTS = 8


@pytest.fixture(scope="module")
def cnn_b4_so(compiler, tmp_path_factory):
    """examples/tiny_cnn compiled for batch 4 (image float32[4,1,28,28])."""
    out = tmp_path_factory.mktemp("tiny_cnn_b4") / "model_b4.so"
    return tessel.compile(TINY_CNN / "model.onnx", out,
                          input_shapes={"image": (4, 1, 28, 28)})


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(11)
    return [rng.standard_normal((1, 1, 28, 28), np.float32) for _ in range(SAMPLES)]


@pytest.fixture(scope="module")
def expected(tiny_cnn_so, samples):
    """Direct runs of the batch-1 artifact (tiny_cnn_so: the model's own
    shape, float32[1,1,28,28])."""
    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        return [session.run({"image": sample})["probabilities"] for sample in samples]


def tag(value):
    return {"tag": np.array([value], np.int32)}


def test_concurrent_submits_equal_direct_runs(tiny_cnn_so, cnn_b4_so, samples, expected):
    # A long window: batches form when 4 requests are queued, so the
    # clients' requests are batched whatever the machine's speed.
    with tessel.Scheduler([cnn_b4_so, tiny_cnn_so], window_us=50_000) as scheduler:
        assert scheduler.batch_sizes == (1, 4)
        assert [(t.name, t.dtype_name, t.shape) for t in scheduler.inputs] == [
            ("image", "float32", (1, 1, 28, 28))]
        assert [(t.name, t.shape) for t in scheduler.outputs] == [("probabilities", (1, 10))]

        def client(first):
            return [scheduler.submit({"image": samples[i]})
                    for i in range(first, SAMPLES, CLIENTS)]

        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as clients:
            futures = {}
            for first, submitted in enumerate(clients.map(client, range(CLIENTS))):
                futures.update(zip(range(first, SAMPLES, CLIENTS), submitted))
        results = {i: future.result(timeout=30) for i, future in futures.items()}
        stats = scheduler.stats()
    # Exactly: tiny_cnn's batch-4 artifact reduces each row in the same
    # order as the batch-1 artifact its one row (no reduction runs across
    # the batch). A compiler change that picked other kernels for the batch
    # would show here; a tolerance would then be the right comparison.
    for i in range(SAMPLES):
        assert list(results[i]) == ["probabilities"]
        np.testing.assert_array_equal(results[i]["probabilities"], expected[i])
    assert (stats.submitted, stats.completed, stats.rejected) == (SAMPLES, SAMPLES, 0)
    assert stats.batches > 0 and stats.model_runs >= stats.batches
    assert stats.mean_batch > 1, stats
    assert stats.deadline_exceeded == stats.cache_hits == 0


def test_run_from_threads_and_lists(tiny_cnn_so, cnn_b4_so, samples, expected):
    with tessel.Scheduler([tiny_cnn_so, cnn_b4_so], window_us=50_000) as scheduler:
        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as clients:
            results = list(clients.map(lambda s: scheduler.run([s])["probabilities"],
                                       samples[:16]))
        for got, want in zip(results, expected):
            np.testing.assert_array_equal(got, want)
        # A non-contiguous sample is copied (and the copy kept until it ran).
        strided = np.repeat(samples[0], 2, axis=3)[..., ::2]
        np.testing.assert_array_equal(
            scheduler.submit({"image": strided}).result(timeout=30)["probabilities"],
            expected[0])
        assert scheduler.stats().mean_batch > 1


@pytest.mark.parametrize("bad,message", [
    ({"image": np.zeros((4, 1, 28, 28), np.float32)},
     "input 'image': expected float32[1,1,28,28], got float32[4,1,28,28] "
     "(a request is one sample: leading dimension 1)"),
    ({"image": np.zeros((1, 28, 28), np.float32)},
     "input 'image': expected float32[1,1,28,28], got float32[1,28,28] "
     "(a request is one sample: leading dimension 1)"),
    ({"image": np.zeros((1, 1, 28, 28), np.float64)},
     "input 'image': expected float32[1,1,28,28], got float64[1,1,28,28]"),
    ({"img": np.zeros((1, 1, 28, 28), np.float32)},
     "unknown input 'img'; the model's inputs are 'image' float32[1,1,28,28]"),
    ({}, "missing input 'image' float32[1,1,28,28]"),
    ([np.zeros((1, 1, 28, 28), np.float32)] * 2, "expected 1 input, got 2"),
    ({"image": [[0.0]]}, "input 'image' must be a numpy array, not list"),
])
def test_refused_inputs_raise_at_submission(tiny_cnn_so, cnn_b4_so, bad, message):
    with tessel.Scheduler([tiny_cnn_so, cnn_b4_so]) as scheduler:
        for call in (scheduler.submit, scheduler.run):
            with pytest.raises(tessel.TesselError) as error:
                call(bad)
            assert error.value.code_name == "invalid argument"
            assert error.value.message.startswith(message), error.value.message
        assert scheduler.stats().submitted == 0  # nothing was queued


def test_deadline_expires_in_the_queue(block_model_so, gate):
    with tessel.Scheduler(block_model_so, window_us=0) as scheduler:
        running = scheduler.submit(tag(1))  # its batch waits at the gate
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        late = scheduler.submit(tag(2), deadline_us=50_000)
        # Completes while the batch ahead of it still runs: not after it.
        error = late.exception(timeout=5)
        assert isinstance(error, tessel.TesselError)
        assert error.code_name == "deadline exceeded"
        assert "deadline passed after" in error.message
        assert not running.done()
        with pytest.raises(tessel.TesselError, match="deadline passed") as raised:
            scheduler.run(tag(3), deadline_us=20_000)
        assert raised.value.code_name == "deadline exceeded"
        gate.block_fixture_set_gate(1)
        assert running.result(timeout=30)["seq"].tolist() == [0]
        # A deadline that is met: the request runs.
        assert scheduler.submit(tag(4), deadline_us=10_000_000).result(timeout=30)
        stats = scheduler.stats()
    assert stats.deadline_exceeded == 2 and stats.completed == 2
    assert log(gate) == [2, 3, 8, 9]


def test_priorities_and_out_of_order_completion(block_model_so, gate):
    with tessel.Scheduler(block_model_so, window_us=0) as scheduler:
        first = scheduler.submit(tag(1))
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        low = scheduler.submit(tag(2))
        high = scheduler.submit(tag(3), priority=5)
        gate.block_fixture_set_gate(1)
        results = [f.result(timeout=30)["seq"][0] for f in (first, low, high)]
    assert log(gate) == [2, 3, 6, 7, 4, 5]  # the higher priority ran first
    assert results == [0, 4, 2]


def test_queue_limit(block_model_so, gate):
    with tessel.Scheduler(block_model_so, window_us=0, queue_limit=2) as scheduler:
        futures = [scheduler.submit(tag(1))]
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        futures += [scheduler.submit(tag(i)) for i in (2, 3)]
        with pytest.raises(tessel.TesselError, match="the queue is full") as error:
            scheduler.submit(tag(4))
        assert error.value.code_name == "resource exhausted"
        gate.block_fixture_set_gate(1)
        assert [f.result(timeout=30)["seq"][0] for f in futures] == [0, 2, 4]
        assert scheduler.stats().rejected == 1


def test_close_with_requests_in_flight(block_model_so, gate):
    scheduler = tessel.Scheduler(block_model_so, window_us=1_000_000)
    futures = [scheduler.submit(tag(1))]
    assert gate.block_fixture_wait_started(1, DEADLINE_MS)
    futures += [scheduler.submit(tag(i)) for i in (2, 3)]
    closer = threading.Thread(target=scheduler.close)
    closer.start()
    closer.join(timeout=0.3)
    assert closer.is_alive()  # waits for the running batch and the queue
    with pytest.raises(tessel.TesselError, match="the scheduler is closed"):
        scheduler.submit(tag(4))
    gate.block_fixture_set_gate(1)
    closer.join(timeout=30)
    assert not closer.is_alive()
    # The queued requests ran at once (not after the 1 s window), and every
    # future was done when close() returned.
    assert all(future.done() for future in futures)
    assert [f.result()["seq"][0] for f in futures] == [0, 2, 4]
    assert scheduler.closed
    scheduler.close()  # a no-op
    with pytest.raises(tessel.TesselError, match="the scheduler is closed"):
        scheduler.stats()


def test_close_drains_many_tiny_cnn_requests(tiny_cnn_so, cnn_b4_so, samples, expected):
    scheduler = tessel.Scheduler([tiny_cnn_so, cnn_b4_so], window_us=10_000_000)
    futures = [scheduler.submit({"image": sample}) for sample in samples[:30]]
    scheduler.close()  # without waiting for the 10 s window
    assert all(future.done() for future in futures)
    for future, want in zip(futures, expected):
        np.testing.assert_array_equal(future.result()["probabilities"], want)


def test_done_callback_may_close_the_scheduler(block_model_so, gate):
    gate.block_fixture_set_gate(1)
    scheduler = tessel.Scheduler(block_model_so)
    closed = threading.Event()
    future = scheduler.submit(tag(1))
    future.add_done_callback(lambda _: (scheduler.close(), closed.set()))
    assert closed.wait(timeout=30) and scheduler.closed


def test_waiting_releases_the_gil(block_model_so, gate):
    with tessel.Scheduler(block_model_so, window_us=0) as scheduler:
        outcome = {}
        thread = threading.Thread(
            target=lambda: outcome.update(scheduler.run(tag(1))))
        thread.start()
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        future = scheduler.submit(tag(2))
        # Python work while a thread waits in run() and another for the future.
        assert sum(i * i for i in range(200_000)) > 0
        assert thread.is_alive() and not future.done()
        gate.block_fixture_set_gate(1)
        thread.join(timeout=30)
        assert outcome["seq"].tolist() == [0] and future.result(timeout=30)


def test_result_cache_completes_at_submission(tiny_cnn_so, cnn_b4_so, samples, expected):
    with tessel.Scheduler([tiny_cnn_so, cnn_b4_so], window_us=0,
                          result_cache_bytes=1 << 20) as scheduler:
        first = scheduler.run({"image": samples[0]})
        again = scheduler.submit({"image": samples[0]})
        assert again.done()  # a hit: completed before submit returned
        np.testing.assert_array_equal(again.result()["probabilities"], expected[0])
        np.testing.assert_array_equal(first["probabilities"], expected[0])
        stats = scheduler.stats()
    assert (stats.cache_hits, stats.cache_misses, stats.batches) == (1, 1, 1)


def test_latency_target_counts_misses(tiny_cnn_so, cnn_b4_so, samples, expected):
    # A target of 1 us: every request completes past it. The window is the
    # scheduler's (a 100 s window_us waits at most 0.9 us before a run is
    # timed), so the batch does not wait for a fourth request.
    with tessel.Scheduler([tiny_cnn_so, cnn_b4_so], window_us=100_000_000,
                          target_p99_us=1) as scheduler:
        futures = [scheduler.submit({"image": samples[i]}) for i in range(3)]
        for i, future in enumerate(futures):
            np.testing.assert_array_equal(future.result(timeout=30)["probabilities"],
                                          expected[i])
        stats = scheduler.stats()
    assert stats.completed == 3 and stats.target_misses == 3
    with tessel.Scheduler(tiny_cnn_so) as scheduler:
        scheduler.run({"image": samples[0]})
        assert scheduler.stats().target_misses == 0


def test_run_error_fails_its_requests(failing_model_so):
    # float32[2,3] "a", "b": a batch-2 model whose entry fails with code 7.
    pair = {"a": np.ones((1, 3), np.float32), "b": np.ones((1, 3), np.float32)}
    with tessel.Scheduler([failing_model_so], window_us=0) as scheduler:
        error = scheduler.submit(pair).exception(timeout=30)
        assert isinstance(error, tessel.TesselError)
        assert error.code_name == "runtime error"
        assert error.message.endswith("entry 'add_entry' failed with code 7")
        stats = scheduler.stats()
    assert (stats.model_runs, stats.padded_rows) == (1, 1)


def test_refused_models_and_options(tiny_cnn_so, cnn_b4_so, block_model_so):
    with pytest.raises(tessel.TesselError,
                       match=r"models of batch 1 and 4 differ: input 'tag' int32\[1\] "
                             r"against 'image' float32\[4,1,28,28\]") as error:
        tessel.Scheduler([cnn_b4_so, block_model_so])
    assert error.value.code_name == "invalid argument"
    with pytest.raises(tessel.TesselError, match="two models have batch 1"):
        tessel.Scheduler([tiny_cnn_so, tiny_cnn_so])
    with tessel.load(tiny_cnn_so) as model:
        model.close()
        with pytest.raises(tessel.TesselError, match=r"model 0 \('.*'\) is closed"):
            tessel.Scheduler([model])
    for options, message in [({"window_us": -1}, "window_us must be an int >= 0"),
                             ({"max_batch": 0}, "max_batch must be None or an int >= 1"),
                             ({"queue_limit": 0}, "queue_limit must be an int >= 1"),
                             ({"num_threads": 1.5}, "num_threads must be an int >= 0"),
                             ({"target_p99_us": -1}, "target_p99_us must be an int >= 0")]:
        with pytest.raises(tessel.TesselError, match=message):
            tessel.Scheduler(tiny_cnn_so, **options)
    with pytest.raises(tessel.TesselError, match="a Scheduler needs a list"):
        tessel.Scheduler([])
    with tessel.Scheduler(tiny_cnn_so) as scheduler:
        with pytest.raises(tessel.TesselError, match="deadline_us must be None"):
            scheduler.submit({"image": np.zeros((1, 1, 28, 28), np.float32)}, deadline_us=0)


EXIT_SCRIPT = """
import ctypes, json, os, sys, time
import numpy as np
import tessel

hooks = ctypes.CDLL(sys.argv[1])
hooks.block_fixture_reset(0, 300)  # runs give up (and fail) after 300 ms
hooks.block_fixture_set_gate(0)
scheduler = tessel.Scheduler(sys.argv[1], window_us=0)
write = os.write
futures = [scheduler.submit({"tag": np.array([i], np.int32)}) for i in range(3)]
futures.append(scheduler.submit({"tag": np.array([9], np.int32)}, deadline_us=10_000_000))
for future in futures:
    future.add_done_callback(lambda f: write(1, b"callback\\n"))

class Slow:
    # Keeps the interpreter finalizing while the requests complete: the
    # waiting threads wake then, and must neither run Python nor crash.
    def __init__(self):
        self.sleep = time.sleep
    def __del__(self):
        self.sleep(1.0)

json.slow = Slow()  # a module's attribute: collected late in finalization
print("exiting", flush=True)
"""


def test_interpreter_exit_with_requests_in_flight(block_model_so, tmp_path):
    script = tmp_path / "exit.py"
    script.write_text(textwrap.dedent(EXIT_SCRIPT))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.dirname(os.path.dirname(tessel.__file__)),
                      os.environ.get("PYTHONPATH")])))
    began = time.monotonic()
    result = subprocess.run([sys.executable, str(script), str(block_model_so)],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("exiting")
    assert time.monotonic() - began < 30

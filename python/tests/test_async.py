"""run_async, streams and events: results, ordering, errors, the GIL.

Ordering and overlap are made deterministic by the runtime tests' gate
artifact (block_model.c): its runs block until the test opens the gate, and
fail with code 3 at a deadline instead of hanging a test that goes wrong.
"""

import concurrent.futures
import ctypes
import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tessel
from tessel import _ext
from conftest import DEADLINE_MS, TINY_CNN, gate, log  # noqa: F401 (gate: a fixture)



def tag(value):
    return {"tag": np.array([value], np.int32)}


@pytest.fixture
def block_session(block_model_so):
    with tessel.load(block_model_so) as model, model.session(num_threads=1) as session:
        yield session


@pytest.fixture
def cnn_session(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model, model.session(num_threads=1) as session:
        yield session


def test_run_async_returns_a_future_of_the_outputs(cnn_session):
    image = np.load(TINY_CNN / "input.npy")
    future = cnn_session.run_async({"image": image})
    assert isinstance(future, concurrent.futures.Future)
    outputs = future.result(timeout=30)
    assert list(outputs) == ["probabilities"]
    np.testing.assert_allclose(outputs["probabilities"], np.load(TINY_CNN / "expected.npy"),
                               rtol=1e-4, atol=1e-5)
    assert future.done() and future.exception() is None
    assert not future.cancel()  # a queued run cannot be cancelled


def test_many_futures_on_two_streams_equal_sequential_runs(cnn_session):
    rng = np.random.default_rng(7)
    images = [rng.standard_normal((1, 1, 28, 28), np.float32) for _ in range(48)]
    expected = [cnn_session.run([image])["probabilities"] for image in images]
    with tessel.Stream() as first, tessel.Stream() as second:
        # Strided views: the contiguous copies the binding makes are
        # referenced by nothing but the queued runs.
        futures = [cnn_session.run_async({"image": np.repeat(image, 2, axis=3)[..., ::2]},
                                         (first, second)[i % 2])
                   for i, image in enumerate(images)]
        gc.collect()
        results = [future.result(timeout=60)["probabilities"] for future in futures]
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)


def test_runs_on_one_stream_happen_in_order(block_session, gate):
    with tessel.Stream() as stream:
        futures = [block_session.run_async(tag(i), stream) for i in range(1, 5)]
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        # The first run waits at the gate; the others have not started.
        assert not gate.block_fixture_wait_started(2, 200)
        assert not any(future.done() for future in futures)
        gate.block_fixture_set_gate(1)
        seqs = [int(future.result(timeout=30)["seq"][0]) for future in futures]
    assert seqs == [0, 2, 4, 6]
    assert log(gate) == [2, 3, 4, 5, 6, 7, 8, 9]


def test_runs_on_two_streams_overlap(block_session, gate):
    if _ext.module().runtime_num_threads() < 2:
        pytest.skip("the runtime's thread pool has one thread")
    gate.block_fixture_reset(2, DEADLINE_MS)  # each run waits for both to start
    with tessel.Stream() as first, tessel.Stream() as second:
        a = block_session.run_async(tag(1), first)
        b = block_session.run_async(tag(2), second)
        assert a.result(timeout=30) and b.result(timeout=30)  # no deadline hit
    assert gate.block_fixture_max_running() == 2


def test_event_orders_one_stream_after_another(block_session, gate):
    with tessel.Stream() as first, tessel.Stream() as second, tessel.Event() as event:
        assert event.query()  # never recorded: complete
        a = block_session.run_async(tag(1), first)
        event.record(first)
        second.wait_event(event)
        b = block_session.run_async(tag(2), second)
        assert gate.block_fixture_wait_started(1, DEADLINE_MS)
        assert not gate.block_fixture_wait_started(2, 200)  # b waits for the event
        assert not event.query() and not a.done() and not b.done()
        gate.block_fixture_set_gate(1)
        event.synchronize()
        assert event.query()
        b.result(timeout=30)
        # The runs have happened; a stream's synchronize also waits for the
        # futures, which the stream's waiter completes right after.
        first.synchronize()
        assert a.done() and a.result()["seq"][0] == 0
    assert log(gate) == [2, 3, 4, 5]


def test_record_event_and_synchronize_complete_the_futures(block_session, gate):
    gate.block_fixture_set_gate(1)
    with tessel.Stream() as stream:
        futures = [block_session.run_async(tag(i), stream) for i in range(8)]
        event = stream.record_event()
        stream.synchronize()
        assert event.query()
        assert all(future.done() for future in futures)  # no waiting in result()
        assert [int(f.result()["seq"][0]) for f in futures] == list(range(0, 16, 2))


def test_default_stream_is_in_order_and_closed_with_the_session(block_model_so, gate):
    gate.block_fixture_set_gate(1)
    model = tessel.load(block_model_so)
    session = model.session()
    futures = [session.run_async(tag(i)) for i in range(5)]
    session.close()  # waits for the runs on its own stream
    assert all(future.done() for future in futures)
    assert [int(f.result()["seq"][0]) for f in futures] == [0, 2, 4, 6, 8]
    with pytest.raises(tessel.TesselError, match="the session is closed"):
        session.run_async(tag(9))
    model.close()


def test_wrong_shape_is_raised_at_submission(cnn_session):
    with tessel.Stream() as stream:
        with pytest.raises(tessel.TesselError) as error:
            cnn_session.run_async({"image": np.zeros((1, 1, 28, 27), np.float32)}, stream)
        assert error.value.code_name == "invalid argument"
        assert error.value.message == (
            "input 'image': expected float32[1,1,28,28], got float32[1,1,28,27]")
        with pytest.raises(tessel.TesselError, match="unknown input 'img'"):
            cnn_session.run_async({"img": np.zeros((1, 1, 28, 28), np.float32)}, stream)
        with pytest.raises(tessel.TesselError, match="expected 1 input, got 2"):
            cnn_session.run_async([np.zeros((1, 1, 28, 28), np.float32)] * 2, stream)
        # Nothing was queued: the stream goes on.
        future = cnn_session.run_async([np.zeros((1, 1, 28, 28), np.float32)], stream)
        assert future.result(timeout=30)["probabilities"].shape == (1, 10)
        stream.synchronize()


def test_run_error_is_raised_by_its_future_only(failing_model_so, block_session, gate):
    gate.block_fixture_set_gate(1)
    pair = {"a": np.ones((2, 3), np.float32), "b": np.ones((2, 3), np.float32)}
    with tessel.load(failing_model_so) as model, model.session() as failing, \
            tessel.Stream() as stream:
        first = failing.run_async(pair, stream)
        good = block_session.run_async(tag(1), stream)
        second = failing.run_async(pair, stream)
        for future in (first, second):
            error = future.exception(timeout=30)
            assert isinstance(error, tessel.TesselError)
            assert error.code_name == "runtime error"
            assert error.message.endswith("entry 'add_entry' failed with code 7")
            with pytest.raises(tessel.TesselError, match="failed with code 7"):
                future.result()
        assert good.result(timeout=30)["seq"].shape == (1,)
        stream.synchronize()  # run errors belong to the futures


def test_a_deadline_in_the_entry_is_a_run_error(block_session, gate):
    gate.block_fixture_reset(0, 50)
    gate.block_fixture_set_gate(0)
    future = block_session.run_async(tag(1))
    with pytest.raises(tessel.TesselError, match="entry 'block_entry' failed with code 3"):
        future.result(timeout=30)


def test_run_async_releases_the_gil(block_session, gate):
    # The run blocks at the gate until this thread, running Python, opens it.
    # A waiter that held the GIL while waiting would stop this thread until
    # the entry's deadline, and the run would fail with code 3.
    future = block_session.run_async(tag(1))
    assert gate.block_fixture_wait_started(1, DEADLINE_MS)
    squares = sum(i * i for i in range(200_000))  # Python work meanwhile
    assert squares > 0 and not future.done()
    gate.block_fixture_set_gate(1)
    assert future.result(timeout=30)["seq"][0] == 0


def test_run_releases_the_gil(block_session, gate):
    outcome = {}

    def run():
        try:
            outcome["seq"] = int(block_session.run(tag(1))["seq"][0])
        except tessel.TesselError as error:
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    assert gate.block_fixture_wait_started(1, DEADLINE_MS)
    assert sum(i * i for i in range(200_000)) > 0 and thread.is_alive()
    gate.block_fixture_set_gate(1)
    thread.join(timeout=30)
    assert outcome == {"seq": 0}


def test_closed_stream_and_event(cnn_session):
    stream = tessel.Stream()
    event = tessel.Event()
    stream.close()
    stream.close()
    assert stream.closed
    with pytest.raises(tessel.TesselError, match="the stream is closed"):
        cnn_session.run_async([np.zeros((1, 1, 28, 28), np.float32)], stream)
    with pytest.raises(tessel.TesselError, match="the stream is closed"):
        event.record(stream)
    event.close()
    with pytest.raises(tessel.TesselError, match="the event is closed"):
        event.query()


def test_done_callback_may_close_the_session(block_model_so, gate):
    # Callbacks run on the stream's waiter thread, which close() must not join.
    gate.block_fixture_set_gate(1)
    model = tessel.load(block_model_so)
    session = model.session()
    closed = threading.Event()
    future = session.run_async(tag(1))
    future.add_done_callback(lambda _: (session.close(), closed.set()))
    assert closed.wait(timeout=30) and session.closed
    model.close()


EXIT_SCRIPT = """
import ctypes, json, sys, time
import numpy as np
import tessel

hooks = ctypes.CDLL(sys.argv[1])
hooks.block_fixture_reset(0, 300)  # the run gives up (and fails) after 300 ms
hooks.block_fixture_set_gate(0)
session = tessel.load(sys.argv[1]).session()
future = session.run_async({"tag": np.array([1], np.int32)})

class Slow:
    # Keeps the interpreter finalizing while the run fails: the stream's
    # waiter wakes then, and taking the GIL back ends it (pthread_exit).
    def __init__(self):
        self.sleep = time.sleep
    def __del__(self):
        self.sleep(1.0)

json.slow = Slow()  # a module's attribute: collected late in finalization
"""


def test_interpreter_exit_with_a_run_in_flight(block_model_so, tmp_path):
    # Before the waits were CPython-called functions, the unwinding that
    # ended the waiter met nanobind's noexcept GIL guard: "terminate called
    # without an active exception", status -6.
    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.dirname(os.path.dirname(tessel.__file__)),
                      os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, str(script), str(block_model_so)],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr

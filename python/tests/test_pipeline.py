"""tessel.Pipeline: order, outputs, errors with the request index, depth,
overlap and closing.

The overlap is made deterministic by the runtime tests' gate artifact
(block_model.c), as in test_async.py: its runs block until the test opens
the gate, and fail with code 3 at a deadline instead of hanging a test.
"""

import ctypes
import threading
import time

import numpy as np
import pytest

import tessel
from tessel import _ext
from conftest import DEADLINE_MS, TINY_CNN, gate, log  # noqa: F401 (gate: a fixture)



@pytest.fixture
def cnn_session(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model, model.session(num_threads=1) as session:
        yield session


@pytest.fixture
def images():
    rng = np.random.default_rng(11)
    return [rng.standard_normal((1, 1, 28, 28), np.float32) for _ in range(24)]


@pytest.mark.parametrize("depth,streams", [(2, 1), (3, 2), (4, 3)])
def test_outputs_come_in_order_and_equal_synchronous_runs(cnn_session, images,
                                                          depth, streams):
    expected = [cnn_session.run([image])["probabilities"] for image in images]
    rng = np.random.default_rng(3)
    delays = rng.uniform(0, 0.002, len(images))

    def preprocess(index):
        time.sleep(delays[index])  # uneven preprocessing must not reorder
        return {"image": images[index]}

    with tessel.Pipeline(cnn_session, preprocess, depth, streams) as pipeline:
        results = list(pipeline.map(range(len(images))))
    assert len(results) == len(images)
    for got, want in zip(results, expected):
        assert list(got) == ["probabilities"]
        np.testing.assert_array_equal(got["probabilities"], want)
    np.testing.assert_allclose(
        cnn_session.run([np.load(TINY_CNN / "input.npy")])["probabilities"],
        np.load(TINY_CNN / "expected.npy"), rtol=1e-4, atol=1e-5)


def test_the_first_two_requests_match_the_reference(cnn_session):
    image = np.load(TINY_CNN / "input.npy")
    with tessel.Pipeline(cnn_session, lambda x: [x], depth=3) as pipeline:
        outputs = list(pipeline.map([image, image]))
    for got in outputs:
        np.testing.assert_allclose(got["probabilities"],
                                   np.load(TINY_CNN / "expected.npy"),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_depth_bounds_the_requests_in_flight(cnn_session, images, depth):
    pulled = []
    preprocessing = []
    most_at_once = [0]
    lock = threading.Lock()

    def requests():
        for index in range(10):
            pulled.append(index)
            yield index

    def preprocess(index):
        with lock:
            preprocessing.append(index)
            most_at_once[0] = max(most_at_once[0], len(preprocessing))
        time.sleep(0.001)
        with lock:
            preprocessing.remove(index)
        return [images[index]]

    with tessel.Pipeline(cnn_session, preprocess, depth=depth) as pipeline:
        for yielded, _ in enumerate(pipeline.map(requests())):
            # Read exactly `depth` ahead of what has been yielded, no more.
            assert len(pulled) == min(yielded + depth, 10)
    assert most_at_once[0] == 1  # one worker


def test_a_preprocess_error_names_its_request(cnn_session, images):
    def preprocess(index):
        if index == 5:
            raise ValueError("not a JPEG")
        return [images[index]]

    got = []
    with tessel.Pipeline(cnn_session, preprocess) as pipeline:
        with pytest.raises(tessel.PipelineError) as raised:
            for outputs in pipeline.map(range(10)):
                got.append(outputs)
        # The pipeline stays usable after a failed map.
        assert len(list(pipeline.map(range(3)))) == 3
    assert len(got) == 5  # the requests before it
    error = raised.value
    assert (error.index, error.stage) == (5, "preprocess")
    assert isinstance(error.__cause__, ValueError)
    assert str(error) == "request 5: preprocess failed: ValueError: not a JPEG"


def test_inputs_the_session_refuses_name_their_request(cnn_session, images):
    def preprocess(index):
        return [images[index][..., :27] if index == 2 else images[index]]

    with tessel.Pipeline(cnn_session, preprocess) as pipeline:
        with pytest.raises(tessel.PipelineError) as raised:
            list(pipeline.map(range(4)))
    assert (raised.value.index, raised.value.stage) == (2, "run")
    assert isinstance(raised.value.__cause__, tessel.TesselError)
    assert "float32[1,1,28,28]" in str(raised.value)


def test_a_failed_run_names_its_request(failing_model_so):
    a = np.ones((2, 3), np.float32)
    with tessel.load(failing_model_so) as model, model.session(num_threads=1) as session, \
            tessel.Pipeline(session, lambda _: [a, a]) as pipeline:
        with pytest.raises(tessel.PipelineError) as raised:
            list(pipeline.map(range(3)))
    assert (raised.value.index, raised.value.stage) == (0, "run")
    assert raised.value.__cause__.code_name == "runtime error"


@pytest.mark.parametrize("depth", [1, 2])
def test_the_next_request_is_preprocessed_while_the_model_runs(
        block_model_so, gate, depth):
    seen = {}

    def preprocess(index):
        if index == 1:
            if depth == 2:
                # Run 0 is inside the model, held by the gate: preprocessing
                # request 1 overlaps it.
                seen["started"] = bool(gate.block_fixture_wait_started(1, DEADLINE_MS))
            seen["log"] = log(gate)
            gate.block_fixture_set_gate(1)
        return {"tag": np.array([index], np.int32)}

    def open_gate_for_depth_1():
        # With depth 1 request 1 is preprocessed only after request 0 is
        # yielded, so the gate must open without it.
        if depth == 1:
            assert gate.block_fixture_wait_started(1, DEADLINE_MS)
            gate.block_fixture_set_gate(1)

    with tessel.load(block_model_so) as model, model.session(num_threads=1) as session, \
            tessel.Pipeline(session, preprocess, depth=depth) as pipeline:
        opener = threading.Thread(target=open_gate_for_depth_1)
        opener.start()
        results = [outputs["seq"][0] for outputs in pipeline.map(range(4))]
        opener.join()
    assert results == [0, 2, 4, 6]  # the log position of each run's start
    assert log(gate) == [0, 1, 2, 3, 4, 5, 6, 7]
    if depth == 2:
        assert seen == {"started": True, "log": [0]}  # started, not ended
    else:
        assert seen == {"log": [0, 1]}  # over before request 1 was preprocessed


def test_two_streams_overlap_the_runs_of_consecutive_requests(block_model_so, gate):
    if _ext.module().runtime_num_threads() < 2:
        pytest.skip("the runtime's thread pool has one thread")
    # Each run waits until two runs have started: they finish only if the
    # runs of requests n and n+1 happen at the same time.
    gate.block_fixture_reset(2, DEADLINE_MS)
    with tessel.load(block_model_so) as model, model.session(num_threads=1) as session, \
            tessel.Pipeline(session, lambda i: [np.array([i], np.int32)],
                            depth=3, streams=2) as pipeline:
        results = [outputs["seq"][0] for outputs in pipeline.map(range(6))]
    # (A run that waited in vain would fail: a PipelineError.)
    assert len(results) == 6
    assert log(gate)[:2] == [0, 2]  # requests 0 and 1 started before either ended
    assert gate.block_fixture_max_running() == 2


def test_stopping_early_and_closing(cnn_session, images):
    def forever():
        index = 0
        while True:
            yield index % len(images)
            index += 1

    pipeline = tessel.Pipeline(cnn_session, lambda i: [images[i]], depth=3)
    outputs = pipeline.map(forever())
    first = [next(outputs) for _ in range(4)]
    outputs.close()  # the consumer stops; the in-flight requests are dropped
    assert len(first) == 4
    pipeline.close()
    pipeline.close()
    assert pipeline.closed and "closed" in repr(pipeline)
    with tessel.Pipeline(cnn_session, lambda i: [images[i]], depth=3) as other:
        outputs = other.map(forever())
        next(outputs)
    with pytest.raises(tessel.TesselError, match="the pipeline is closed"):
        next(outputs)  # a map still going when its pipeline closes
    with pytest.raises(tessel.TesselError, match="the pipeline is closed"):
        pipeline.map([0])
    # The session is the caller's: still open.
    assert cnn_session.run([images[0]])["probabilities"].shape == (1, 10)


def test_arguments_are_checked(cnn_session):
    with pytest.raises(tessel.TesselError, match="depth must be an int >= 1"):
        tessel.Pipeline(cnn_session, list, depth=0)
    with pytest.raises(tessel.TesselError, match="depth must be an int >= 1"):
        tessel.Pipeline(cnn_session, list, depth=True)
    with pytest.raises(tessel.TesselError, match="preprocess must be callable"):
        tessel.Pipeline(cnn_session, None)
    with pytest.raises(tessel.TesselError, match="streams must be an int >= 1"):
        tessel.Pipeline(cnn_session, list, streams=0)

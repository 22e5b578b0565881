"""Artifacts with a dynamic batch (ABI 1.4, tessel-compile --dim-range).

The runtime tests' hand-written artifact (dynamic_batch_model.c: N in
1..16, entries for batch 1, 4 and 8, a "batch" output naming the entry that
ran each row) shows the chunking; examples/tiny_cnn compiled with
--dim-range shows a real artifact computing what onnxruntime does.
"""

import numpy as np
import pytest

import tessel
from conftest import TINY_CNN


def rows(batch):
    x = np.arange(3 * batch, dtype=np.float32).reshape(batch, 3)
    bias = (10 * np.arange(batch, dtype=np.float32)).reshape(batch, 1)
    return {"x": x, "bias": bias}


def chunks(batch):
    """The entry batch of every row in a session's first run, before it has
    measured its entries: the largest of 8, 4, 1 that fits."""
    out = []
    while len(out) < batch:
        left = batch - len(out)
        size = 8 if left >= 8 else 4 if left >= 4 else 1
        out += [size] * size
    return out


def test_the_model_says_its_range(dynamic_model_so, add_model_so):
    with tessel.load(dynamic_model_so) as model:
        assert model.batch_range == (1, 16)
        assert model.descriptor.batch_name == "N"
        assert model.inputs[0].shape == (1, 3)  # batch 1's
    with tessel.load(add_model_so) as model:
        assert model.batch_range is None
        assert model.descriptor.batch_name is None


@pytest.mark.parametrize("batch", [1, 5, 13, 16])
def test_any_batch_in_the_range_runs(dynamic_model_so, batch):
    inputs = rows(batch)
    with tessel.load(dynamic_model_so) as model, model.session() as session:
        outputs = session.run(inputs)  # the fast path: a dict of arrays
        assert outputs["y"].shape == (batch, 3)
        np.testing.assert_array_equal(outputs["y"],
                                      inputs["x"] + inputs["bias"])
        assert outputs["batch"][:, 0].tolist() == chunks(batch)
        # The checked path: a list, and a non-contiguous array.
        x = np.repeat(inputs["x"], 2, axis=0)[::2]
        listed = session.run([x, inputs["bias"]])
        np.testing.assert_array_equal(listed["y"], outputs["y"])


def test_run_async_takes_its_batch(dynamic_model_so):
    with tessel.load(dynamic_model_so) as model, model.session() as session:
        futures = [session.run_async(rows(batch)) for batch in (7, 2)]
        for batch, future in zip((7, 2), futures):
            outputs = future.result()
            assert outputs["y"].shape == (batch, 3)
            inputs = rows(batch)
            np.testing.assert_array_equal(outputs["y"],
                                          inputs["x"] + inputs["bias"])
            # The first run's chunks are the largest entries that fit; the
            # second's follow what the session measured (a padded chunk of
            # 4 may run its 2 rows), so only the entries are known.
            assert set(outputs["batch"][:, 0].tolist()) <= {1, 4, 8}
        assert futures[0].result()["batch"][:, 0].tolist() == chunks(7)


@pytest.mark.parametrize("listed", [False, True])
def test_a_batch_outside_the_range_raises(dynamic_model_so, listed):
    inputs = rows(17)
    with tessel.load(dynamic_model_so) as model, model.session() as session:
        with pytest.raises(tessel.TesselError) as error:
            session.run(list(inputs.values()) if listed else inputs)
    assert error.value.code_name == "invalid argument"
    assert error.value.message == (
        "input 'x': dimension 0 (batch 'N') is 17, outside the artifact's "
        "range 1..16")


def test_inputs_of_different_batches_raise(dynamic_model_so):
    inputs = {"x": rows(5)["x"], "bias": rows(3)["bias"]}
    with tessel.load(dynamic_model_so) as model, model.session() as session:
        with pytest.raises(tessel.TesselError) as error:
            session.run(inputs)
        assert error.value.message == (
            "input 'bias': batch 3 differs from the batch 5 of input 'x'")
        with pytest.raises(tessel.TesselError) as error:
            session.run({"x": rows(5)["x"][:, :2].copy(),
                         "bias": rows(5)["bias"]})
        assert error.value.message == (
            "input 'x': expected float32[N,3] (N in 1..16), got float32[5,2]")


def test_a_scheduler_serves_one_dynamic_artifact(dynamic_model_so):
    samples = [rows(1) for _ in range(6)]
    for i, sample in enumerate(samples):
        sample["x"] += i
    with tessel.Scheduler([dynamic_model_so], max_batch=6,
                          window_us=10_000_000) as scheduler:
        assert scheduler.batch_sizes == (16,)
        futures = [scheduler.submit(sample) for sample in samples]
        results = [future.result() for future in futures]
        stats = scheduler.stats()
    for sample, outputs in zip(samples, results):
        np.testing.assert_array_equal(outputs["y"],
                                      sample["x"] + sample["bias"])
    # One run of exactly 6 rows: 4 + 1 + 1 inside the runtime.
    ran = [int(outputs["batch"][0, 0]) for outputs in results]
    assert ran == [4] * 4 + [1] * 2
    assert stats.batches == 1 and stats.model_runs == 1
    assert stats.padded_rows == 0


@pytest.fixture(scope="module")
def dynamic_cnn_so(compiler, tmp_path_factory):
    """examples/tiny_cnn compiled with a dynamic batch N in 1..8, with code
    for batch 1 and 4."""
    out = tmp_path_factory.mktemp("tiny_cnn_dynamic") / "model.so"
    return tessel.compile(TINY_CNN / "model.onnx", out,
                          input_shapes={"image": ("?", 1, 28, 28)},
                          dim_range="N=1..8", specialize="N=1,4")


def test_a_compiled_dynamic_batch_matches_onnxruntime(dynamic_cnn_so):
    ort = pytest.importorskip("onnxruntime")
    reference = ort.InferenceSession(str(TINY_CNN / "model.onnx"),
                                     providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3)
    images = rng.standard_normal((7, 1, 28, 28), np.float32)
    expected = np.concatenate([
        reference.run(None, {"image": images[i:i + 1]})[0] for i in range(7)])
    with tessel.load(dynamic_cnn_so) as model, model.session() as session:
        assert model.batch_range == (1, 8)
        for batch in (7, 4, 1):  # 4 + 1 + 1 + 1, one chunk of 4, batch 1
            outputs = session.run({"image": images[:batch]})
            assert outputs["probabilities"].shape == (batch, 10)
            np.testing.assert_allclose(outputs["probabilities"],
                                       expected[:batch], rtol=1e-4, atol=1e-5)
        with pytest.raises(tessel.TesselError, match="is 9, outside"):
            session.run({"image": np.zeros((9, 1, 28, 28), np.float32)})

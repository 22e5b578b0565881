"""Artifacts with a padded dimension (ABI 1.5, tessel-compile --dim-range
on a dimension other than the batch).

The runtime tests' hand-written artifact (padded_model.c: S in 1..8,
entries for lengths 4 and 8, a "length" output naming the entry that ran)
shows the padding: an entry fails when a padded position is not 0.
"""

import numpy as np
import pytest

import tessel


def tensors(length):
    x = (np.arange(2 * length, dtype=np.float32) % 7 + 1).reshape(1, length, 2)
    w = (np.arange(length, dtype=np.float32) * 0.5).reshape(1, length)
    return {"x": x, "w": w}


def test_the_model_says_its_range(padded_model_so, add_model_so):
    with tessel.load(padded_model_so) as model:
        assert model.padded_range == (1, 8)
        assert model.descriptor.padded_name == "S"
        assert model.descriptor.padded_input_dims == (1, 1)
        assert model.descriptor.padded_output_dims == (1, -1)
        assert model.inputs[0].shape == (1, 4, 2)  # the shortest entry's
    with tessel.load(add_model_so) as model:
        assert model.padded_range is None
        assert model.descriptor.padded_name is None


@pytest.mark.parametrize("length", [1, 3, 4, 5, 8])
def test_any_length_in_the_range_runs(padded_model_so, length):
    inputs = tensors(length)
    with tessel.load(padded_model_so) as model, model.session() as session:
        outputs = session.run(inputs)
        assert outputs["y"].shape == (1, length, 2)
        total = inputs["x"][0, :, 0].sum()
        np.testing.assert_array_equal(
            outputs["y"], inputs["x"] + inputs["w"][..., None] + total)
        assert outputs["length"].tolist() == [[4 if length <= 4 else 8]]
        future = session.run_async(inputs)
        np.testing.assert_array_equal(future.result()["y"], outputs["y"])


def test_a_length_outside_the_range_is_refused(padded_model_so):
    with tessel.load(padded_model_so) as model, model.session() as session:
        with pytest.raises(tessel.TesselError, match=r"range 1\.\.8"):
            session.run(tensors(9))
        mixed = tensors(5)
        mixed["w"] = tensors(6)["w"]
        with pytest.raises(tessel.TesselError,
                           match="but input 'x' has length 5"):
            session.run(mixed)


@pytest.fixture(scope="module")
def padded_encoder(compiler, tmp_path_factory):
    """test/Inputs/models.py's padded_encoder (an attention layer over a
    symbolic batch N and length S) compiled with N in 1..2 and S in 1..12,
    through tessel.compile's list of ranges."""
    onnx = pytest.importorskip("onnx")
    import importlib.util
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "models", root / "test" / "Inputs" / "models.py")
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    graph, _ = models.padded_encoder(np.random.default_rng(0))
    model = onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    out = tmp_path_factory.mktemp("padded_encoder")
    onnx.save(model, str(out / "model.onnx"))
    so = tessel.compile(out / "model.onnx", out / "model.so",
                        dim_range=["N=1..2", "S=1..12"],
                        specialize=["S=6"])
    return out / "model.onnx", so


def test_a_compiled_padded_encoder_matches_onnxruntime(padded_encoder):
    ort = pytest.importorskip("onnxruntime")
    onnx_path, so = padded_encoder
    reference = ort.InferenceSession(str(onnx_path),
                                     providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(5)
    with tessel.load(so) as model, model.session() as session:
        assert model.padded_range == (1, 12)
        assert model.batch_range == (1, 2)
        for batch, length in ((1, 1), (2, 4), (1, 6), (2, 9), (1, 12)):
            x = rng.standard_normal((batch, length, 16), np.float32)
            want = reference.run(None, {"x": x})
            got = session.run({"x": x})
            assert got["y"].shape == (batch, length, 16)
            np.testing.assert_allclose(got["y"], want[0], rtol=1e-4,
                                       atol=1e-5)
            np.testing.assert_allclose(got["first"], want[1], rtol=1e-4,
                                       atol=1e-5)
        with pytest.raises(tessel.TesselError, match="outside"):
            session.run({"x": np.zeros((1, 13, 16), np.float32)})

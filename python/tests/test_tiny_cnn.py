"""End to end: compile examples/tiny_cnn, load it, run it, compare with the
probabilities onnxruntime computed (examples/tiny_cnn/expected.npy)."""

import json

import numpy as np
import pytest

import tessel
from conftest import TINY_CNN

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture
def image():
    return np.load(TINY_CNN / "input.npy")


@pytest.fixture
def expected():
    return np.load(TINY_CNN / "expected.npy")


def test_metadata(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model:
        assert model.name == "tiny_cnn"
        assert model.inputs == [tessel.TensorInfo("image", np.float32, (1, 1, 28, 28))]
        assert model.outputs == [tessel.TensorInfo("probabilities", np.float32, (1, 10))]
        assert model.inputs[0].dtype == np.dtype(np.float32)
        assert model.inputs[0].shape == (1, 1, 28, 28)
        descriptor = model.descriptor
        assert descriptor.compiler_version.startswith("tessel ")
        assert "-O2" in descriptor.compile_flags
        assert descriptor.target == "cpu"
        assert descriptor.target_cpu not in ("", "host")
        assert descriptor.abi_version[0] == 1


def test_run_matches_onnxruntime(tiny_cnn_so, image, expected):
    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        outputs = session.run({"image": image})
    assert list(outputs) == ["probabilities"]
    np.testing.assert_allclose(outputs["probabilities"], expected, rtol=RTOL, atol=ATOL)


def test_run_with_list_and_threads(tiny_cnn_so, image, expected):
    with tessel.load(tiny_cnn_so) as model, model.session(num_threads=1) as session:
        assert session.num_threads == 1
        first = session.run([image])["probabilities"]
        second = session.run((image,))["probabilities"]
    np.testing.assert_allclose(first, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(first, second)


def test_non_contiguous_input_is_copied_not_converted(tiny_cnn_so, image, expected):
    # Every other column of a wider array: same values, strided memory.
    wide = np.zeros((1, 1, 28, 56), np.float32)
    wide[..., ::2] = image
    strided = wide[..., ::2]
    assert not strided.flags.c_contiguous
    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        out = session.run({"image": strided})["probabilities"]
    np.testing.assert_allclose(out, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(wide[..., ::2], image)  # input untouched


def test_misaligned_and_subclassed_inputs_are_passed_as_values(tiny_cnn_so, image,
                                                              expected):
    # A float32 array one byte into its buffer (misaligned), and an ndarray
    # subclass: neither takes run's fast path; both give the same outputs.
    raw = np.zeros(image.nbytes + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(image.shape)
    misaligned[...] = image
    assert not misaligned.flags.aligned

    class Tagged(np.ndarray):
        pass

    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        for value in (misaligned, image.view(Tagged), image):
            out = session.run({"image": value})["probabilities"]
            np.testing.assert_allclose(out, expected, rtol=RTOL, atol=ATOL)


def test_session_outlives_closed_model(tiny_cnn_so, image, expected):
    model = tessel.load(tiny_cnn_so)
    session = model.session()
    model.close()
    model.close()  # a second close is a no-op
    assert model.closed and model.name == "tiny_cnn"
    out = session.run([image])["probabilities"]
    np.testing.assert_allclose(out, expected, rtol=RTOL, atol=ATOL)
    session.close()
    assert session.closed


def test_compile_options_and_report(tmp_path, image, expected, compiler):
    out = tmp_path / "model.so"
    report = tmp_path / "report.json"
    tessel.compile(str(TINY_CNN / "model.onnx"), out, target="cpu", target_cpu="x86-64",
                   opt_level=0, input_shapes={"image": (1, 1, 28, 28)}, report=report)
    assert "schema_version" in json.loads(report.read_text())
    with tessel.load(out) as model, model.session() as session:
        assert model.descriptor.target_cpu == "x86-64"
        assert "-O0" in model.descriptor.compile_flags
        np.testing.assert_allclose(session.run([image])["probabilities"], expected,
                                   rtol=RTOL, atol=ATOL)

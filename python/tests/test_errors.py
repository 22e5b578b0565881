"""Every mistake raises TesselError with a code name and a message that says
what is wrong: the runtime's, the compiler's, or the binding's own."""

import numpy as np
import pytest

import tessel
from conftest import TINY_CNN


@pytest.fixture
def session(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        yield session


def good_image():
    return np.zeros((1, 1, 28, 28), np.float32)


def test_wrong_shape(session):
    with pytest.raises(tessel.TesselError) as error:
        session.run({"image": np.zeros((1, 1, 28, 27), np.float32)})
    assert error.value.code_name == "invalid argument"
    assert error.value.message == (
        "input 'image': expected float32[1,1,28,28], got float32[1,1,28,27]")


def test_wrong_dtype_is_not_converted(session):
    with pytest.raises(tessel.TesselError) as error:
        session.run({"image": good_image().astype(np.float64)})
    assert error.value.code_name == "invalid argument"
    assert error.value.message == (
        "input 'image': expected float32[1,1,28,28], got float64[1,1,28,28]")
    assert str(error.value).startswith("invalid argument: input 'image'")


def test_unknown_input_name(session):
    with pytest.raises(tessel.TesselError, match=r"unknown input 'img'; the model's "
                       r"inputs are 'image' float32\[1,1,28,28\]") as error:
        session.run({"image": good_image(), "img": good_image()})
    assert error.value.code_name == "invalid argument"


def test_misnamed_input_in_a_dict_of_the_right_size(session):
    with pytest.raises(tessel.TesselError, match=r"unknown input 'img'"):
        session.run({"img": good_image()})


def test_missing_input(session):
    with pytest.raises(tessel.TesselError,
                       match=r"missing input 'image' float32\[1,1,28,28\]"):
        session.run({})


def test_wrong_input_count_in_a_list(session):
    with pytest.raises(tessel.TesselError, match="expected 1 input, got 2"):
        session.run([good_image(), good_image()])


def test_not_an_array(session):
    with pytest.raises(tessel.TesselError, match="input 'image' must be a numpy array, not list"):
        session.run({"image": good_image().tolist()})
    with pytest.raises(tessel.TesselError, match="mapping from input names"):
        session.run(good_image())


def test_dtype_without_tessel_equivalent(session):
    with pytest.raises(tessel.TesselError, match="complex64.*no Tessel element type"):
        session.run([good_image().astype(np.complex64)])


def test_closed_session_and_model(tiny_cnn_so):
    model = tessel.load(tiny_cnn_so)
    session = model.session()
    session.close()
    with pytest.raises(tessel.TesselError, match="the session is closed"):
        session.run([good_image()])
    model.close()
    with pytest.raises(tessel.TesselError, match="the model is closed"):
        model.session()


def test_bad_session_options(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model:
        with pytest.raises(tessel.TesselError) as error:
            model.session(num_threads=-1)
    assert error.value.code_name == "invalid argument"
    assert "num_threads" in error.value.message


def test_load_missing_file(tmp_path):
    with pytest.raises(tessel.TesselError) as error:
        tessel.load(tmp_path / "absent.so")
    assert error.value.code_name == "not found"
    assert "absent.so" in error.value.message


def test_load_non_artifact(tmp_path):
    onnx_file = tmp_path / "model.so"
    onnx_file.write_bytes((TINY_CNN / "model.onnx").read_bytes())
    with pytest.raises(tessel.TesselError) as error:
        tessel.load(onnx_file)
    assert error.value.code_name == "invalid artifact"
    assert str(onnx_file) in error.value.message


def test_compile_garbage(tmp_path, compiler):
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"this is not a protobuf\xff\xff\xff")
    with pytest.raises(tessel.TesselError) as error:
        tessel.compile(garbage, tmp_path / "garbage.so")
    assert error.value.code_name == "compile error"
    assert error.value.message.startswith(f"{garbage}: error[E0002]: not a valid ONNX model")
    assert not (tmp_path / "garbage.so").exists()


def test_compile_bad_options(tmp_path, compiler):
    with pytest.raises(tessel.TesselError, match="opt_level must be 0, 1, 2 or 3"):
        tessel.compile(TINY_CNN / "model.onnx", tmp_path / "m.so", opt_level=4)
    with pytest.raises(tessel.TesselError) as error:
        tessel.compile(TINY_CNN / "model.onnx", tmp_path / "m.so",
                       input_shapes={"nope": (1, 2)})
    assert error.value.code_name == "compile error"
    assert "--input-shape names 'nope', which is not a graph input" in error.value.message
    # tessel-compile's usage errors (exit 2) are the caller's mistakes.
    with pytest.raises(tessel.TesselError) as error:
        tessel.compile(TINY_CNN / "model.onnx", tmp_path / "m.so", target_cpu="bogus")
    assert error.value.code_name == "invalid argument"
    assert "unknown target CPU 'bogus'" in error.value.message
    with pytest.raises(tessel.TesselError) as error:
        tessel.compile(TINY_CNN / "model.onnx", tmp_path / "m.so", target="bogus")
    assert error.value.code_name == "invalid argument"
    assert "unsupported --target 'bogus'" in error.value.message

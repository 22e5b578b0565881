"""Session.run's two paths: the extension's fast path (a dict of exactly the
model's inputs, each a plain ndarray of its dtype, C-contiguous and aligned)
and the checked Python path for everything else. Both return the same
outputs; the extension refuses what the Python layer would never pass it."""

import numpy as np
import pytest

import tessel
from conftest import TINY_CNN


@pytest.fixture
def session(tiny_cnn_so):
    with tessel.load(tiny_cnn_so) as model, model.session(num_threads=1) as session:
        yield session


@pytest.fixture
def image():
    return np.load(TINY_CNN / "input.npy")


def misaligned_copy(array):
    """The same values at an address that is not a multiple of the item
    size (NumPy's `aligned` flag false)."""
    raw = np.zeros(array.nbytes + 1, np.uint8)
    view = raw[1:].view(array.dtype).reshape(array.shape)
    view[...] = array
    assert not view.flags.aligned
    return view


class Subclass(np.ndarray):
    pass


def checked_path_only(session):
    """Makes the checked path raise, so that a run that returns took the
    fast path."""
    def refuse(_inputs):
        raise AssertionError("took the checked path")
    session._ordered = refuse


def test_plain_dict_takes_the_fast_path(session, image):
    expected = session.run([image])["probabilities"]
    checked_path_only(session)
    outputs = session.run({"image": image})
    assert list(outputs) == ["probabilities"]
    np.testing.assert_array_equal(outputs["probabilities"], expected)
    assert outputs["probabilities"].dtype == np.float32
    assert outputs["probabilities"].shape == (1, 10)
    # A fresh output array per run.
    assert session.run({"image": image})["probabilities"] is not outputs["probabilities"]


def strided_copy(array):
    """The same values every other element of a wider array."""
    wide = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    wide[..., ::2] = array
    return wide[..., ::2]


@pytest.mark.parametrize("make", [
    strided_copy,
    misaligned_copy,
    lambda a: a.view(Subclass),
], ids=["strided", "misaligned", "subclass"])
def test_other_inputs_take_the_checked_path_with_the_same_result(session, image, make):
    expected = session.run({"image": image})["probabilities"]
    given = make(image)
    np.testing.assert_array_equal(given, image)
    np.testing.assert_array_equal(session.run({"image": given})["probabilities"], expected)
    checked_path_only(session)
    with pytest.raises(AssertionError, match="took the checked path"):
        session.run({"image": given})


def test_fast_path_errors_are_the_runtimes(session, image):
    checked_path_only(session)
    with pytest.raises(tessel.TesselError) as error:
        session.run({"image": np.zeros((1, 1, 28, 27), np.float32)})
    assert error.value.message == (
        "input 'image': expected float32[1,1,28,28], got float32[1,1,28,27]")
    session.close()
    with pytest.raises(tessel.TesselError, match="the session is closed"):
        session.run({"image": image})


def test_non_native_byte_order_is_refused_not_read(session, image):
    with pytest.raises(tessel.TesselError, match=r">f4.*no Tessel element type"):
        session.run({"image": image.astype(">f4")})


def test_extension_refuses_what_the_python_layer_never_passes(session, image):
    ext = session._ext_object
    out = np.empty((1, 10), np.float32)
    cases = [
        (strided_copy(image), "input 0 is not C-contiguous"),
        (image.astype(np.complex64), "input 0 has no Tessel element type"),
        (image.astype(">f4"), "input 0 has no Tessel element type"),
        ([0.0] * 784, "input 0 is not a CPU array"),
    ]
    for given, message in cases:
        with pytest.raises(tessel.TesselError, match=message):
            ext.run([given], [out])
    read_only = np.empty((1, 10), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(tessel.TesselError, match="output 0 is not a writable CPU array"):
        ext.run([image], [read_only])
    with pytest.raises(tessel.TesselError, match="output 0 is not C-contiguous"):
        ext.run([image], [np.empty((1, 20), np.float32)[:, ::2]])


def test_every_dtype_takes_the_fast_path(copy_model_so):
    from test_dtypes import NUMPY_TYPES, sample

    inputs = {f"in_{t}": sample(t) for t in NUMPY_TYPES}
    inputs["in_scalar"] = np.array(-(2**40), np.int64)
    inputs["in_empty"] = np.zeros((0, 3), np.float32)
    with tessel.load(copy_model_so) as model, model.session() as session:
        checked_path_only(session)
        outputs = session.run(inputs)
    for t in NUMPY_TYPES:
        assert outputs[f"out_{t}"].dtype == np.dtype(t)
        np.testing.assert_array_equal(outputs[f"out_{t}"], inputs[f"in_{t}"])
    assert outputs["out_scalar"].shape == () and outputs["out_scalar"] == -(2**40)
    assert outputs["out_empty"].shape == (0, 3)

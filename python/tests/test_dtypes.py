"""Every element type of abi.h through the binding, on a hand-written
artifact (tests/fixtures/copy_model.c) whose outputs copy its inputs: the
compiler itself only writes float32 models so far."""

import numpy as np
import pytest

import tessel

NUMPY_TYPES = ["float32", "uint8", "int8", "uint16", "int16", "int32", "int64",
               "bool", "float16", "float64", "uint32", "uint64"]


def sample(dtype):
    values = np.array([[0, 1, 2], [3, 4, 5]])
    if dtype == "bool":
        return values % 2 == 1
    if dtype.startswith("float"):
        return (values / 4 - 0.5).astype(dtype)
    return (values * 7 + (0 if dtype.startswith("u") else -11)).astype(dtype)


def test_metadata(copy_model_so):
    with tessel.load(copy_model_so) as model:
        names = [info.name for info in model.inputs]
        assert names == [f"in_{t}" for t in NUMPY_TYPES] + ["in_scalar", "in_empty"]
        for info, dtype in zip(model.inputs, NUMPY_TYPES):
            assert info.dtype == np.dtype(dtype) and info.shape == (2, 3)
        assert model.inputs[7].dtype == np.bool_
        assert model.outputs[-2] == tessel.TensorInfo("out_scalar", np.int64, ())
        assert model.outputs[-1] == tessel.TensorInfo("out_empty", np.float32, (0, 3))


def test_every_dtype_round_trips(copy_model_so):
    inputs = {f"in_{t}": sample(t) for t in NUMPY_TYPES}
    inputs["in_scalar"] = np.array(-(2**40), np.int64)
    inputs["in_empty"] = np.zeros((0, 3), np.float32)
    with tessel.load(copy_model_so) as model, model.session() as session:
        outputs = session.run(inputs)
    assert list(outputs) == [f"out_{t}" for t in NUMPY_TYPES] + ["out_scalar", "out_empty"]
    for t in NUMPY_TYPES:
        assert outputs[f"out_{t}"].dtype == np.dtype(t)
        np.testing.assert_array_equal(outputs[f"out_{t}"], inputs[f"in_{t}"])
    assert outputs["out_scalar"].shape == () and outputs["out_scalar"] == -(2**40)
    assert outputs["out_empty"].shape == (0, 3)


def test_mismatched_integer_width_is_refused(copy_model_so):
    inputs = {f"in_{t}": sample(t) for t in NUMPY_TYPES}
    inputs["in_scalar"] = np.array(1, np.int64)
    inputs["in_empty"] = np.zeros((0, 3), np.float32)
    inputs["in_int16"] = sample("int32")
    with tessel.load(copy_model_so) as model, model.session() as session:
        with pytest.raises(tessel.TesselError,
                           match=r"input 'in_int16': expected int16\[2,3\], got int32\[2,3\]"):
            session.run(inputs)


def test_big_endian_is_refused(copy_model_so):
    inputs = [sample(t) for t in NUMPY_TYPES] + [np.array(1), np.zeros((0, 3), np.float32)]
    inputs[0] = inputs[0].astype(">f4")
    with tessel.load(copy_model_so) as model, model.session() as session:
        with pytest.raises(tessel.TesselError, match=r"input 'in_float32' has numpy dtype >f4"):
            session.run(inputs)


def test_bfloat16_raises_clearly(bfloat16_model_so):
    with tessel.load(bfloat16_model_so) as model:
        info = model.inputs[0]
        assert (info.name, info.dtype_name, info.shape) == ("in_bf16", "bfloat16", (2,))
        assert "bfloat16" in repr(info)
        with pytest.raises(tessel.TesselError, match="NumPy has no bfloat16"):
            info.dtype
        with model.session() as session:
            with pytest.raises(tessel.TesselError,
                               match="output 'out_bf16' is bfloat16, and NumPy has no bfloat16"):
                session.run([np.zeros(2, np.uint16)])

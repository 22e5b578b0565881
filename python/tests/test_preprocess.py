"""--preprocess through the Python package: from a JPEG file to outputs."""

import subprocess
import sys

import numpy as np
import pytest

import tessel
from conftest import REPO_ROOT, TINY_CNN

Image = pytest.importorskip("PIL.Image", reason="scripts/setup.sh installs Pillow")
EXAMPLE = REPO_ROOT / "examples" / "preprocess" / "jpeg_to_logits.py"
SPEC = "crop=28,scale=1/255,mean=0.5,std=0.25"


@pytest.fixture
def jpeg(tmp_path):
    rng = np.random.default_rng(5)
    path = tmp_path / "digit.jpg"
    Image.fromarray(rng.integers(0, 256, (31, 30), dtype=np.uint8)).save(path, quality=90)
    return path


def reference(pixels):
    """numpy's preprocessing, then onnxruntime on the model itself."""
    import onnxruntime as ort
    top = int(round((pixels.shape[0] - 28) / 2.0))
    left = int(round((pixels.shape[1] - 28) / 2.0))
    x = pixels[top:top + 28, left:left + 28, 0].astype(np.float32) / 255
    x = ((x - 0.5) / 0.25)[None, None]
    session = ort.InferenceSession(str(TINY_CNN / "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"image": x})[0]


def test_compiled_preprocessing_matches_numpy(tmp_path, jpeg, compiler):
    with Image.open(jpeg) as image:
        pixels = np.asarray(image.convert("L"))[..., None]
    so = tessel.compile(TINY_CNN / "model.onnx", tmp_path / "pp.so",
                        preprocess=f"input=uint8,hwc,size=31x30,{SPEC}")
    with tessel.load(so) as model, model.session(1) as session:
        assert model.inputs[0].dtype == np.uint8
        assert tuple(model.inputs[0].shape) == (31, 30, 1)
        out = session.run([pixels])["probabilities"]
    np.testing.assert_allclose(out, reference(pixels), rtol=1e-4, atol=1e-6)


def test_bad_spec_is_a_compile_error(tmp_path, compiler):
    with pytest.raises(tessel.TesselError, match=r"E0015.*--preprocess"):
        tessel.compile(TINY_CNN / "model.onnx", tmp_path / "bad.so",
                       preprocess="hwc,crop=40")


def test_example_from_a_jpeg(tmp_path, jpeg, compiler):
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), str(TINY_CNN / "model.onnx"), str(jpeg),
         "--grayscale", "--spec", SPEC, "--out", str(tmp_path / "ex.so")],
        capture_output=True, text=True, check=True).stdout.split("\n")
    with Image.open(jpeg) as image:
        expected = reference(np.asarray(image.convert("L"))[..., None]).reshape(-1)
    index, value = out[0].split("\t")
    assert int(index) == int(np.argmax(expected))
    assert float(value) == pytest.approx(float(expected.max()), rel=1e-4)

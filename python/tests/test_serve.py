"""tessel.serve on a local Ray instance (3 logical CPUs, loopback only, no
HTTP proxy): the MLP of test/Inputs/models.py and examples/tiny_cnn, each one
replica of one thread, answer concurrent requests through deployment handles
with exactly the outputs of direct runs of the same artifact, and refused
inputs come back to their caller alone, naming the input. tiny_cnn compiled
at batch 1 and 4, deployed as one application, takes the scheduler path: one
sample per request, batched by a tessel.Scheduler in the replica, answered
with exactly the outputs of direct runs of the batch-1 artifact. About 25 s
on two cores, most of it starting and stopping Ray."""

import concurrent.futures
import os
import secrets
import subprocess
import sys

import numpy as np
import pytest

# Before Ray is imported. A local Ray instance listens on the machine's
# address; with its laptop switch off it takes 127.0.0.1 instead, so that
# nothing listens beyond loopback. Its token is this run's, in the
# environment (Ray would otherwise write one to ~/.ray/auth_token).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)

ray = pytest.importorskip(
    "ray", reason="ray is not installed: pip install 'ray[serve]' (scripts/setup.sh)")
serve = pytest.importorskip(
    "ray.serve", reason="Ray Serve is not installed: pip install 'ray[serve]'")

import tessel  # noqa: E402
import tessel.serve  # noqa: E402
from conftest import REPO_ROOT  # noqa: E402

REQUESTS = 64
CLIENTS = 16


@pytest.fixture(scope="module")
def mlp_so(compiler, tmp_path_factory):
    """test/Inputs/models.py's MLP (float32[4,64] "x" -> [4,10] "logits"),
    compiled by the build tree's tessel-compile."""
    out = tmp_path_factory.mktemp("mlp")
    subprocess.run([sys.executable, str(REPO_ROOT / "test" / "Inputs" / "models.py"),
                    "mlp", "--out", str(out)], check=True)
    return tessel.compile(out / "mlp.onnx", out / "mlp.so")


@pytest.fixture(scope="module")
def cnn_b4_so(compiler, tmp_path_factory):
    """examples/tiny_cnn compiled for batch 4 (image float32[4,1,28,28])."""
    out = tmp_path_factory.mktemp("tiny_cnn_b4") / "model_b4.so"
    return tessel.compile(REPO_ROOT / "examples" / "tiny_cnn" / "model.onnx", out,
                          input_shapes={"image": (4, 1, 28, 28)})


@pytest.fixture(scope="module")
def handles(mlp_so, tiny_cnn_so, cnn_b4_so):
    """Serve on a fresh local Ray instance, one application per model (and
    tiny_cnn at batch 1 and 4 as "tiny_cnn_batched"); shut down afterwards."""
    package_root = os.path.dirname(os.path.dirname(tessel.__file__))
    # 3 logical CPUs on however many cores: one per one-thread replica.
    ray.init(address="local", num_cpus=3, include_dashboard=False,
             _node_ip_address="127.0.0.1",
             # Replica logs stay in /tmp/ray/session_latest/logs; a replica's
             # error reaches the test as the exception of its request.
             log_to_driver=False,
             # The replicas import this tessel (pytest puts it on sys.path,
             # not in the environment) and find the same build tree.
             runtime_env={"env_vars": {
                 "PYTHONPATH": os.pathsep.join(
                     filter(None, [package_root, os.environ.get("PYTHONPATH")])),
                 "TESSEL_BUILD_DIR": os.environ["TESSEL_BUILD_DIR"]}})
    try:
        serve.start(proxy_location="Disabled")  # handles only: no HTTP
        # One replica each, one thread each: the three CPUs Ray was given.
        # The batched one waits up to 20 ms for a batch to fill, so that the
        # clients' requests are batched whatever the machine's speed.
        yield {name: serve.run(tessel.serve.application(
                   path, num_threads=1, max_replicas=1, **options),
                   name=name, route_prefix=None)
               for name, path, options in (
                   ("mlp", mlp_so, {}), ("tiny_cnn", tiny_cnn_so, {}),
                   ("tiny_cnn_batched", [tiny_cnn_so, cnn_b4_so],
                    {"batch_wait_timeout_s": 0.02}))}
    finally:
        serve.shutdown()
        ray.shutdown()


def random_inputs(model, seed):
    rng = np.random.default_rng(seed)
    return {tensor.name: rng.standard_normal(tensor.shape).astype(tensor.dtype)
            for tensor in model.inputs}


@pytest.mark.parametrize("name", ["mlp", "tiny_cnn"])
def test_concurrent_requests_equal_direct_runs(handles, mlp_so, tiny_cnn_so, name):
    handle = handles[name]
    path = mlp_so if name == "mlp" else tiny_cnn_so
    with tessel.load(path) as model, model.session() as session:
        described = handle.describe.remote().result(timeout_s=60)
        assert described["inputs"] == model.inputs
        assert described["outputs"] == model.outputs
        assert described["batch_sizes"] is None
        # The thread budget reached the replica's session and its pool.
        assert (described["num_threads"], described["runtime_threads"]) == (1, 1)
        assert handle.stats.remote().result(timeout_s=60) is None

        requests = [random_inputs(model, seed) for seed in range(REQUESTS)]
        # Same artifact, same inputs: the same bytes (results do not depend
        # on the thread budget, docs/runtime.md).
        expected = [session.run(inputs) for inputs in requests]
    if name == "tiny_cnn":  # one input: requests may be the bare array
        requests = [inputs["image"] for inputs in requests]

    def call(inputs):
        return handle.remote(inputs).result(timeout_s=60)

    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as clients:
        answers = list(clients.map(call, requests))
    for answer, want in zip(answers, expected):
        assert list(answer) == list(want)
        for output in want:
            np.testing.assert_array_equal(answer[output], want[output])


@pytest.mark.parametrize("bad,message", [
    ({"x": np.zeros((1, 64), np.float32)},
     r"input 'x': expected float32\[4,64\], got float32\[1,64\]"),
    ({"x": np.zeros((4, 64), np.float64)},
     r"input 'x': expected float32\[4,64\], got float64\[4,64\]"),
    ({"y": np.zeros((4, 64), np.float32)},
     r"unknown input 'y'; the model's inputs are 'x' float32\[4,64\]"),
])
def test_refused_inputs_fail_their_request_alone(handles, mlp_so, bad, message):
    good = {"x": np.ones((4, 64), np.float32)}
    with tessel.load(mlp_so) as model, model.session() as session:
        expected = session.run(good)["logits"]
    # In flight together, likely in one batch: only the bad one fails.
    refused, served = handles["mlp"].remote(bad), handles["mlp"].remote(good)
    with pytest.raises(tessel.TesselError, match=message):
        refused.result(timeout_s=60)
    np.testing.assert_array_equal(served.result(timeout_s=60)["logits"], expected)


def test_batched_artifacts_take_the_scheduler_path(handles, tiny_cnn_so):
    handle = handles["tiny_cnn_batched"]
    described = handle.describe.remote().result(timeout_s=60)
    assert described["batch_sizes"] == [1, 4]
    assert [(t.name, t.shape) for t in described["inputs"]] == [("image", (1, 1, 28, 28))]
    assert (described["num_threads"], described["runtime_threads"]) == (1, 1)
    with tessel.load(tiny_cnn_so) as model, model.session() as session:
        requests = [random_inputs(model, 100 + seed) for seed in range(REQUESTS)]
        # One sample per request; the batch-1 artifact's direct runs. Equal
        # bytes: tiny_cnn's batch-4 artifact reduces each row as the batch-1
        # artifact does (test_scheduler.py).
        expected = [session.run(inputs) for inputs in requests]
    requests[::2] = [inputs["image"] for inputs in requests[::2]]  # bare arrays too

    def call(inputs):
        return handle.remote(inputs).result(timeout_s=60)

    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as clients:
        answers = list(clients.map(call, requests))
    for answer, want in zip(answers, expected):
        assert list(answer) == ["probabilities"]
        np.testing.assert_array_equal(answer["probabilities"], want["probabilities"])
    stats = handle.stats.remote().result(timeout_s=60)
    assert stats["completed"] >= REQUESTS and stats["batches"] > 0
    assert stats["mean_batch"] > 1, stats


def test_scheduler_path_refuses_a_batch_at_its_caller(handles):
    good = np.ones((1, 1, 28, 28), np.float32)
    refused = handles["tiny_cnn_batched"].remote(np.ones((4, 1, 28, 28), np.float32))
    served = handles["tiny_cnn_batched"].remote(good)
    with pytest.raises(tessel.TesselError,
                       match=r"input 'image': expected float32\[1,1,28,28\], got "
                             r"float32\[4,1,28,28\] \(a request is one sample"):
        refused.result(timeout_s=60)
    assert served.result(timeout_s=60)["probabilities"].shape == (1, 10)

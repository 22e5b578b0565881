"""tessel-compare's metrics, jump rule, name mapping and plot (the tool end
to end: test/Integration/compare-corrupted-weight.test)."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tessel import compare
from tessel._compare_plot import cosine_svg


def test_metrics_identical_and_scaled():
    a = np.array([1.0, -2.0, 3.0], np.float32)
    m = compare.metrics(a, a)
    assert m == {"cosine": 1.0, "max_abs": 0.0, "max_rel": 0.0}
    # A scaled copy has cosine 1 but its errors show.
    m = compare.metrics(2 * a, a)
    assert m["cosine"] == pytest.approx(1.0)
    assert m["max_abs"] == pytest.approx(3.0)
    assert m["max_rel"] == pytest.approx(1.0)


def test_metrics_zero_and_nan():
    zero = np.zeros(4)
    assert compare.metrics(zero, zero)["cosine"] == 1.0
    assert compare.metrics(np.ones(4), zero)["cosine"] == 0.0
    nan = np.array([1.0, math.nan])
    assert math.isnan(compare.metrics(nan, np.ones(2))["cosine"])
    assert compare.error_of(math.nan) == math.inf


def test_max_rel_is_floored_by_the_reference_range():
    # An error of 1e-3 on an element that is 0 in the reference counts
    # against 0.1% of the largest reference magnitude (10 -> 0.01).
    m = compare.metrics(np.array([10.0, 1e-3]), np.array([10.0, 0.0]))
    assert m["max_rel"] == pytest.approx(0.1)


def rows(*cosines):
    return [{"cosine": c} for c in cosines]


def test_jump_is_the_first_rise_above_factor_and_floor():
    # Errors 1e-7, 2e-7 stay below the floor; 1e-3 is the jump.
    assert compare.mark_jump(rows(1 - 1e-7, 1 - 2e-7, 1 - 1e-3, 0.9), 10, 1e-5) == 2
    # A steady growth by less than the factor per node is no jump after
    # the first that passes the floor.
    assert compare.mark_jump(rows(1 - 2e-5, 1 - 4e-5, 1 - 8e-5), 10, 1e-5) == 0
    assert compare.mark_jump(rows(1.0, 1.0, 1.0), 10, 1e-5) is None
    # Rows not compared are skipped; a NaN is a jump.
    assert compare.mark_jump([{"cosine": None}, {"cosine": math.nan}], 10, 1e-5) == 1


def test_node_names():
    assert compare.node_of("debug:conv1") == ("conv1", 0)
    assert compare.node_of("debug:split:2") == ("split", 2)
    assert compare.node_of("debug:/a/Conv+/a/BN") == ("/a/Conv+/a/BN", 0)
    known = {"a+b": 1, "b": 1}
    assert compare.last_node("conv+bn", {}) == "bn"
    assert compare.last_node("a+b", known) == "a+b"


def test_plot_is_svg_with_one_point_per_compared_row():
    table = [{"output": "debug:a", "node": "a", "cosine": 1.0},
             {"output": "debug:b", "node": "b", "cosine": 0.999},
             {"output": "debug:c", "node": "c", "cosine": None},
             {"output": "y", "node": None, "cosine": 0.5}]
    svg = cosine_svg(table, 1, "x <against> y")
    root = ET.fromstring(svg)
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(circles) == 3
    assert "first jump: b" in svg
    assert "&lt;against&gt;" in svg

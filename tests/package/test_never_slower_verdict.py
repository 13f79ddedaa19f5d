"""The "never slower" grid's flag for each cell (benchmarks/never_slower.py)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from never_slower import verdict  # noqa: E402


@pytest.mark.parametrize(
    "node",
    [
        "BroadcastRangeJoin Inner",
        "KeyGroupIEJoin Inner",
        "CountMatches [i.lo <= p.v < i.hi]",
        "AsOfJoin join type: Inner",
        "KeyedIntervalJoin join type: Inner",
        "PiecewiseMergeJoin LeftOuter",
    ],
)
def test_a_plugin_operator_is_judged_by_its_ratio(node):
    assert verdict(node, 0.05) == ""
    assert verdict(node, 1.1) == ""
    assert verdict(node, 1.2) == "SLOWER"


@pytest.mark.parametrize("node", ["SortMergeJoin [key#337]", "BroadcastNestedLoopJoin BuildRight"])
def test_spark_s_own_operator_runs_both_ways(node):
    assert verdict(node, 1.5) == "Spark's plan both ways"

"""The "never slower" grid's runs and flag for each cell (benchmarks/never_slower.py)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import never_slower  # noqa: E402
from never_slower import best_times, verdict  # noqa: E402


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


def scripted_runs(monkeypatch, seconds):
    """Makes each run of the grid take `seconds(accelerated)`; returns the runs' log."""
    log = []

    def run(spark, query, accelerated, conf):
        log.append(accelerated)
        return seconds(accelerated), [("answer",)]

    monkeypatch.setattr(never_slower, "run", run)
    return log


def test_a_cell_of_a_second_or_more_takes_the_best_of_3_after_a_warm_up(monkeypatch):
    log = scripted_runs(monkeypatch, lambda accelerated: 0.5 if accelerated else 1.0)
    plugin_s, vanilla_s, _, _ = best_times(None, "q", {})
    assert (plugin_s, vanilla_s) == (0.5, 1.0)
    assert log == [True, False] * 4


def test_a_cell_under_a_second_takes_the_best_of_7(monkeypatch):
    times = iter([0.9, 0.8] * 2 + [0.4, 0.3] * 3 + [0.2, 0.35] * 4)
    log = scripted_runs(monkeypatch, lambda accelerated: next(times))
    plugin_s, vanilla_s, _, _ = best_times(None, "q", {})
    assert (plugin_s, vanilla_s) == (0.2, 0.3)
    assert log == [True, False] * 8

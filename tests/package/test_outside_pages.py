"""The pages of the tests from outside the project (dev/outside_pages.py), rendered from
synthetic results files: their tables, the default build first, and every expected difference
and every query that differs with its reason. No count is pinned here."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dev"))

import outside_pages  # noqa: E402
from results_page import read_header  # noqa: E402

SETTINGS = ["spark.rangejoin.minCandidatePairs=0"]


def suites(spark: str, expected: list) -> dict:
    return {
        "spark": spark,
        "settings": SETTINGS,
        "suites": [
            {
                "suite": "JoinSuite",
                "present": True,
                "run": 10,
                "passed": 10 - len(expected),
                "not_run": 1,
                "queries": 40,
                "plugin_queries": 3,
                "operators": ["IEJoin", "PiecewiseMergeJoin"],
                "problems": [],
                "expected_to_differ": expected,
            },
            {"suite": "NewerSuite", "present": False},
        ],
    }


@pytest.fixture
def folders(tmp_path, monkeypatch):
    results, pages = tmp_path / "results", tmp_path / "pages"
    results.mkdir()
    monkeypatch.setattr(outside_pages, "RESULTS", results)
    monkeypatch.setattr(outside_pages, "PAGES", pages)
    return results, pages


def test_spark_suites_page_lists_each_build_default_first_and_each_reason(folders):
    results, pages = folders
    default = outside_pages.default_build()
    difference = {"test": "join operator selection", "reason": "asserts a | class"}
    (results / "spark-suites-0.0.1_2.12.json").write_text(json.dumps(suites("0.0.1", [])))
    (results / f"spark-suites-{default}.json").write_text(json.dumps(suites("9.9.9", [difference])))
    outside_pages.main("spark-suites")
    page = (pages / "spark-suites.md").read_text()
    assert page.index(f"## Spark 9.9.9 ({default})") < page.index("## Spark 0.0.1 (0.0.1_2.12)")
    assert "| JoinSuite | 10 | 9 | 1 | 1 | 40 | 3 | IEJoin, PiecewiseMergeJoin |" in page
    assert "| NewerSuite | not in this release's test jar |" in page
    assert "| JoinSuite | join operator selection | asserts a \\| class |" in page
    assert "`spark.rangejoin.minCandidatePairs=0`" in page
    header = read_header(pages / "spark-suites.md")
    assert header["Spark"].startswith(f"9.9.9 ({default}), 0.0.1 (0.0.1_2.12)")


def test_conformance_page_totals_and_lists_differences(folders):
    results, pages = folders
    file = {
        "file": "join.sql",
        "present": True,
        "rounds": 3,
        "queries": 30,
        "passed": 29,
        "plugin_queries": 2,
        "operators": ["IEJoin"],
        "differ_with_plugin_off": ["[a=b] SELECT 1: struct<a:int>, 1 rows"],
        "expected_to_differ": ["[] SELECT 2: any 2 rows"],
        "wrong": [],
    }
    data = {"spark": "9.9.9", "settings": SETTINGS, "files": [file, dict(file, file="b.sql")]}
    (results / f"conformance-{outside_pages.default_build()}.json").write_text(json.dumps(data))
    outside_pages.main("conformance")
    page = (pages / "conformance.md").read_text()
    assert "| join.sql | 3 | 30 | 29 | 2 | IEJoin | 1 | 1 | 0 |" in page
    assert "| **All** | | 60 | 58 | 4 | | 2 | 2 | 0 |" in page
    assert "- join.sql: [a=b] SELECT 1: struct<a:int>, 1 rows" in page
    assert "- b.sql: [] SELECT 2: any 2 rows" in page


def test_no_results_file_says_which_target_to_run(folders):
    with pytest.raises(SystemExit, match="run the make target first"):
        outside_pages.main("conformance")

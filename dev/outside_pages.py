"""The documentation's pages of the tests from outside the project, written from the results
files the Scala runners leave in target/outside/:

- `spark-suites`: docs/testing/spark-suites.md, from spark-suites-<build>.json (make
  test-spark-suites): Spark's own join suites with the plugin installed, per build.
- `conformance`: docs/testing/conformance.md, from conformance-<build>.json (make conformance):
  Spark's SQL golden files with the plugin installed.

Usage: python dev/outside_pages.py spark-suites|conformance
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from results_page import measured_header, write_page  # noqa: E402

RESULTS = ROOT / "target" / "outside"
PAGES = ROOT / "docs" / "testing"


def results(prefix: str) -> list:
    """The results files of `prefix`, one per build, the default build first."""
    files = sorted(RESULTS.glob(f"{prefix}-*.json"))
    if not files:
        sys.exit(f"no {prefix}-*.json in {RESULTS}: run the make target first")
    loaded = [(f.stem.removeprefix(prefix + "-"), json.loads(f.read_text())) for f in files]
    default = default_build()
    return sorted(loaded, key=lambda b: (b[0] != default, b[0]))


def default_build() -> str:
    for line in (ROOT / "versions.properties").read_text().splitlines():
        if line.startswith("DEFAULT_BUILD="):
            return line.split("=", 1)[1].strip()
    return ""


def settings_text(data: dict) -> str:
    return ", ".join(f"`{s}`" for s in data["settings"])


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def spark_suites_body(builds: list) -> str:
    parts = [
        "Spark's own join suites, run from the test jars Spark publishes with the plugin "
        "installed in every session they build, and its small-input limits set to 0 so that "
        f"it plans its operators even for the few rows of a test table: "
        f"{settings_text(builds[0][1])}. Every test passes except those listed as expected to "
        "differ: each of those asserts which physical operator Spark itself plans, fails with "
        "the plugin on with the failure the runner expects, and passes with the plugin off. "
        "*Not run* counts the tests a suite cancels or ignores itself (its Python UDF tests, "
        "which need a Python with pyspark of the same release). *Queries* counts the queries "
        "that ran to an answer; *with the plugin's operators*, those whose plan held one. "
        "`InnerJoinSuite`, `OuterJoinSuite`, `ExistenceJoinSuite` and `SingleJoinSuite` mostly "
        "build Spark's physical join operators directly rather than through the planner: there "
        "they show that installing the plugin changes nothing it does not plan.",
    ]
    for build, data in builds:
        rows = [
            "| Suite | Tests run | Passed | Expected to differ | Not run | Queries "
            "| With the plugin's operators | Operators |",
            "|---|--:|--:|--:|--:|--:|--:|---|",
        ]
        reasons = []
        for s in data["suites"]:
            if not s["present"]:
                rows.append(f"| {s['suite']} | not in this release's test jar | | | | | | |")
                continue
            rows.append(
                f"| {s['suite']} | {s['run']} | {s['passed']} | {len(s['expected_to_differ'])} "
                f"| {s['not_run']} | {s['queries']} | {s['plugin_queries']} "
                f"| {', '.join(s['operators'])} |"
            )
            for d in s["expected_to_differ"]:
                reasons.append(f"| {s['suite']} | {cell(d['test'])} | {cell(d['reason'])} |")
        parts.append(f"## Spark {data['spark']} ({build})\n\n" + "\n".join(rows))
        if reasons:
            parts.append(
                "Expected to differ:\n\n| Suite | Test | Reason |\n|---|---|---|\n"
                + "\n".join(reasons)
            )
    return "\n\n".join(parts)


def conformance_body(builds: list) -> str:
    parts = [
        "Spark's SQL golden files for joins and correlated subqueries (`sql-tests/inputs` and "
        "`sql-tests/results` of Spark's test jar), replayed with the plugin installed "
        f"({settings_text(builds[0][1])}). Each file runs once per round of its settings: round "
        "*i* takes the *i*-th value of every `--CONFIG_DIM` group, so every value (broadcast, "
        "sort-merge and shuffled hash joins; whole-stage codegen on, off and interpreted) runs "
        "once. A query passes when its schema and rows (a multiset, in Spark's own string "
        "form) equal the recorded ones, or, where Spark recorded a failure, when it fails with "
        "the same exception class. Every query whose plan holds a plugin operator also runs "
        "with the plugin off and must give the same answer, unless SQL leaves its answer open "
        "(listed below with the reason). A file without an inequality join "
        "shows that the plugin leaves alone what it should not touch.",
    ]
    for build, data in builds:
        rows = [
            "| File | Rounds | Queries run | Passed | With the plugin's operators | Operators "
            "| Differ from the file with the plugin off too | Expected to differ "
            "| Wrong answers |",
            "|---|--:|--:|--:|--:|---|--:|--:|--:|",
        ]
        totals = [0, 0, 0, 0, 0, 0]
        notes, expected = [], []
        for f in data["files"]:
            if not f["present"]:
                rows.append(f"| {f['file']} | not in this release's test jar | | | | | | |")
                continue
            counts = [
                f["queries"],
                f["passed"],
                f["plugin_queries"],
                len(f["differ_with_plugin_off"]),
                len(f["expected_to_differ"]),
                len(f["wrong"]),
            ]
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            rows.append(
                f"| {f['file']} | {f['rounds']} | {counts[0]} | {counts[1]} | {counts[2]} "
                f"| {', '.join(f['operators'])} | {counts[3]} | {counts[4]} | {counts[5]} |"
            )
            notes += [f"- {f['file']}: {cell(d)}" for d in f["differ_with_plugin_off"]]
            expected += [f"- {f['file']}: {cell(d)}" for d in f["expected_to_differ"]]
        rows.append(
            f"| **All** | | {totals[0]} | {totals[1]} | {totals[2]} | | {totals[3]} "
            f"| {totals[4]} | {totals[5]} |"
        )
        parts.append(f"## Spark {data['spark']} ({build})\n\n" + "\n".join(rows))
        if expected:
            parts.append(
                "Expected to differ: queries whose answer SQL leaves open, where the plugin on "
                "and off may both be right and still differ (each with its settings, query and "
                "reason):\n\n" + "\n".join(expected)
            )
        if notes:
            parts.append(
                "Queries whose answer differs from the golden file with the plugin off as "
                "well (this runner does not reproduce every setting of Spark's own "
                "golden-file suite):\n\n" + "\n".join(notes)
            )
    return "\n\n".join(parts)


PAGES_BY_NAME = {
    "spark-suites": ("Spark's join suites with the plugin on", spark_suites_body),
    "conformance": ("Spark's SQL golden files with the plugin on", conformance_body),
}


def main(name: str) -> None:
    title, body = PAGES_BY_NAME[name]
    builds = results(name)
    header = measured_header()
    header["Spark"] = ", ".join(f"{data['spark']} ({build})" for build, data in builds)
    header["Spark"] += "; test jars from Maven Central"
    path = write_page(PAGES / f"{name}.md", title, body(builds), header=header)
    print(f"wrote {path}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in PAGES_BY_NAME:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(PAGES_BY_NAME)}")
    main(sys.argv[1])

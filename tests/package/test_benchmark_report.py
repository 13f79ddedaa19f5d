"""The benchmark reports, on synthetic measurements (no figure is pinned here), and the header of
every results page the bench targets wrote."""

import csv
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from report import (  # noqa: E402
    CSV_COLUMNS,
    Measurement,
    markdown,
    ratio_text,
    slope,
    write_reports,
)
from results_page import (  # noqa: E402
    DOCS_DIR,
    Table,
    crossover,
    markdown_table,
    measured_header,
    page_markdown,
    read_header,
    script_command,
    write_page,
)

HEADER = {
    "Date": "2001-02-03 04:05 UTC",
    "Machine": "Some CPU, 2 cores, 8.0 GiB memory",
    "OS": "Some Linux",
    "Java": "Some VM 17",
    "Spark": "9.9.9 (pyspark), master local[2], driver memory 8g",
    "spark-rangejoin": "0.0.1, jar rangejoin-test.jar",
    "DuckDB": "9.9.9, 2 threads",
    "Commit": "abc1234 + uncommitted changes",
    "Command": "`make bench`, which ran `python benchmarks/suite.py`",
}
# The generated pages and the field every header must give.
PAGES = {
    "suite.md": "The suite",
    "workloads.md": "Workloads at user sizes",
    "never_slower.md": "Never slower",
    "defaults.md": "The defaults",
    "stream.md": "Streaming",
    "scale.md": "Scale",
}
REQUIRED = ("Date", "Machine", "OS", "Java", "Spark", "spark-rangejoin", "Commit", "Command")


def measurement(rows, vanilla, plugin, duckdb):
    return Measurement(
        "band",
        rows,
        30.0,
        "IEJoin Inner, [...]",
        {"vanilla": vanilla, "plugin": plugin, "duckdb": duckdb},
    )


def test_ratios_read_as_the_plugin_against_each_engine():
    m = measurement(1000, 12.0, 0.5, 1.5)
    assert ratio_text(m, "vanilla") == "24.0x faster"
    assert ratio_text(m, "duckdb") == "3.0x faster"
    assert ratio_text(measurement(1000, 1.0, 2.0, 0.5), "duckdb") == "4.0x slower"


def test_a_capped_engine_is_a_lower_bound():
    m = measurement(1000, None, 0.6, 0.2)
    assert ratio_text(m, "vanilla") == "> 50x faster"
    assert "| > 30 s |" in markdown([m])
    assert m.slower_than_duckdb(2.9) and not m.slower_than_duckdb(3.1)


def test_a_profile_gives_spark_s_exchange_alone_against_duckdb(tmp_path):
    m = measurement(1000, None, 9.0, 2.0)
    stage = {"stage": 7, "name": "AsOfJoin", "start": 0.0, "end": 8.0, "wall_s": 8.0}
    m.profile = {"wall": 8.5, "stages": [{**stage, "tasks": 4, "task_s": 12.0}], "metrics": {}}
    assert "exchange of the two inputs alone" not in markdown([m])
    m.profile["exchange_alone"] = 7.0
    assert "with no join: 7.000 s, 3.5x DuckDB's whole join." in markdown([m])
    [path] = [p for p in write_reports(tmp_path, [m], {}, "", HEADER) if p.suffix == ".csv"]
    [row] = [r for r in csv.DictReader(path.open()) if r["engine"] == "exchange_alone"]
    assert (row["seconds"], row["capped"], row["engine_over_plugin"]) == (
        "7.000000",
        "False",
        "0.778",
    )


def test_slope_is_the_growth_exponent_at_the_largest_sizes():
    quadratic = [(n, 1e-9 * n * n) for n in (1e4, 1e5, 1e6)]
    assert abs(slope(quadratic) - 2.0) < 1e-9
    linear_with_fixed_cost = [(1e4, 0.3), (1e5, 0.4), (1e6, 1.0), (1e7, 10.0)]
    assert abs(slope(linear_with_fixed_cost) - 1.0) < 1e-9
    assert slope([(1e4, 0.1), (1e5, 0.2)]) is None
    fallback_then_linear = [(1e4, 0.7), (1e6, 1.0), (1e7, 10.0), (1e8, 100.0)]
    assert abs(slope(fallback_then_linear) - 1.0) < 1e-9


def test_writes_the_page_csv_and_chart(tmp_path):
    curve = [
        measurement(n, 1e-8 * n * n if n < 1e5 else None, 1e-6 * n, 5e-7 * n)
        for n in (1e4, 3e4, 1e5)
    ]
    paths = write_reports(tmp_path, curve[:1], {"band": curve}, "How it ran.", HEADER, "workloads")
    assert [p.name for p in paths] == ["suite.md", "suite.csv", "scaling.png"]
    page = paths[0].read_text()
    assert page.startswith("# The suite\n\n- **Date:** 2001-02-03 04:05 UTC\n")
    assert read_header(paths[0]) == HEADER
    assert "How it ran." in page and "](scaling.png)" in page and "](suite.csv)" in page
    rows = list(csv.DictReader(paths[1].open()))
    assert list(rows[0]) == CSV_COLUMNS
    assert len(rows) == 3 + 9
    capped = [r for r in rows if r["capped"] == "True"]
    assert [(r["engine"], r["seconds"], r["cap_s"]) for r in capped] == [("vanilla", "", "30")]
    assert paths[2].read_bytes()[:4] == b"\x89PNG"


def test_a_page_without_curves_drops_an_earlier_chart(tmp_path):
    m = measurement(1000, 12.0, 0.5, 1.5)
    write_reports(tmp_path, [m], {"band": [m]}, "", HEADER)
    assert (tmp_path / "scaling.png").exists()
    paths = write_reports(tmp_path, [m], {}, "", HEADER)
    assert [p.name for p in paths] == ["suite.md", "suite.csv"]
    assert not (tmp_path / "scaling.png").exists()
    assert "scaling.png" not in paths[0].read_text()


def test_another_page_leaves_the_suites_chart_alone(tmp_path):
    m = measurement(1000, 12.0, 0.5, 1.5)
    write_reports(tmp_path, [m], {"band": [m]}, "", HEADER)
    paths = write_reports(tmp_path, [m], {}, "", HEADER, page=("workloads", "Workloads"))
    assert [p.name for p in paths] == ["workloads.md", "workloads.csv"]
    assert (tmp_path / "scaling.png").exists()
    assert "](workloads.csv)" in paths[0].read_text()


def test_a_page_is_replaced_whole(tmp_path):
    path = tmp_path / "page.md"
    write_page(path, "Title", "first body", header=HEADER)
    write_page(path, "Title", "second body", header={**HEADER, "Date": "2002-01-01 00:00 UTC"})
    text = path.read_text()
    assert text == page_markdown("Title", {**HEADER, "Date": "2002-01-01 00:00 UTC"}, "second body")
    assert "first body" not in text and text.count("# Title") == 1


def test_header_fields_come_in_a_fixed_order_and_read_back():
    shuffled = dict(reversed(list(HEADER.items())))
    text = page_markdown("T", shuffled, "| a |\n|---|\n| 1 |")
    assert [line.split(":**")[0] for line in text.splitlines()[2:11]] == [
        f"- **{field}" for field in HEADER
    ]


def test_the_header_measured_here_has_every_field():
    header = measured_header()
    assert set(REQUIRED) <= set(header) and "DuckDB" not in header
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", header["Date"])
    assert "cores" in header["Machine"]
    assert measured_header(duckdb_version="1.2.3", duckdb_note="2 threads")["DuckDB"] == (
        "1.2.3, 2 threads"
    )


def test_the_command_is_the_script_from_the_repository_root():
    argv = [str(ROOT / "benchmarks" / "suite.py"), "--scale", "0.5", "--only", "a,b"]
    assert script_command(argv) == "python benchmarks/suite.py --scale 0.5 --only a,b"


def test_markdown_tables_align_columns_marked_right():
    table = markdown_table(["name", "seconds>"], [("a", "1.000"), ("b", "2.000")])
    assert table.splitlines() == [
        "| name | seconds |",
        "|---|---:|",
        "| a | 1.000 |",
        "| b | 2.000 |",
    ]


def test_a_table_saved_by_one_process_loads_in_another(tmp_path):
    table = Table(["x", "y>"], echo=False)
    table.add(["a", "1.500"], x="a", y=1.5)
    table.save(tmp_path / "t.json")
    loaded = Table.load(tmp_path / "t.json")
    assert loaded.markdown() == table.markdown()
    assert loaded.raw == [{"x": "a", "y": 1.5}]
    assert set(loaded.environment) == {"Java", "Spark"}


def test_the_crossover_is_where_the_plugin_wins_from_then_on():
    assert (
        crossover([(10, False), (10, False), (30, True), (30, False), (100, True), (100, True)])
        == 100
    )
    assert crossover([(10, True), (30, False), (100, True)]) == 100
    assert crossover([(10, True), (30, True)]) == 10
    assert crossover([(10, True), (30, False)]) is None
    assert crossover([]) is None


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_generated_page_says_when_where_and_how_it_was_measured(name):
    page = DOCS_DIR / name
    if not page.exists():
        pytest.skip(f"{page} not generated yet")
    lines = page.read_text().splitlines()
    assert lines[0] == f"# {PAGES[name]}"
    header = read_header(page)
    missing = [f for f in REQUIRED if not header.get(f)]
    assert not missing, f"{name}: no {missing} in its header"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", header["Date"])
    assert re.match(r"[0-9a-f]{7,}( \+ uncommitted changes)?$|unknown", header["Commit"])
    assert "benchmarks/" in header["Command"]
    if name == "suite.md":
        assert header.get("DuckDB"), "suite.md: no DuckDB in its header"


def test_the_suite_page_files_exist():
    page = DOCS_DIR / "suite.md"
    if not page.exists():
        pytest.skip(f"{page} not generated yet")
    for target in re.findall(r"\]\(([^)/]+\.(?:csv|png))\)", page.read_text()):
        assert (DOCS_DIR / target).exists(), f"suite.md links {target}, which is missing"

"""The benchmark suite's report: ratios, capped runs, slopes and the three files."""

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from report import Measurement, markdown, ratio_text, slope, write_reports  # noqa: E402


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


def test_slope_is_the_growth_exponent_at_the_largest_sizes():
    quadratic = [(n, 1e-9 * n * n) for n in (1e4, 1e5, 1e6)]
    assert abs(slope(quadratic) - 2.0) < 1e-9
    linear_with_fixed_cost = [(1e4, 0.3), (1e5, 0.4), (1e6, 1.0), (1e7, 10.0)]
    assert abs(slope(linear_with_fixed_cost) - 1.0) < 1e-9
    assert slope([(1e4, 0.1), (1e5, 0.2)]) is None
    fallback_then_linear = [(1e4, 0.7), (1e6, 1.0), (1e7, 10.0), (1e8, 100.0)]
    assert abs(slope(fallback_then_linear) - 1.0) < 1e-9


def test_writes_table_csv_and_chart(tmp_path):
    curve = [
        measurement(n, 1e-8 * n * n if n < 1e5 else None, 1e-6 * n, 5e-7 * n)
        for n in (1e4, 3e4, 1e5)
    ]
    paths = write_reports(tmp_path, curve[:1], {"band": curve}, "test setting")
    assert [p.name for p in paths] == ["suite.md", "suite.csv", "scaling.png"]
    assert paths[0].read_text().startswith("Setting: test setting.")
    rows = list(csv.DictReader(paths[1].open()))
    assert len(rows) == 3 + 9
    capped = [r for r in rows if r["capped"] == "True"]
    assert [(r["engine"], r["seconds"]) for r in capped] == [("vanilla", "")]
    assert paths[2].read_bytes()[:4] == b"\x89PNG"


def test_readme_shows_the_reference_run():
    """The README's suite table is the one the committed reference run wrote, and its chart is
    that run's."""
    results = ROOT / "benchmarks" / "results"
    table = (results / "suite.md").read_text().split("\n\n")[1]
    readme = (ROOT / "README.md").read_text()
    assert table in readme
    assert "](benchmarks/results/scaling.png)" in readme
    assert (results / "scaling.png").exists() and (results / "suite.csv").exists()

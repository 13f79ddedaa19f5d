"""The README's headline figure is the one `make bench` generated: its region between the
headline markers equals what benchmarks/headline.py renders from docs/benchmarks/suite.csv and
the header of docs/benchmarks/suite.md, so nobody edited the figure by hand."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from headline import END, START, HeadlineError, headline_markdown, region, rewrite  # noqa: E402
from report import Measurement, write_csv  # noqa: E402
from results_page import DOCS_DIR, write_page  # noqa: E402

HEADER = {
    "Date": "2001-02-03 04:05 UTC",
    "Machine": "Some CPU, 2 cores, 8.0 GiB memory",
    "Java": "Some VM 17",
    "Spark": "9.9.9 (pyspark), master local[2], driver memory 8g",
    "spark-rangejoin": "0.0.1, jar rangejoin-test.jar",
    "DuckDB": "9.9.9, 2 threads",
    "Commit": "abc1234",
    "Command": "`make bench`, which ran `python benchmarks/suite.py`",
}


def test_the_readme_headline_is_the_generated_one():
    readme = (ROOT / "README.md").read_text()
    assert START in readme and END in readme, f"README.md has no {START} ... {END} region"
    expected = headline_markdown(DOCS_DIR / "suite.csv", DOCS_DIR / "suite.md")
    assert region(readme) == expected.strip(), (
        "README.md's headline differs from the suite's results: "
        "run `python benchmarks/headline.py README.md` (make bench does)"
    )


def synthetic_run(tmp_path, vanilla, plugin, duckdb):
    anomaly = Measurement("anomaly", 1_000_000, 30.0, "IEJoin Inner", {"plugin": plugin})
    anomaly.seconds.update(vanilla=vanilla, duckdb=duckdb)
    other = Measurement("band", 1_000_000, 30.0, "IEJoin Inner", {"plugin": 9.0, "vanilla": 1.0})
    curve = Measurement("anomaly", 10_000, 60.0, "IEJoin Inner", {"plugin": 7.0})
    write_csv(tmp_path / "suite.csv", [("table", other), ("table", anomaly), ("curve", curve)])
    write_page(tmp_path / "suite.md", "The suite", "| a |\n|---|\n| 1 |", header=HEADER)
    return tmp_path / "suite.csv", tmp_path / "suite.md"


def test_the_headline_gives_the_anomaly_join_its_ratios_and_the_run(tmp_path):
    text = headline_markdown(*synthetic_run(tmp_path, None, 1.5, 0.5))
    first, second = text.strip().split("\n\n")
    assert "1,000,000 rows per side" in first
    assert "> 30 s in vanilla Spark (stopped at the cap)" in first
    assert "1.500 s with spark-rangejoin" in first and "0.500 s in DuckDB (2 threads)" in first
    assert "> 20x faster than vanilla Spark" in first and "3.0x slower than DuckDB" in first
    for value in HEADER.values():
        assert value in second
    assert "[docs/benchmarks/suite.md](docs/benchmarks/suite.md)" in second


def test_an_uncapped_vanilla_time_reads_as_a_ratio(tmp_path):
    text = headline_markdown(*synthetic_run(tmp_path, 12.0, 1.5, 3.0))
    assert "12.000 s in vanilla Spark" in text and "stopped" not in text
    assert "8.0x faster than vanilla Spark and 2.0x faster than DuckDB" in text


def test_the_region_is_rewritten_in_place(tmp_path):
    readme = f"# Title\n\nIntro.\n\n{START}\nold figure\n{END}\n\nRest.\n"
    new = rewrite(readme, "new figure\n\nline two\n")
    assert new == f"# Title\n\nIntro.\n\n{START}\nnew figure\n\nline two\n{END}\n\nRest.\n"
    assert region(new) == "new figure\n\nline two"
    assert rewrite(new, "new figure\n\nline two") == new


@pytest.mark.parametrize(
    "readme",
    ["no markers", f"{START} only", f"{END} {START}", f"{START}{END}{START}{END}"],
)
def test_missing_or_repeated_markers_fail(readme):
    with pytest.raises(HeadlineError, match="headline:start"):
        rewrite(readme, "x")


def test_a_suite_without_the_anomaly_join_fails_clearly(tmp_path):
    csv_path, page = synthetic_run(tmp_path, 1.0, 1.0, 1.0)
    lines = csv_path.read_text().splitlines()
    csv_path.write_text("\n".join(line for line in lines if ",anomaly," not in line) + "\n")
    with pytest.raises(HeadlineError, match="no anomaly row"):
        headline_markdown(csv_path, page)

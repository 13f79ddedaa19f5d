"""The README's headline figure, generated from the suite's results (`make bench`).

`headline_markdown` renders the anomaly self-join's times from docs/benchmarks/suite.csv (vanilla
Spark, the plugin, DuckDB, and the ratios), then when, where and how they were measured, from the
header of docs/benchmarks/suite.md. Run as a script, it rewrites the README's region between
the two markers in place:

    python benchmarks/headline.py README.md
"""

import csv
import sys
from pathlib import Path

from report import Measurement, ratio_text, time_text
from results_page import DOCS_DIR, read_header

START = "<!-- headline:start -->"
END = "<!-- headline:end -->"
WORKLOAD = "anomaly"
PAGE_LINK = "docs/benchmarks/suite.md"


class HeadlineError(Exception):
    pass


def table_measurement(csv_path: Path, workload: str = WORKLOAD) -> Measurement:
    """The workload's row of the suite's table (not of its curves), as a Measurement."""
    with Path(csv_path).open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["table"] == "table" and r["workload"] == workload]
    if not rows:
        raise HeadlineError(f"{csv_path} has no {workload} row in its table: run `make bench`")
    m = Measurement(workload, int(rows[0]["rows"]), float(rows[0]["cap_s"]))
    for r in rows:
        m.seconds[r["engine"]] = None if r["capped"] == "True" else float(r["seconds"])
    return m


def engine_text(m: Measurement, engine: str, name: str) -> str:
    capped = " (stopped at the cap)" if m.seconds.get(engine, 0) is None else ""
    return f"{time_text(m, engine)} in {name}{capped}"


def headline_markdown(csv_path: Path, page_path: Path) -> str:
    """The headline: the anomaly self-join's times and ratios, then the run's machine, versions,
    date and command, and a link to the suite's page."""
    m = table_measurement(csv_path)
    header = read_header(page_path)
    if not header:
        raise HeadlineError(f"{page_path} has no header: run `make bench`")
    times = []
    if "vanilla" in m.seconds:
        times.append(engine_text(m, "vanilla", "vanilla Spark"))
    times.append(f"{time_text(m, 'plugin')} with spark-rangejoin")
    if "duckdb" in m.seconds:
        times.append(engine_text(m, "duckdb", "DuckDB (2 threads)"))
    ratios = [
        f"{ratio_text(m, engine)} than {name}"
        for engine, name in (("vanilla", "vanilla Spark"), ("duckdb", "DuckDB"))
        if engine in m.seconds
    ]
    first = (
        f"The employees anomaly self-join (`r.salary < s.salary AND r.tax > s.tax`, {m.rows:,} "
        f"rows per side) takes {', '.join(times[:-1])} and {times[-1]}"
        if len(times) > 1
        else f"The employees anomaly self-join ({m.rows:,} rows per side) takes {times[0]}"
    )
    first += f": the plugin is {' and '.join(ratios)}." if ratios else "."
    versions = [f"Spark {header.get('Spark', '?')}", f"Java {header.get('Java', '?')}"]
    versions.append(f"spark-rangejoin {header.get('spark-rangejoin', '?')}")
    if "DuckDB" in header:
        versions.append(f"DuckDB {header['DuckDB']}")
    second = (
        f"Measured {header.get('Date', '?')} on {header.get('Machine', '?')}; "
        f"{'; '.join(versions)}; commit {header.get('Commit', '?')}; "
        f"command {header.get('Command', '?')}. "
        f"Every workload: [{PAGE_LINK}]({PAGE_LINK})."
    )
    return f"{first}\n\n{second}\n"


def region(text: str) -> str:
    """The text between the README's headline markers, without the newlines around it."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise HeadlineError(f"the README needs exactly one {START} ... {END} region")
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


def rewrite(text: str, headline: str) -> str:
    """`text` with its headline region replaced by `headline`."""
    region(text)  # fails on missing or repeated markers
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    return f"{before}{START}\n{headline.strip()}\n{END}{after}"


def main(argv: list) -> int:
    if len(argv) != 2:
        print("usage: python benchmarks/headline.py README.md", file=sys.stderr)
        return 2
    readme = Path(argv[1])
    try:
        headline = headline_markdown(DOCS_DIR / "suite.csv", DOCS_DIR / "suite.md")
        text = rewrite(readme.read_text(), headline)
    except (HeadlineError, OSError) as error:
        print(f"headline.py: {readme}: {error}", file=sys.stderr)
        return 1
    readme.write_text(text)
    print(f"wrote the headline of {readme}:\n{headline}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The measurements behind three defaults (`make bench-defaults`), on one page: it runs
`tiny_side_benchmark.py`, `keyed_crossover_benchmark.py` and `broadcast_or_block.py`, each in
its own process as when run alone, and writes their tables to `--out` (docs/benchmarks/
defaults.md), each with the crossover it shows.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_page import DOCS_DIR, Table, crossover, measured_header, write_page

HERE = Path(__file__).resolve().parent


def run_script(script: str, args: list, scratch: Path) -> Table:
    """Runs benchmarks/`script` with `args` in a process of its own; returns its table."""
    out = scratch / f"{Path(script).stem}.json"
    print(f"== {script} {' '.join(args)}", flush=True)
    subprocess.run([sys.executable, str(HERE / script), *args, "--json", str(out)], check=True)
    return Table.load(out)


def tiny_side_section(table: Table, rows: int) -> str:
    wins = [(r["days"], r["plugin_s"] < r["vanilla_s"]) for r in table.raw]
    days = crossover(wins)
    if days is None:
        verdict = "the plugin was not faster than vanilla Spark in both shapes at the largest one"
    else:
        verdict = (
            f"the plugin was faster than vanilla Spark in both shapes from {days:,} calendar "
            f"rows ({rows * days:.1e} candidate pairs) up"
        )
    return "\n".join(
        [
            "## The tiny side: `minCandidatePairs` and `minSmallSideRows`",
            "",
            f"`benchmarks/tiny_side_benchmark.py`: the point-in-period join "
            f"`ia.start <= cal.x AND cal.x <= ia.end` of {rows:,} intervals with a calendar of a "
            "few rows, the tiny-side rung switched off (`spark.rangejoin.minCandidatePairs=0`, "
            "`spark.rangejoin.minSmallSideRows=0`) so that the plugin always runs, in two shapes: "
            "an inner join (the plugin broadcasts the calendar) and the calendar `LEFT JOIN` the "
            "intervals (the calendar is preserved, so it cannot be the broadcast input; with the "
            "intervals kept above a 1 MB broadcast threshold the plugin runs a block join). Best "
            "of 5 runs after 5 warm-ups, plugin on and off, the answers compared. These "
            "crossovers set the defaults of `spark.rangejoin.minCandidatePairs` and "
            "`spark.rangejoin.minSmallSideRows`.",
            "",
            table.markdown(),
            "",
            f"Of the calendar sizes measured, {verdict}.",
        ]
    )


def keyed_section(table: Table, rows: int) -> str:
    wins = [(r["pairs"], r["plugin_s"] < r["vanilla_s"]) for r in table.raw]
    pairs = crossover(wins)
    if pairs is None:
        verdict = "the plugin was not faster than vanilla Spark in both joins at the most pairs"
    else:
        verdict = f"the plugin was faster than vanilla Spark in both joins from {pairs:.1e} up"
    return "\n".join(
        [
            "## Keyed joins: `keyed.minCandidatePairs`",
            "",
            "`benchmarks/keyed_crossover_benchmark.py`: the window query "
            "`l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50`, inner and left outer, on "
            f"{rows:,} rows per side with small key groups (ts uniform over as many ticks as "
            "rows), the plugin forced on (`spark.rangejoin.keyed.minCandidatePairs=0`) against "
            "vanilla Spark's hash join. Candidate pairs are left rows x right rows / keys. Best "
            "of 3 runs after 2 warm-ups, the answers compared. The default of "
            "`spark.rangejoin.keyed.minCandidatePairs` (see the configuration page) is meant to "
            "lie at this crossover; it applies only where Spark's statistics count the keys.",
            "",
            table.markdown(),
            "",
            f"Of the candidate pair counts measured, {verdict}.",
        ]
    )


def broadcast_section(table: Table) -> str:
    verdicts = []
    for query in dict.fromkeys(r["query"] for r in table.raw):
        ratios = [r["block_s"] / r["broadcast_s"] for r in table.raw if r["query"] == query]
        verdicts.append(
            f"for {query} the block join took {min(ratios):.2f}x to {max(ratios):.2f}x "
            "the broadcast join's time"
        )
    return "\n".join(
        [
            "## Broadcast or block: `broadcast.ratioAboveRows`",
            "",
            "`benchmarks/broadcast_or_block.py`: two inputs of N rows each, the tiny-side rung "
            "off (`spark.rangejoin.minCandidatePairs=0`), each query timed broadcast "
            "(BroadcastRangeJoin) and as a block join (`spark.rangejoin.broadcast.enabled=false`: "
            "IEJoin), best of 10 runs after 8 warm-ups, the answers compared: the anomaly "
            "self-join (few matches per row) and a band join of two point tables with about 1% of "
            "all pairs matching. What it shows sets the default of "
            "`spark.rangejoin.broadcast.ratioAboveRows`: inputs of similar size above it are "
            "block-joined.",
            "",
            table.markdown(),
            "",
            "Across the sizes measured, " + "; ".join(verdicts) + ".",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny-rows", type=int, default=300_000, help="tiny side: intervals")
    parser.add_argument("--days", default="10,30,100,365,3650", help="tiny side: calendars")
    parser.add_argument("--keyed-rows", type=int, default=300_000, help="keyed: rows per side")
    parser.add_argument("--per-key", default="1,8,64,512", help="keyed: rows per key")
    parser.add_argument(
        "--broadcast-rows", default="5000,10000,20000,100000", help="broadcast or block: rows"
    )
    parser.add_argument("--out", default=str(DOCS_DIR), help="where defaults.md goes")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        tiny = run_script(
            "tiny_side_benchmark.py",
            ["--rows", str(args.tiny_rows), "--days", args.days],
            scratch,
        )
        keyed = run_script(
            "keyed_crossover_benchmark.py",
            ["--rows", str(args.keyed_rows), "--per-key", args.per_key],
            scratch,
        )
        broadcast = run_script("broadcast_or_block.py", ["--rows", args.broadcast_rows], scratch)
    minutes = (time.perf_counter() - started) / 60
    header = measured_header()
    header.update(tiny.environment)  # the Java and Spark of the benchmarks' sessions
    intro = (
        "Three measurements, each in a Spark session and process of its own, behind the "
        f"defaults of four keys. The three took {minutes:.1f} min."
    )
    body = [
        intro,
        tiny_side_section(tiny, args.tiny_rows),
        keyed_section(keyed, args.keyed_rows),
        broadcast_section(broadcast),
    ]
    out = write_page(
        Path(args.out) / "defaults.md", "The defaults", "\n\n".join(body), header=header
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

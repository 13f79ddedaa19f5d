"""The "never slower" grid: joins with a small side or a large output, plugin on against off.

A big side of points (1M and 5M rows, v uniform in [0, 1e6)) meets a small side of disjoint
ranges (10, 365 and 5,000 rows, each [lo, hi) half of its slice of [0, 1e6), y in [0, 100)) in
four shapes: points in ranges grouped by range, the same as a LEFT JOIN that keeps every point,
a LEFT JOIN that keeps every range (the small side preserved, which no broadcast join can build),
and a condition on two column pairs. Two 100K x 100K band joins with about 1e8 output pairs (a
count, and a GROUP BY) test output-heavy joins, and the suite's TPC-H-shaped join runs forced
through the plugin (`spark.rangejoin.minCandidatePairs=0`). Type-2 dimension lookups of 5M facts
in versions, one and five per key, test the keyed interval join against Spark's hash joins.
Every cell runs with the plugin on and off in one session, in turns, best of 3 after a warm-up
of each (best of 7 for cells under a second), and the answers must agree.
The last column flags cells where the plugin takes more than 1.1x vanilla Spark's time, except
where the plugin left the join to Spark: both runs then execute the same plan, their ratio is
noise, and the cell says so. The table is printed as it is measured, and the results page
`never_slower.md` is written to `--out` (docs/benchmarks/).
"""

import argparse
import time
from pathlib import Path

from results_page import DOCS_DIR, words, write_page
from workloads import BY_NAME, SCD2_LOOKUP

from common import facts, join_line, plan_text, points, spark_session, versions, write_once

SHAPES = {
    "pip_group": "SELECT i.iid, count(*) FROM p JOIN i ON p.v >= i.lo AND p.v < i.hi "
    "GROUP BY i.iid",
    "pip_left": "SELECT count(*), count(i.iid) FROM p LEFT JOIN i ON p.v >= i.lo AND p.v < i.hi",
    "ranges_left": "SELECT count(*), count(p.id) FROM i LEFT JOIN p ON p.v >= i.lo AND p.v < i.hi",
    "two_col": "SELECT count(*) FROM p JOIN i ON p.v > i.lo AND p.id % 100 < i.y",
}
DENSE = {
    "dense_count": "SELECT count(*) FROM a JOIN b ON a.v BETWEEN b.v - 5000 AND b.v + 5000",
    "dense_group": "SELECT a.id % 100 AS g, count(*) FROM a JOIN b "
    "ON a.v BETWEEN b.v - 5000 AND b.v + 5000 GROUP BY 1",
}
# The plugin's nodes as `join_line` prints them (KeyGroupIEJoin contains IEJoin).
PLUGIN_OPERATORS = (
    "BroadcastRangeJoin",
    "IEJoin",
    "PiecewiseMergeJoin",
    "BoundFilterJoin",
    "SlidingWindowJoin",
    "AsOfJoin",
    "KeyedIntervalJoin",
    "CountMatches",
)
FORCED = {"spark.rangejoin.minCandidatePairs": "0", "spark.rangejoin.minSmallSideRows": "0"}
# Type-2 dimension lookups: 5M facts against (versions, keys) with one and five versions per key.
KEYED = [(100_000, 100_000), (1_000_000, 1_000_000), (1_000_000, 200_000)]
SCD2_LEFT = SCD2_LOOKUP.replace(" JOIN dim", " LEFT JOIN dim")
PARTITIONED = {"spark.rangejoin.keyedIntervalJoin.broadcastThreshold": "-1"}
# Cells whose best runs take under SHORT_SECONDS get the best of SHORT_RUNS runs of each side.
SHORT_SECONDS = 1.0
SHORT_RUNS = 7
HEADER = [
    "| cell | plugin operator | plugin s | vanilla s | plugin / vanilla | |",
    "|---|---|---:|---:|---:|---|",
]


def ranges(spark, rows: int) -> str:
    """Writes (once) and returns the parquet path of `rows` disjoint ranges (iid, lo, hi, y)."""
    width = 1_000_000 / rows
    return write_once(
        f"ranges_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=1).selectExpr(
            "id AS iid",
            f"CAST(id * {width} AS DOUBLE) AS lo",
            f"CAST(id * {width} + {width / 2} AS DOUBLE) AS hi",
            "CAST(id * 37 % 100 AS BIGINT) AS y",
        ),
    )


def run(spark, query: str, accelerated: bool, conf: dict):
    """(seconds, sorted rows) of one run of `query` with the plugin on (and `conf` set) or off."""
    spark.conf.set("spark.rangejoin.enabled", str(accelerated).lower())
    for key, value in conf.items():
        if accelerated:
            spark.conf.set(key, value)
        else:
            spark.conf.unset(key)
    start = time.perf_counter()
    rows = sorted(tuple(r) for r in spark.sql(query).collect())
    return time.perf_counter() - start, rows


def best_times(spark, query: str, conf: dict):
    """Best seconds of the runs with the plugin on and off, taken in turns after a warm-up of
    each (so neither side is measured colder than the other), and both answers: 3 runs of each,
    or `SHORT_RUNS` when both sides' best is under `SHORT_SECONDS`, whose runs vary by more than
    the grid's margin from one to the next."""
    _, plugin = run(spark, query, True, conf)
    _, vanilla = run(spark, query, False, conf)
    times = {True: [], False: []}
    for turn in range(SHORT_RUNS):
        if turn == 3 and max(min(times[True]), min(times[False])) >= SHORT_SECONDS:
            break
        for accelerated in (True, False):
            times[accelerated].append(run(spark, query, accelerated, conf)[0])
    return min(times[True]), min(times[False]), plugin, vanilla


def operator(spark, query: str, conf: dict) -> str:
    spark.conf.set("spark.rangejoin.enabled", "true")
    for key, value in conf.items():
        spark.conf.set(key, value)
    return join_line(plan_text(spark, query))


def verdict(node: str, ratio: float) -> str:
    """A cell's flag: SLOWER when the plugin's operator `node` took more than 1.1x vanilla
    Spark's time; a note instead when `node` is Spark's, since both runs then run one plan."""
    if not any(name in node for name in PLUGIN_OPERATORS):
        return "Spark's plan both ways"
    return "" if ratio <= 1.1 else "SLOWER"


class Grid:
    """The table's rows, printed as they are measured; `ok` until a cell is slower."""

    def __init__(self, spark):
        self.spark, self.lines, self.ok = spark, list(HEADER), True
        print("\n".join(HEADER), flush=True)

    def cell(self, label: str, query: str, conf: dict | None = None) -> None:
        conf = conf or {}
        plugin_s, vanilla_s, plugin, vanilla = best_times(self.spark, query, conf)
        assert plugin == vanilla, f"{label}: answers differ"
        ratio = plugin_s / vanilla_s
        node = operator(self.spark, query, conf).split(",")[0]
        flag = verdict(node, ratio)
        line = f"| {label} | {node} | {plugin_s:.3f} | {vanilla_s:.3f} | {ratio:.2f} | {flag} |"
        print(line, flush=True)
        self.lines.append(line)
        self.ok &= flag != "SLOWER"
        for key in conf:
            self.spark.conf.unset(key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", default="1000000,5000000", help="rows of the big side")
    parser.add_argument("--small", default="10,365,5000", help="rows of the small side")
    parser.add_argument(
        "--no-extras", action="store_true", help="only the grid: no dense or TPC-H cells"
    )
    parser.add_argument("--out", default=str(DOCS_DIR), help="where never_slower.md goes")
    args = parser.parse_args()
    started = time.perf_counter()
    spark = spark_session()
    grid = Grid(spark)
    for big in map(int, args.big.split(",")):
        spark.read.parquet(points(spark, "points", big, 3)).createOrReplaceTempView("p")
        for small in map(int, args.small.split(",")):
            spark.read.parquet(ranges(spark, small)).createOrReplaceTempView("i")
            for name, query in SHAPES.items():
                grid.cell(f"{name} {big:,} x {small:,}", query)
    if not args.no_extras:
        extras(spark, grid)
    verdict = (
        "every cell where the plugin ran took at most 1.1x vanilla Spark's time"
        if grid.ok
        else "some cells are SLOWER"
    )
    print(verdict)
    minutes = (time.perf_counter() - started) / 60
    body = [method(args, minutes), "", *grid.lines, "", f"Verdict: {verdict}."]
    out = write_page(Path(args.out) / "never_slower.md", "Never slower", "\n".join(body), spark)
    print(f"wrote {out}")
    spark.stop()


def method(args, minutes: float) -> str:
    """The page's first paragraph: what the grid joins and how it times them."""
    bigs = words([f"{int(n):,}" for n in args.big.split(",")])
    smalls = words([f"{int(n):,}" for n in args.small.split(",")])
    text = (
        f"A big side of points ({bigs} rows, v uniform in [0, 1e6)) joins a small side of "
        f"disjoint ranges ({smalls} rows) in four shapes: points in ranges grouped by range "
        "(`pip_group`), the same as a `LEFT JOIN` keeping every point (`pip_left`), a `LEFT JOIN` "
        "keeping every range (`ranges_left`: the small side is preserved, so no broadcast join "
        "can build it) and `p.v > i.lo AND p.id % 100 < i.y` (`two_col`)."
    )
    if not args.no_extras:
        text += (
            " Then two 100K x 100K band joins with about 1e8 output pairs (`dense_count`, "
            "`dense_group`); type-2 dimension lookups (`scd2`, the workloads' SCD2 query, and "
            "`scd2_left`, its `LEFT JOIN`) of 5M facts in versions with one or five versions "
            "per key, the last also with the versions hash-partitioned "
            "(`spark.rangejoin.keyedIntervalJoin.broadcastThreshold=-1`); and the suite's "
            "TPC-H-shaped join forced through the plugin "
            "(`spark.rangejoin.minCandidatePairs=0`, `spark.rangejoin.minSmallSideRows=0`)."
        )
    return text + (
        " Each cell ran with the plugin on and off in one session, in turns, best of 3 after a "
        f"warm-up of each (best of {SHORT_RUNS} when both took under {SHORT_SECONDS:g} s, since "
        "such short runs vary by more than the margin below), and the two answers agreed. A cell "
        "is flagged SLOWER when the plugin took more than 1.1x vanilla Spark's time, except "
        "where the plugin left the join to Spark (a Spark operator in the operator column): both "
        "runs then execute the same plan and their ratio is noise. "
        f"The grid took {minutes:.1f} min."
    )


def keyed(spark, grid: Grid) -> None:
    """Type-2 dimension lookups (the workloads' `SCD2_LOOKUP`), inner and `LEFT JOIN`, with the
    versions broadcast as the plugin chooses, and the largest also hash-partitioned."""
    for rows, keys in KEYED:
        spark.read.parquet(facts(spark, 5_000_000, keys, 3653, 91)).createOrReplaceTempView("facts")
        spark.read.parquet(versions(spark, rows, keys, 3653, 95)).createOrReplaceTempView("dim")
        label = f"5,000,000 x {rows:,} ({rows // keys} per key)"
        grid.cell(f"scd2 {label}", SCD2_LOOKUP)
        grid.cell(f"scd2_left {label}", SCD2_LEFT)
    grid.cell(f"scd2 partitioned {label}", SCD2_LOOKUP, PARTITIONED)


def extras(spark, grid: Grid) -> None:
    """The output-heavy 100K x 100K band joins, the type-2 dimension lookups, and the
    TPC-H-shaped join forced through."""
    spark.read.parquet(points(spark, "points", 100_000, 5)).createOrReplaceTempView("a")
    spark.read.parquet(points(spark, "points_b", 100_000, 6)).createOrReplaceTempView("b")
    for name, query in DENSE.items():
        grid.cell(f"{name} 100,000 x 100,000", query)
    keyed(spark, grid)
    tpch = BY_NAME["tpch"]
    for view, path in tpch.tables(spark, tpch.rows).items():
        spark.read.parquet(path).createOrReplaceTempView(view)
    grid.cell(f"tpch forced {tpch.rows:,} x {tpch.rows // 4:,}", tpch.query(tpch.rows), FORCED)


if __name__ == "__main__":
    main()

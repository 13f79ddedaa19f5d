"""Acceptance benchmark for equality keys plus ranges: SlidingWindowHashJoin, KeyGroupIEJoin.

1. The window query: 20 keys, `l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50`, at 200K
   rows per side against vanilla Spark and DuckDB, and at 2M rows per side against DuckDB.
2. Interval overlap on a few large groups: 5 chromosomes,
   `a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start`, against vanilla Spark and DuckDB.
3. Small key groups: the window query (inner and left outer) with many keys, the plugin forced
   on against vanilla Spark, by candidate pairs (left rows x right rows / keys). This measures
   the default of `spark.rangejoin.keyed.minCandidatePairs`.

Plugin times are medians of 5 runs after 5 warm-up runs; vanilla Spark runs once; DuckDB
(2 threads) runs 5 times after 5 warm-ups, or once when capped.
"""

import argparse

from race import Race, parquet, print_table

from common import best_of, keyed_events, keyed_intervals, spark_query, spark_session

WINDOW_QUERY = """
SELECT count(*) AS pairs, sum(l.id) AS l_ids, sum(r.id) AS r_ids
FROM {a} l JOIN {b} r ON l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50
"""

OVERLAP_QUERY = """
SELECT count(*) AS pairs, sum(a.id) AS a_ids, sum(b.id) AS b_ids
FROM {a} a JOIN {b} b ON a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start
"""


def register(spark, make, rows: int, keys: int) -> dict:
    """Writes and registers tables `ta` and `tb`; returns their DuckDB table expressions."""
    paths = {name: make(spark, name, rows, keys, seed) for name, seed in (("ta", 41), ("tb", 51))}
    for name, path in paths.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    return {"a": parquet(paths["ta"]), "b": parquet(paths["tb"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--window-rows", type=int, default=200_000)
    parser.add_argument("--window-large", type=int, default=2_000_000)
    parser.add_argument("--overlap-rows", type=int, default=100_000)
    parser.add_argument("--tiny-rows", type=int, default=300_000)
    parser.add_argument("--duckdb-cap", type=float, default=300.0, help="seconds")
    args = parser.parse_args()
    spark = spark_session()
    table = []

    # 1. The 20-key window query.
    for rows in (args.window_rows, args.window_large):
        duck = register(spark, keyed_events, rows, 20)
        race = Race(spark, "20-key window", rows, WINDOW_QUERY.format(a="ta", b="tb"), table)
        if rows == args.window_rows:
            race.vanilla()
            race.duckdb(WINDOW_QUERY.format(**duck))
        else:
            race.duckdb(WINDOW_QUERY.format(**duck), cap=args.duckdb_cap)

    # 2. Interval overlap per chromosome.
    duck = register(spark, keyed_intervals, args.overlap_rows, 5)
    race = Race(
        spark,
        "5-key interval overlap",
        args.overlap_rows,
        OVERLAP_QUERY.format(a="ta", b="tb"),
        table,
    )
    race.vanilla()
    race.duckdb(OVERLAP_QUERY.format(**duck))
    print_table(table)

    # 3. Small key groups: plugin forced on against vanilla Spark.
    print()
    print("| join | keys | rows per side | candidate pairs | vanilla Spark s | spark-rangejoin s |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = args.tiny_rows
    spark.conf.set("spark.rangejoin.keyed.minCandidatePairs", "0")
    for per_key in (1, 8, 64, 512):
        keys = rows // per_key
        register(spark, keyed_events, rows, keys)
        for join in ("JOIN", "LEFT JOIN"):
            query = WINDOW_QUERY.format(a="ta", b="tb").replace(" JOIN ", f" {join} ")
            fast_s, fast = best_of(3, spark_query(spark, query, accelerated=True), warmup=2)
            slow_s, slow = best_of(3, spark_query(spark, query, accelerated=False), warmup=2)
            assert fast == slow, f"answers differ: {fast} vs {slow}"
            pairs = rows * rows / keys
            print(
                f"| {join} | {keys:,} | {rows:,} | {pairs:.1e} | {slow_s:.3f} | {fast_s:.3f} |",
                flush=True,
            )
    spark.stop()


if __name__ == "__main__":
    main()

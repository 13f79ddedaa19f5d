"""Acceptance benchmark for every join type and the piecewise merge join.

1. `SELECT count(*) FROM pa r WHERE EXISTS (SELECT 1 FROM pb s WHERE r.v > s.v + 999000)`
   (v uniform in [0, 1e6), so about 0.1% of rows have a match and a nested loop must scan the
   whole other side for every other row): at 200K rows per side against vanilla Spark and
   DuckDB (2 threads, capped), and at 2M rows.
2. An interval-overlap LEFT OUTER JOIN (IEJoin): against vanilla Spark on a smaller size, and
   against DuckDB at 300K rows per side.

Plugin and DuckDB times are medians of 5 runs after 5 warm-up runs; vanilla Spark runs once.
"""

import argparse

from common import (
    best_of,
    capped,
    duckdb_query,
    intervals,
    normalize,
    once,
    plan_text,
    points,
    spark_query,
    spark_session,
)

EXISTS_QUERY = """
SELECT count(*) FROM {pa} r WHERE EXISTS (SELECT 1 FROM {pb} s WHERE r.v > s.v + 999000)
"""

OUTER_QUERY = """
SELECT count(*) AS rows, count(s.id) AS matched, sum(r.id) AS r_ids, sum(s.id) AS s_ids
FROM {ia} r LEFT JOIN {ib} s ON r.start <= s.end AND r.end >= s.start
"""


def operator_line(spark, query: str) -> str:
    spark.conf.set("spark.rangejoin.enabled", "true")
    plan = plan_text(spark, query)
    return next(line.strip() for line in plan.splitlines() if "Join" in line)


class Race:
    """One workload at one size: the plugin's time, then references with the same answer."""

    def __init__(self, spark, label: str, rows: int, query: str, table: list):
        self.spark, self.label, self.rows, self.query, self.table = spark, label, rows, query, table
        self.say(operator_line(spark, query))
        self.fast_s, self.fast = best_of(5, spark_query(spark, query, accelerated=True))
        self.say(f"spark-rangejoin: {self.fast_s:.3f} s -> {self.fast[0]}")

    def say(self, text: str) -> None:
        print(f"[{self.label} {self.rows:,}] {text}", flush=True)

    def record(self, reference: str, seconds) -> None:
        self.table.append((self.label, self.rows, reference, seconds, self.fast_s))

    def vanilla(self) -> None:
        slow_s, slow = once(spark_query(self.spark, self.query, accelerated=False))
        self.say(f"vanilla Spark: {slow_s:.3f} s -> {slow[0]}")
        assert self.fast == slow, f"answers differ: {self.fast} vs {slow}"
        self.record("vanilla Spark", slow_s)

    def duckdb(self, query: str, cap: float | None = None) -> None:
        run = duckdb_query(query)
        if cap is None:
            duck_s, duck = best_of(5, run)
        else:
            duck_s, duck = capped(cap, run, run.interrupt)
        if duck_s is None:
            self.say(f"DuckDB: > {cap:.0f} s (cap)")
        else:
            self.say(f"DuckDB: {duck_s:.3f} s -> {duck[0]}")
            assert normalize(self.fast) == normalize(duck), f"answers differ: {self.fast} vs {duck}"
        self.record("DuckDB", duck_s)


def parquet(path: str) -> str:
    return f"read_parquet('{path}/*.parquet')"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exists-rows", type=int, default=200_000)
    parser.add_argument("--exists-large", type=int, default=2_000_000)
    parser.add_argument("--outer-rows", type=int, default=300_000)
    parser.add_argument("--outer-vanilla-rows", type=int, default=20_000)
    parser.add_argument("--duckdb-cap", type=float, default=120.0, help="seconds")
    args = parser.parse_args()
    spark = spark_session()
    table = []

    # 1. EXISTS with one inequality.
    for rows in (args.exists_rows, args.exists_large):
        paths = {name: points(spark, name, rows, seed) for name, seed in (("pa", 11), ("pb", 12))}
        for name, path in paths.items():
            spark.read.parquet(path).createOrReplaceTempView(name)
        race = Race(spark, "EXISTS", rows, EXISTS_QUERY.format(pa="pa", pb="pb"), table)
        if rows == args.exists_rows:
            race.vanilla()
            duck_query = EXISTS_QUERY.format(pa=parquet(paths["pa"]), pb=parquet(paths["pb"]))
            race.duckdb(duck_query, cap=args.duckdb_cap)
        else:
            race.record("-", None)

    # 2. Interval-overlap left outer join.
    for rows in (args.outer_vanilla_rows, args.outer_rows):
        paths = {
            name: intervals(spark, name, rows, seed) for name, seed in (("ia", 21), ("ib", 31))
        }
        for name, path in paths.items():
            spark.read.parquet(path).createOrReplaceTempView(name)
        race = Race(spark, "interval LEFT JOIN", rows, OUTER_QUERY.format(ia="ia", ib="ib"), table)
        if rows == args.outer_vanilla_rows:
            race.vanilla()
        else:
            race.duckdb(OUTER_QUERY.format(ia=parquet(paths["ia"]), ib=parquet(paths["ib"])))

    print()
    print("| query | rows per side | reference | reference s | spark-rangejoin s | ratio |")
    print("|---|---:|---|---:|---:|---|")
    for query, rows, ref, ref_s, plugin_s in table:
        if ref_s is None:
            ref_text, ratio = ("-", "-") if ref == "-" else ("> cap", "-")
        else:
            ref_text = f"{ref_s:.3f}"
            ratio = (
                f"plugin {ref_s / plugin_s:.1f}x faster"
                if ref_s >= plugin_s
                else f"plugin {plugin_s / ref_s:.1f}x slower"
            )
        print(f"| {query} | {rows:,} | {ref} | {ref_text} | {plugin_s:.3f} | {ratio} |")
    spark.stop()


if __name__ == "__main__":
    main()

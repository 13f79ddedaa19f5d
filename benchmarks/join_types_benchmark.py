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
        for name, seed in (("pa", 11), ("pb", 12)):
            spark.read.parquet(points(spark, name, rows, seed)).createOrReplaceTempView(name)
        query = EXISTS_QUERY.format(pa="pa", pb="pb")
        print(f"[EXISTS {rows:,}] {operator_line(spark, query)}", flush=True)
        fast_s, fast = best_of(5, spark_query(spark, query, accelerated=True))
        print(f"[EXISTS {rows:,}] spark-rangejoin: {fast_s:.3f} s -> {fast[0]}", flush=True)
        if rows == args.exists_rows:
            slow_s, slow = once(spark_query(spark, query, accelerated=False))
            print(f"[EXISTS {rows:,}] vanilla Spark: {slow_s:.3f} s -> {slow[0]}", flush=True)
            assert fast == slow, f"answers differ: {fast} vs {slow}"
            table.append(("EXISTS r.v > s.v + 999000", rows, "vanilla Spark", slow_s, fast_s))
            duck = duckdb_query(
                EXISTS_QUERY.format(
                    pa=f"read_parquet('{points(spark, 'pa', rows, 11)}/*.parquet')",
                    pb=f"read_parquet('{points(spark, 'pb', rows, 12)}/*.parquet')",
                )
            )
            duck_s, duck_rows = capped(args.duckdb_cap, duck, duck.interrupt)
            if duck_s is None:
                print(f"[EXISTS {rows:,}] DuckDB: > {args.duckdb_cap:.0f} s (cap)", flush=True)
                table.append(("EXISTS r.v > s.v + 999000", rows, "DuckDB", None, fast_s))
            else:
                print(f"[EXISTS {rows:,}] DuckDB: {duck_s:.3f} s -> {duck_rows[0]}", flush=True)
                assert normalize(fast) == normalize(duck_rows)
                table.append(("EXISTS r.v > s.v + 999000", rows, "DuckDB", duck_s, fast_s))
        else:
            table.append(("EXISTS r.v > s.v + 999000", rows, "-", None, fast_s))

    # 2. Interval-overlap left outer join.
    for rows in (args.outer_vanilla_rows, args.outer_rows):
        paths = {
            name: intervals(spark, name, rows, seed) for name, seed in (("ia", 21), ("ib", 31))
        }
        for name, path in paths.items():
            spark.read.parquet(path).createOrReplaceTempView(name)
        query = OUTER_QUERY.format(ia="ia", ib="ib")
        print(f"[LEFT JOIN {rows:,}] {operator_line(spark, query)}", flush=True)
        fast_s, fast = best_of(5, spark_query(spark, query, accelerated=True))
        print(f"[LEFT JOIN {rows:,}] spark-rangejoin: {fast_s:.3f} s -> {fast[0]}", flush=True)
        if rows == args.outer_vanilla_rows:
            slow_s, slow = once(spark_query(spark, query, accelerated=False))
            print(f"[LEFT JOIN {rows:,}] vanilla Spark: {slow_s:.3f} s -> {slow[0]}", flush=True)
            assert fast == slow, f"answers differ: {fast} vs {slow}"
            table.append(("interval LEFT JOIN", rows, "vanilla Spark", slow_s, fast_s))
        else:
            duck_query = OUTER_QUERY.format(
                ia=f"read_parquet('{paths['ia']}/*.parquet')",
                ib=f"read_parquet('{paths['ib']}/*.parquet')",
            )
            duck_s, duck = best_of(5, duckdb_query(duck_query))
            print(f"[LEFT JOIN {rows:,}] DuckDB: {duck_s:.3f} s -> {duck[0]}", flush=True)
            assert normalize(fast) == normalize(duck), f"answers differ: {fast} vs {duck}"
            table.append(("interval LEFT JOIN", rows, "DuckDB", duck_s, fast_s))

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

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

from race import Race, parquet, print_table

from common import intervals, points, spark_session

EXISTS_QUERY = """
SELECT count(*) FROM {pa} r WHERE EXISTS (SELECT 1 FROM {pb} s WHERE r.v > s.v + 999000)
"""

OUTER_QUERY = """
SELECT count(*) AS rows, count(s.id) AS matched, sum(r.id) AS r_ids, sum(s.id) AS s_ids
FROM {ia} r LEFT JOIN {ib} s ON r.start <= s.end AND r.end >= s.start
"""


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

    print_table(table)
    spark.stop()


if __name__ == "__main__":
    main()

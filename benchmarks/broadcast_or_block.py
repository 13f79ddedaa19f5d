"""When a small input of a join without equality keys is broadcast and when it is block-joined:
self-join-sized inputs of N rows per side, each query timed broadcast (BroadcastRangeJoin) and as
a block join (`spark.rangejoin.broadcast.enabled=false`: IEJoin), best of 10 after 8 warm-ups,
the answers compared. Two queries: the anomaly self-join, with few matches per row, and a band
join of two point tables with about 1% of all pairs matching (1e8 pairs at 100K rows per side).
The tiny-side rung is off (`spark.rangejoin.minCandidatePairs=0`) so that the plugin runs at
every size. What it shows sets the default of `spark.rangejoin.broadcast.ratioAboveRows`. `make
bench-defaults` runs it through `defaults.py`, which writes the table to its page.
"""

import argparse

from results_page import Table

from common import ANOMALY_QUERY, best_of, employees, points, spark_query, spark_session

QUERIES = {
    "anomaly": ANOMALY_QUERY.format(table="employees"),
    "band 1%": "SELECT count(*) FROM a JOIN b ON a.v BETWEEN b.v - 5000 AND b.v + 5000",
}
BLOCK_JOIN = "spark.rangejoin.broadcast.enabled"
COLUMNS = ["query", "rows per side>", "broadcast s>", "block join s>"]


def measure(spark, sizes: list) -> Table:
    spark.conf.set("spark.rangejoin.minCandidatePairs", "0")
    table = Table(COLUMNS)
    for rows in sizes:
        spark.read.parquet(employees(spark, rows)).createOrReplaceTempView("employees")
        spark.read.parquet(points(spark, "points", rows, 5)).createOrReplaceTempView("a")
        spark.read.parquet(points(spark, "points_b", rows, 6)).createOrReplaceTempView("b")
        for name, query in QUERIES.items():
            run = spark_query(spark, query, accelerated=True)
            broadcast_s, broadcast = best_of(10, run, warmup=8)
            spark.conf.set(BLOCK_JOIN, "false")
            block_s, block = best_of(10, run, warmup=8)
            spark.conf.unset(BLOCK_JOIN)
            assert broadcast == block, f"answers differ: {broadcast} vs {block}"
            table.add(
                [name, f"{rows:,}", f"{broadcast_s:.3f}", f"{block_s:.3f}"],
                query=name,
                rows=rows,
                broadcast_s=broadcast_s,
                block_s=block_s,
            )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", default="5000,10000,20000,100000", help="rows per side")
    parser.add_argument("--json", help="also save the table here, for defaults.py")
    args = parser.parse_args()
    spark = spark_session()
    table = measure(spark, [int(n) for n in args.rows.split(",")])
    if args.json:
        table.save(args.json, spark)
    spark.stop()


if __name__ == "__main__":
    main()

"""Where Spark's broadcast nested loop join beats the plugin: a point-in-period join of 300K
intervals with a small calendar, at five calendar sizes, with the tiny-side rule switched off
(`spark.rangejoin.minCandidatePairs=0`, `spark.rangejoin.minSmallSideRows=0`) so that the plugin
runs every time.

Two shapes: an inner join, where the plugin broadcasts the calendar (BroadcastRangeJoin), and
the calendar LEFT JOIN the intervals, where the preserved calendar cannot be the broadcast input
and the intervals are kept above the broadcast threshold (1 MB here), so that the plugin runs a
block join. The crossovers they show set the defaults of `spark.rangejoin.minCandidatePairs` and
`spark.rangejoin.minSmallSideRows`. Times are the best of 5 runs after 5 warm-ups. `make
bench-defaults` runs it through `defaults.py`, which writes the table to its page.
"""

import argparse

from results_page import Table

from common import best_of, intervals, join_line, plan_text, spark_query, spark_session

ROWS = 300_000
DAYS = "10,30,100,365,3650"
ON = "ia.start <= cal.x AND cal.x <= ia.end"
SHAPES = {  # shape -> (query, broadcast threshold)
    "inner": (f"SELECT count(*), sum(x) FROM ia JOIN cal ON {ON}", "10MB"),
    "calendar left": (
        f"SELECT count(*), count(ia.id), sum(x) FROM cal LEFT JOIN ia ON {ON}",
        "1MB",
    ),
}
COLUMNS = [
    "shape",
    "calendar rows>",
    "candidate pairs>",
    "plugin operator",
    "plugin s>",
    "vanilla s>",
]


def measure(spark, rows: int, calendars: list) -> Table:
    spark.conf.set("spark.rangejoin.minCandidatePairs", "0")
    spark.conf.set("spark.rangejoin.minSmallSideRows", "0")
    spark.read.parquet(intervals(spark, "ia", rows, 21)).createOrReplaceTempView("ia")
    table = Table(COLUMNS)
    for days in calendars:
        step = 30 * rows // days
        spark.range(0, days).selectExpr(f"id * {step} AS x").createOrReplaceTempView("cal")
        for shape, (query, threshold) in SHAPES.items():
            spark.conf.set("spark.sql.autoBroadcastJoinThreshold", threshold)
            plugin_s, plugin = best_of(5, spark_query(spark, query, accelerated=True))
            vanilla_s, vanilla = best_of(5, spark_query(spark, query, accelerated=False))
            assert plugin == vanilla, f"answers differ: {plugin} vs {vanilla}"
            spark.conf.set("spark.rangejoin.enabled", "true")
            node = join_line(plan_text(spark, query)).split(" ")[0]
            pairs = rows * days
            table.add(
                [shape, f"{days:,}", f"{pairs:.1e}", node, f"{plugin_s:.3f}", f"{vanilla_s:.3f}"],
                shape=shape,
                days=days,
                pairs=pairs,
                plugin_s=plugin_s,
                vanilla_s=vanilla_s,
            )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=ROWS, help="rows of the intervals")
    parser.add_argument("--days", default=DAYS, help="comma-separated calendar sizes")
    parser.add_argument("--json", help="also save the table here, for defaults.py")
    args = parser.parse_args()
    spark = spark_session()
    table = measure(spark, args.rows, [int(d) for d in args.days.split(",")])
    if args.json:
        table.save(args.json, spark)
    spark.stop()


if __name__ == "__main__":
    main()

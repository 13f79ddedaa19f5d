"""Where Spark's broadcast nested loop join beats the plugin: a point-in-period join of 300K
intervals with a small calendar, at three calendar sizes, with the tiny-side rule switched off
(`spark.rangejoin.minCandidatePairs=0`) so that the plugin runs every time.

The crossover it shows sets the default of `spark.rangejoin.minCandidatePairs`.
"""

from common import best_of, intervals, spark_query, spark_session

ROWS = 300_000
QUERY = "SELECT count(*), sum(x) FROM ia JOIN cal ON ia.start <= cal.x AND cal.x <= ia.end"


def main() -> None:
    spark = spark_session()
    spark.conf.set("spark.rangejoin.minCandidatePairs", "0")
    spark.read.parquet(intervals(spark, "ia", ROWS, 21)).createOrReplaceTempView("ia")
    print("| calendar rows | candidate pairs | spark-rangejoin s | vanilla Spark s | faster |")
    print("|---:|---:|---:|---:|---|")
    for days in (10, 365, 3650):
        step = 30 * ROWS // days
        spark.range(0, days).selectExpr(f"id * {step} AS x").createOrReplaceTempView("cal")
        plugin_s, plugin = best_of(5, spark_query(spark, QUERY, accelerated=True))
        vanilla_s, vanilla = best_of(5, spark_query(spark, QUERY, accelerated=False))
        assert plugin == vanilla, f"answers differ: {plugin} vs {vanilla}"
        winner = "spark-rangejoin" if plugin_s < vanilla_s else "vanilla Spark"
        print(
            f"| {days:,} | {ROWS * days:.1e} | {plugin_s:.3f} | {vanilla_s:.3f} | {winner} |",
            flush=True,
        )
    spark.stop()


if __name__ == "__main__":
    main()

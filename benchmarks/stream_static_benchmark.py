"""The cost of one micro-batch of a stream-static range join: the `rate` source's values
(ROWS_PER_BATCH a micro-batch) as points, joined to a static side of 1M disjoint ranges, in
three setups: the plugin off (Spark's broadcast nested loop join), the plugin with the static
side read from parquet in every micro-batch, and the plugin with the static side cached, whose
sorted broadcast and index are built once and reused. Each line is the best and the median
`addBatch` time of micro-batches 3 to 10 (the first two warm up); answers are not collected
(a `noop` sink), so the plan is the same as for any sink.
"""

import re
import statistics
import time

from pyspark.sql import functions as F

from common import join_line, spark_session, write_once

STATIC_ROWS = 1_000_000
ROWS_PER_BATCH = 2_000
BATCHES = 10


def batch_times(spark, static, accelerated: bool) -> tuple[list[float], str]:
    """addBatch seconds of each micro-batch after the first two, and the join operator."""
    spark.conf.set("spark.rangejoin.enabled", str(accelerated).lower())
    stream = (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", ROWS_PER_BATCH)
        .option("numPartitions", 2)
        .load()
        .selectExpr(f"(value * 7919) % {STATIC_ROWS * 10} AS v")
    )
    joined = stream.join(static, F.expr("v >= lo AND v < hi"))
    query = joined.writeStream.format("noop").trigger(processingTime="0 seconds").start()
    try:
        while len(query.recentProgress) < BATCHES:
            time.sleep(0.2)
        plan = join_line(query._jsq.streamingQuery().lastExecution().executedPlan().toString())
        node = re.search(r"\w*Join\w*", plan).group(0)
    finally:
        # Stopping cancels the micro-batch under way, whose tasks then log their abort.
        spark.sparkContext.setLogLevel("OFF")
        query.stop()
        spark.sparkContext.setLogLevel("ERROR")
    times = [p["durationMs"]["addBatch"] / 1000 for p in query.recentProgress[2:BATCHES]]
    return times, node


def main() -> None:
    spark = spark_session()
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "200MB")
    path = write_once(
        f"static_ranges_{STATIC_ROWS}.parquet",
        lambda: spark.range(STATIC_ROWS).selectExpr(
            "id AS rid", "id * 10 AS lo", "id * 10 + 7 AS hi"
        ),
    )
    print(f"{ROWS_PER_BATCH:,} stream rows a micro-batch against {STATIC_ROWS:,} static ranges")
    print("| setup | operator | best s | median s |")
    print("|---|---|---:|---:|")

    def report(name: str, static, accelerated: bool) -> None:
        times, node = batch_times(spark, static, accelerated)
        median = statistics.median(times)
        print(f"| {name} | {node} | {min(times):.3f} | {median:.3f} |", flush=True)

    # Not cached yet: caching the same plan would let every read of it use the cache.
    report("plugin off, static side read each micro-batch", spark.read.parquet(path), False)
    report("plugin, static side read each micro-batch", spark.read.parquet(path), True)
    cached = spark.read.parquet(path).cache()
    cached.count()
    report("plugin, static side cached", cached, True)
    spark.stop()


if __name__ == "__main__":
    main()

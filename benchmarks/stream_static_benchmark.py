"""The cost of one micro-batch of a stream-static range join: the `rate` source's values
(ROWS_PER_BATCH a micro-batch) as points, joined to a static side of 1M disjoint ranges, in
three setups: the plugin off (Spark's broadcast nested loop join), the plugin with the static
side read from parquet in every micro-batch, and the plugin with the static side cached, whose
sorted broadcast and index are built once and reused. Each line is the best and the median
`addBatch` time of micro-batches 3 to 10 (the first two warm up); answers are not collected
(a `noop` sink), so the plan is the same as for any sink. The table is printed as it is measured,
and the results page `stream.md` is written to `--out` (docs/benchmarks/).
"""

import argparse
import re
import statistics
import time
from pathlib import Path

from pyspark.sql import functions as F
from results_page import DOCS_DIR, Table, write_page

from common import join_line, spark_session, write_once

STATIC_ROWS = 1_000_000
ROWS_PER_BATCH = 2_000
BATCHES = 10
WARMUP_BATCHES = 2


def batch_times(spark, static, accelerated: bool, args) -> tuple[list[float], str]:
    """addBatch seconds of each micro-batch after the first two, and the join operator."""
    spark.conf.set("spark.rangejoin.enabled", str(accelerated).lower())
    stream = (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", args.rows_per_batch)
        .option("numPartitions", 2)
        .load()
        .selectExpr(f"(value * 7919) % {args.static_rows * 10} AS v")
    )
    joined = stream.join(static, F.expr("v >= lo AND v < hi"))
    query = joined.writeStream.format("noop").trigger(processingTime="0 seconds").start()
    try:
        while len(query.recentProgress) < args.batches:
            time.sleep(0.2)
        plan = join_line(query._jsq.streamingQuery().lastExecution().executedPlan().toString())
        node = re.search(r"\w*Join\w*", plan).group(0)
    finally:
        # Stopping cancels the micro-batch under way, whose tasks then log their abort.
        spark.sparkContext.setLogLevel("OFF")
        query.stop()
        spark.sparkContext.setLogLevel("ERROR")
    timed = query.recentProgress[WARMUP_BATCHES : args.batches]
    times = [batch["durationMs"]["addBatch"] / 1000 for batch in timed]
    return times, node


def method(args) -> str:
    return (
        f"One stream-static range join, `v >= lo AND v < hi`: the `rate-micro-batch` source's "
        f"values ({args.rows_per_batch:,} rows a micro-batch, 2 partitions) as points v, "
        f"against a static side of {args.static_rows:,} disjoint ranges [lo, hi) read from "
        "parquet and broadcast (`spark.sql.autoBroadcastJoinThreshold=200MB`), written to a "
        "`noop` sink (`benchmarks/stream_static_benchmark.py`). Three setups: the plugin off "
        "(Spark's broadcast nested loop join), the plugin with the static side read from "
        "parquet in every micro-batch, and the plugin with the static side cached, whose sorted "
        "broadcast and index are built once and reused. Each row is the best and the median "
        f"`addBatch` time of micro-batches {WARMUP_BATCHES + 1} to {args.batches} (the first "
        f"{WARMUP_BATCHES} warm up)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--static-rows", type=int, default=STATIC_ROWS, help="static ranges")
    parser.add_argument("--rows-per-batch", type=int, default=ROWS_PER_BATCH)
    parser.add_argument(
        "--batches", type=int, default=BATCHES, help="micro-batches a setup (the first two warm up)"
    )
    parser.add_argument("--out", default=str(DOCS_DIR), help="where stream.md goes")
    args = parser.parse_args()
    if args.batches <= WARMUP_BATCHES:
        parser.error(f"--batches must be more than {WARMUP_BATCHES}")
    spark = spark_session()
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "200MB")
    path = write_once(
        f"static_ranges_{args.static_rows}.parquet",
        lambda: spark.range(args.static_rows).selectExpr(
            "id AS rid", "id * 10 AS lo", "id * 10 + 7 AS hi"
        ),
    )
    print(
        f"{args.rows_per_batch:,} stream rows a micro-batch against {args.static_rows:,} static "
        "ranges"
    )
    table = Table(["setup", "operator", "best s>", "median s>"])

    def report(name: str, static, accelerated: bool) -> None:
        times, node = batch_times(spark, static, accelerated, args)
        table.add([name, node, f"{min(times):.3f}", f"{statistics.median(times):.3f}"])

    # Not cached yet: caching the same plan would let every read of it use the cache.
    report("plugin off, static side read each micro-batch", spark.read.parquet(path), False)
    report("plugin, static side read each micro-batch", spark.read.parquet(path), True)
    cached = spark.read.parquet(path).cache()
    cached.count()
    report("plugin, static side cached", cached, True)
    body = f"{method(args)}\n\n{table.markdown()}"
    out = write_page(Path(args.out) / "stream.md", "Streaming", body, spark)
    print(f"wrote {out}")
    spark.stop()


if __name__ == "__main__":
    main()

"""Scale check (issue 5): inputs larger than memory, and a hot key, in a 2 GiB driver.

1. Band join: `SELECT count(*) FROM br r JOIN bs s ON r.v BETWEEN s.v - 1 AND s.v + 1`, 20M x
   20M rows, v uniform over as many integers as rows (about 3 matches per row).
2. Hot key: the same band join with +-2, where 10% of the rows of one side share one value of v.

Both run through IEJoinExec. Each answer (count and sum(r.id)) is checked against an independent
plan: the equi-join of r.v with s.v + d for every offset d, with the plugin off (Spark's hash or
sort-merge join). The
script prints the operator's spill and memory metrics, and for the hot key every stage's median
and slowest task. `--master local-cluster[2,1,1024]` runs the same queries on two executor JVMs
of 1 GiB each.
"""

import argparse
import time

from common import plan_metrics, spark_session, stage_task_times, write_once

BAND = "SELECT count(*), sum(r.id) FROM {r} r JOIN {s} s ON r.v BETWEEN s.v - {c} AND s.v + {c}"

EQUI_CHECK = """
SELECT count(*), sum(r.id) FROM {r} r JOIN (
  SELECT s.v + d AS w FROM {s} s CROSS JOIN (SELECT explode(sequence(-{c}, {c})) AS d)
) x ON r.v = x.w
"""


def band_points(spark, name: str, rows: int, seed: int, hot_share: float = 0.0) -> str:
    """Writes (once) the parquet of (id, v): v uniform in [0, rows), or rows // 2 for a share."""
    hot = int(round(hot_share * 100))
    return write_once(
        f"{name}_{rows}_hot{hot}.parquet",
        lambda: spark.range(0, rows, numPartitions=8).selectExpr(
            "id",
            f"CASE WHEN id % 100 < {hot} THEN {rows // 2} "
            f"ELSE CAST(rand({seed}) * {rows} AS BIGINT) END AS v",
        ),
    )


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"
        size /= 1024


def checked_count(spark, label: str, r: str, s: str, c: int) -> None:
    """Runs the band join, prints its metrics and tasks, and checks its answer by equi-join."""
    query = BAND.format(r=r, s=s, c=c)
    spark.conf.set("spark.rangejoin.enabled", "true")
    spark.sparkContext.setJobGroup(label, label)
    start = time.perf_counter()
    df = spark.sql(query)
    pairs, ids = df.collect()[0]
    seconds = time.perf_counter() - start
    plan = df._jdf.queryExecution().executedPlan().toString()
    operator = next(line.strip(" :+-*") for line in plan.splitlines() if "Join" in line)
    print(f"[{label}] {operator}", flush=True)
    print(f"[{label}] spark-rangejoin: {seconds:.1f} s -> {pairs:,} pairs, sum(r.id) {ids:,}")
    for stage, tasks, median, slowest in stage_task_times(spark, label):
        print(
            f"[{label}] stage {stage}: {tasks} tasks, median {median / 1000:.2f} s, "
            f"slowest {slowest / 1000:.2f} s ({slowest / max(median, 1):.1f}x the median)",
            flush=True,
        )
    metrics = plan_metrics(df, operator.split(" ")[0])
    print(
        f"[{label}] spill size {human(metrics['spillSize'])}, "
        f"sorted blocks on disk {human(metrics['blocksOnDisk'])}, "
        f"peak memory {human(metrics['peakMemory'])} (sum over tasks)",
        flush=True,
    )
    spark.conf.set("spark.rangejoin.enabled", "false")
    start = time.perf_counter()
    expected = tuple(spark.sql(EQUI_CHECK.format(r=r, s=s, c=c)).collect()[0])
    print(
        f"[{label}] equi-join check, vanilla Spark: {time.perf_counter() - start:.1f} s "
        f"-> {expected[0]:,} pairs, sum(r.id) {expected[1]:,}",
        flush=True,
    )
    assert (pairs, ids) == expected, (
        f"{label}: the band join gave {(pairs, ids)}, the check {expected}"
    )
    print(f"[{label}] answers agree", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side")
    parser.add_argument("--driver-memory", default="2g")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--skip-band", action="store_true", help="run only the hot-key query")
    args = parser.parse_args()
    spark = spark_session(driver_memory=args.driver_memory, master=args.master)
    print(f"master {args.master}, driver memory {args.driver_memory}, {args.rows:,} rows a side")
    for name, seed, hot in (("br", 61, 0.0), ("bs", 62, 0.0), ("hr", 63, 0.1)):
        path = band_points(spark, name, args.rows, seed, hot)
        spark.read.parquet(path).createOrReplaceTempView(name)

    if not args.skip_band:
        checked_count(spark, "band join", "br", "bs", 1)
    checked_count(spark, "hot key (10% of r.v equal)", "hr", "bs", 2)
    spark.stop()


if __name__ == "__main__":
    main()

"""Scale check (issue 5): inputs larger than memory, and hot keys, in a 2 GiB driver.

Tables of (id, k, v), 20M rows a side: k uniform over 1000 keys, v uniform over as many integers
as rows.
1. Band join: `SELECT count(*) FROM br r JOIN bs s ON r.v BETWEEN s.v - 1 AND s.v + 1` (about 3
   matches per row), through IEJoinExec.
2. Hot value: the same band join with +-2, where 10% of the rows of r share one value of v.
3. Hot equality key: `r.k = s.k AND r.v BETWEEN s.v - 2 AND s.v + 2`, where 10% of the rows of
   r share one key, through SlidingWindowJoinExec: once with
   `spark.sql.adaptive.skewJoin.enabled=false`, once with adaptive execution's skew split
   (`SplitSkewedKeyPartitions`). Partitions are coalesced to about `--advisory-mib` MiB, and one
   over twice that is skewed; map tasks read twice that too, since the split cuts a partition
   at map-output boundaries.

Each answer (count and sum(r.id)) is checked against an independent plan: the equi-join of r.v
with s.v + d for every offset d (and r.k with s.k), with the plugin off (Spark's hash or
sort-merge join). The script prints the operator's spill and memory metrics and every stage's
median and slowest task. `--master local-cluster[2,1,1024]` runs the same queries on two executor
JVMs of 1 GiB each.
"""

import argparse
import time

from common import join_line, plan_metrics, spark_session, stage_task_times, write_once

BAND = """
SELECT count(*), sum(r.id) FROM {r} r JOIN {s} s ON {key}r.v BETWEEN s.v - {c} AND s.v + {c}
"""

EQUI_CHECK = """
SELECT count(*), sum(r.id) FROM {r} r JOIN (
  SELECT s.k, s.v + d AS v FROM {s} s CROSS JOIN (SELECT explode(sequence(-{c}, {c})) AS d)
) s ON {key}r.v = s.v
"""

KEY = "r.k = s.k AND "


def band_points(spark, name: str, rows: int, seed: int, hot: str = "", share: float = 0.0) -> str:
    """Writes (once) the parquet of (id, k, v): k uniform in [0, 1000), v in [0, rows); for a
    `share` of the rows, column `hot` is one value (k: 0, v: rows // 2)."""
    percent = int(round(share * 100))
    values = {
        "k": f"CAST(rand({seed + 100}) * 1000 AS INT)",
        "v": f"CAST(rand({seed}) * {rows} AS BIGINT)",
    }
    if hot:
        hot_value = 0 if hot == "k" else rows // 2
        values[hot] = f"CASE WHEN id % 100 < {percent} THEN {hot_value} ELSE {values[hot]} END"
    return write_once(
        f"{name}_{rows}_kv_hot{hot}{percent}.parquet",
        lambda: spark.range(0, rows, numPartitions=8).selectExpr(
            "id", f"{values['k']} AS k", f"{values['v']} AS v"
        ),
    )


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}"
        size /= 1024


def checked_count(spark, label: str, r: str, s: str, c: int, key: str = "") -> tuple:
    """Runs the band join, prints its metrics and tasks, and checks its answer by equi-join."""
    answer = band_join(spark, label, r, s, c, key)
    spark.conf.set("spark.rangejoin.enabled", "false")
    start = time.perf_counter()
    expected = tuple(spark.sql(EQUI_CHECK.format(r=r, s=s, c=c, key=key)).collect()[0])
    print(
        f"[{label}] equi-join check, vanilla Spark: {time.perf_counter() - start:.1f} s "
        f"-> {expected[0]:,} pairs, sum(r.id) {expected[1]:,}",
        flush=True,
    )
    assert answer == expected, f"{label}: the band join gave {answer}, the check {expected}"
    print(f"[{label}] answers agree", flush=True)
    return answer


def band_join(spark, label: str, r: str, s: str, c: int, key: str) -> tuple:
    """Runs the band join with the plugin and prints its time, plan, metrics and tasks."""
    query = BAND.format(r=r, s=s, c=c, key=key)
    spark.conf.set("spark.rangejoin.enabled", "true")
    spark.sparkContext.setJobGroup(label, label)
    start = time.perf_counter()
    df = spark.sql(query)
    pairs, ids = df.collect()[0]
    seconds = time.perf_counter() - start
    plan = df._jdf.queryExecution().executedPlan().toString()
    operator = join_line(plan)
    print(f"[{label}] {operator}", flush=True)
    print(f"[{label}] spark-rangejoin: {seconds:.1f} s -> {pairs:,} pairs, sum(r.id) {ids:,}")
    for stage, tasks, median, slowest in stage_task_times(spark, label):
        print(
            f"[{label}] stage {stage}: {tasks} tasks, median {median / 1000:.2f} s, "
            f"slowest {slowest / 1000:.2f} s ({slowest / max(median, 1):.1f}x the median)",
            flush=True,
        )
    metrics = plan_metrics(df, operator.split(" ")[0])
    names = {
        "spillSize": "spill size",
        "blocksOnDisk": "sorted blocks on disk",
        "peakMemory": "peak memory (sum over tasks)",
    }
    print(
        f"[{label}] "
        + ", ".join(f"{text} {human(metrics[m])}" for m, text in names.items() if m in metrics),
        flush=True,
    )
    return pairs, ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side")
    parser.add_argument("--driver-memory", default="2g")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--advisory-mib",
        type=int,
        default=8,
        help="hot-key query: adaptive execution's advisory partition size; twice it is skewed",
    )
    parser.add_argument(
        "--only", choices=("band", "hot-value", "hot-key"), help="run only this query"
    )
    args = parser.parse_args()
    spark = spark_session(driver_memory=args.driver_memory, master=args.master)
    print(f"master {args.master}, driver memory {args.driver_memory}, {args.rows:,} rows a side")
    tables = (("br", 61, "", 0.0), ("bs", 62, "", 0.0), ("hr", 63, "v", 0.1), ("kr", 64, "k", 0.1))
    for name, seed, hot, share in tables:
        path = band_points(spark, name, args.rows, seed, hot, share)
        spark.read.parquet(path).createOrReplaceTempView(name)

    def wanted(query: str) -> bool:
        return args.only in (None, query)

    if wanted("band"):
        checked_count(spark, "band join", "br", "bs", 1)
    if wanted("hot-value"):
        checked_count(spark, "hot value (10% of r.v equal)", "hr", "bs", 2)
    if wanted("hot-key"):
        # Partitions of about advisory size; a partition over twice that is skewed.
        adaptive = "spark.sql.adaptive."
        spark.conf.set(adaptive + "advisoryPartitionSizeInBytes", f"{args.advisory_mib}m")
        threshold = f"{2 * args.advisory_mib}m"
        spark.conf.set(adaptive + "skewJoin.skewedPartitionThresholdInBytes", threshold)
        # The split cuts a partition at map-output boundaries: read in many map tasks.
        spark.conf.set("spark.sql.files.maxPartitionBytes", threshold)
        label = "hot key (10% of r.k equal)"
        spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "false")
        unsplit = band_join(spark, f"{label}, skew split off", "kr", "bs", 2, KEY)
        spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "true")
        answer = checked_count(spark, label, "kr", "bs", 2, KEY)
        assert unsplit == answer, f"{label}: {unsplit} without the skew split, {answer} with it"
    spark.stop()


if __name__ == "__main__":
    main()

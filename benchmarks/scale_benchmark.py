"""Inputs larger than memory, and hot keys, in a 2 GiB driver (`make bench-scale`).

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
median and slowest task, and writes them to the results page `scale.md` in `--out`
(docs/benchmarks/). `--master` may be given more than once: `--master local[2] --master
local-cluster[2,1,1024]` runs the same queries in local mode, then on two executor JVMs of 1 GiB
each, one after the other in the same driver, and the page has a row per query and master.
"""

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from results_page import DOCS_DIR, markdown_table, measured_header, spark_text, write_page

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


METRICS = {
    "spillSize": "spill size",
    "blocksOnDisk": "sorted blocks on disk",
    "peakMemory": "peak memory (sum over tasks)",
}


@dataclass
class Run:
    """One band join with the plugin: its time, answer, operator metrics and stages."""

    query: str
    master: str
    seconds: float
    answer: tuple
    operator: str
    metrics: dict
    stages: list  # (stage id, what it ran, tasks, median ms, slowest ms)
    check: str = "-"

    def metric(self, name: str) -> str:
        return human(self.metrics[name]) if name in self.metrics else "-"

    def slowest_stage(self) -> str:
        """The stage with the slowest task: its slowest and median task, and their ratio."""
        if not self.stages:
            return "-"
        stage, _, tasks, median, slowest = max(self.stages, key=lambda st: st[4])
        return (
            f"stage {stage} ({tasks} tasks): {slowest / 1000:.2f} / {median / 1000:.2f} s "
            f"({slowest / max(median, 1):.1f}x)"
        )

    def row(self) -> list:
        pairs, ids = self.answer
        return [
            self.query,
            self.master,
            f"{self.seconds:.1f} s",
            f"{pairs:,}; {ids:,}",
            self.check,
            self.metric("spillSize"),
            self.metric("blocksOnDisk"),
            self.metric("peakMemory"),
            self.slowest_stage(),
        ]


COLUMNS = [
    "query",
    "master",
    "plugin>",
    "answer (pairs; sum(r.id))",
    "equi-join check",
    "spill size>",
    "sorted blocks on disk>",
    "peak memory (sum over tasks)>",
    "slowest task / its stage's median",
]


def checked_count(spark, run: Run, r: str, s: str, c: int, key: str = "") -> Run:
    """Checks a band join's answer against the equi-join, plugin off."""
    spark.conf.set("spark.rangejoin.enabled", "false")
    start = time.perf_counter()
    expected = tuple(spark.sql(EQUI_CHECK.format(r=r, s=s, c=c, key=key)).collect()[0])
    seconds = time.perf_counter() - start
    print(
        f"[{run.query}] equi-join check, vanilla Spark: {seconds:.1f} s "
        f"-> {expected[0]:,} pairs, sum(r.id) {expected[1]:,}",
        flush=True,
    )
    assert run.answer == expected, (
        f"{run.query}: the band join gave {run.answer}, the check {expected}"
    )
    print(f"[{run.query}] answers agree", flush=True)
    run.check = f"{seconds:.1f} s, same"
    return run


def band_join(spark, label: str, master: str, r: str, s: str, c: int, key: str = "") -> Run:
    """Runs the band join with the plugin and prints its time, plan, metrics and tasks."""
    query = BAND.format(r=r, s=s, c=c, key=key)
    spark.conf.set("spark.rangejoin.enabled", "true")
    group = f"{label} {master}"
    spark.sparkContext.setJobGroup(group, group)
    start = time.perf_counter()
    df = spark.sql(query)
    pairs, ids = df.collect()[0]
    seconds = time.perf_counter() - start
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    plan = df._jdf.queryExecution().executedPlan().toString()
    operator = join_line(plan)
    print(f"[{label}] {operator}", flush=True)
    print(f"[{label}] spark-rangejoin: {seconds:.1f} s -> {pairs:,} pairs, sum(r.id) {ids:,}")
    stages = stage_task_times(spark, group)
    for stage, name, tasks, median, slowest in stages:
        print(
            f"[{label}] stage {stage} ({name}): {tasks} tasks, median {median / 1000:.2f} s, "
            f"slowest {slowest / 1000:.2f} s ({slowest / max(median, 1):.1f}x the median)",
            flush=True,
        )
    metrics = plan_metrics(df, operator.split(" ")[0])
    metrics = {m: metrics[m] for m in METRICS if m in metrics}
    print(
        f"[{label}] " + ", ".join(f"{METRICS[m]} {human(v)}" for m, v in metrics.items()),
        flush=True,
    )
    return Run(label, master, seconds, (pairs, ids), operator.split(",")[0], metrics, stages)


def run_queries(spark, args, master: str) -> list:
    """The queries `--only` asks for, in a session on `master`; their runs."""
    tables = (("br", 61, "", 0.0), ("bs", 62, "", 0.0), ("hr", 63, "v", 0.1), ("kr", 64, "k", 0.1))
    for name, seed, hot, share in tables:
        path = band_points(spark, name, args.rows, seed, hot, share)
        spark.read.parquet(path).createOrReplaceTempView(name)

    def wanted(query: str) -> bool:
        return args.only in (None, query)

    def checked(label: str, r: str, c: int, key: str = "") -> Run:
        return checked_count(
            spark, band_join(spark, label, master, r, "bs", c, key), r, "bs", c, key
        )

    runs = []
    if wanted("band"):
        runs.append(checked("band, c = 1", "br", 1))
    if wanted("hot-value"):
        runs.append(checked("hot value (10% of r.v equal), c = 2", "hr", 2))
    if wanted("hot-key"):
        # Partitions of about advisory size; a partition over twice that is skewed.
        adaptive = "spark.sql.adaptive."
        spark.conf.set(adaptive + "advisoryPartitionSizeInBytes", f"{args.advisory_mib}m")
        threshold = f"{2 * args.advisory_mib}m"
        spark.conf.set(adaptive + "skewJoin.skewedPartitionThresholdInBytes", threshold)
        # The split cuts a partition at map-output boundaries: read in many map tasks.
        spark.conf.set("spark.sql.files.maxPartitionBytes", threshold)
        label = "hot key (10% of r.k equal), c = 2"
        spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "false")
        unsplit = band_join(spark, f"{label}, skew split off", master, "kr", "bs", 2, KEY)
        spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "true")
        split = checked(f"{label}, skew split", "kr", 2, KEY)
        assert unsplit.answer == split.answer, (
            f"{label}: {unsplit.answer} without the skew split, {split.answer} with it"
        )
        unsplit.check = "same as with the skew split"
        runs += [unsplit, split]
    return runs


def method(args) -> str:
    return (
        f"Tables of (id, k, v), {args.rows:,} rows a side: k uniform over 1000 keys, v uniform "
        "over as many integers as rows (`benchmarks/scale_benchmark.py`). Each query is "
        "`SELECT count(*), sum(r.id) ... ON r.v BETWEEN s.v - c AND s.v + c`, run once with the "
        f"plugin in a driver of {args.driver_memory}, and its answer is checked against an "
        "independent plan: the equi-join of `r.v` with `s.v + d` for every offset d, plugin off. "
        "The band join and the hot value (10% of the r side's rows at one value of v) run "
        "through IEJoin; the hot key (`r.k = s.k AND ...`, 10% of the r side's rows at one key) "
        "through SlidingWindowJoin, once with `spark.sql.adaptive.skewJoin.enabled=false` and "
        f"once with the skew split. For the hot key, partitions coalesce to {args.advisory_mib} "
        f"MiB and one over {2 * args.advisory_mib} MiB is skewed; the split cuts at map-output "
        f"boundaries, so map tasks read {2 * args.advisory_mib} MiB each "
        "(`spark.sql.files.maxPartitionBytes`). A `local-cluster[2,1,1024]` master runs two "
        "executor JVMs of 1 GiB each. The last column is the stage with the slowest task: that "
        "task's time against the stage's median; every stage is listed below."
    )


def stages_table(runs: list) -> str:
    rows = [
        (
            run.query,
            run.master,
            stage,
            name,
            tasks,
            f"{median / 1000:.2f} s",
            f"{slowest / 1000:.2f} s",
            f"{slowest / max(median, 1):.1f}x",
        )
        for run in runs
        for stage, name, tasks, median, slowest in run.stages
    ]
    columns = ["query", "master", "stage>", "runs", "tasks>", "median task>", "slowest task>"]
    return markdown_table([*columns, "slowest / median>"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side")
    parser.add_argument("--driver-memory", default="2g")
    parser.add_argument(
        "--master",
        action="append",
        help="Spark master (default local[2]); given more than once, each in turn",
    )
    parser.add_argument(
        "--advisory-mib",
        type=int,
        default=8,
        help="hot-key query: adaptive execution's advisory partition size; twice it is skewed",
    )
    parser.add_argument(
        "--only", choices=("band", "hot-value", "hot-key"), help="run only this query"
    )
    parser.add_argument("--out", default=str(DOCS_DIR), help="where scale.md goes")
    args = parser.parse_args()
    masters = args.master or ["local[2]"]
    started = time.perf_counter()
    runs, header = [], None
    for master in masters:
        spark = spark_session(driver_memory=args.driver_memory, master=master)
        print(f"master {master}, driver memory {args.driver_memory}, {args.rows:,} rows a side")
        if header is None:  # the driver JVM is the same for every master
            header = measured_header(spark)
            header["Spark"] = spark_text() + (
                f", driver memory {args.driver_memory}, master {', then '.join(masters)}"
            )
        runs += run_queries(spark, args, master)
        spark.stop()
    minutes = (time.perf_counter() - started) / 60
    body = [
        method(args),
        "",
        markdown_table(COLUMNS, [run.row() for run in runs]),
        "",
        f"The page's queries took {minutes:.1f} min with their checks.",
        "",
        "## Stages",
        "",
        "Every stage of each query with the plugin: what it ran (the plan nodes, as the Spark "
        "UI groups them), its tasks, and its median and slowest task.",
        "",
        stages_table(runs),
    ]
    out = write_page(Path(args.out) / "scale.md", "Scale", "\n".join(body), header=header)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

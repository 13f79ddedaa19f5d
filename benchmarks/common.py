"""Shared pieces of the demo and benchmarks: data, sessions, timing and DuckDB."""

import os
import re
import statistics
import time
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

import rangejoin

DATA_DIR = Path(__file__).resolve().parent.parent / "target" / "bench-data"
LOG_CONF = Path(__file__).resolve().parent.parent / "conf" / "log4j2.properties"

ANOMALY_QUERY = """
SELECT count(*) AS pairs, sum(r.id) AS r_ids, sum(s.id) AS s_ids
FROM {table} r JOIN {table} s
  ON r.salary < s.salary AND r.tax > s.tax
"""


def spark_session(driver_memory: str = "8g", master: str = "local[2]") -> SparkSession:
    """A session with the plugin, quiet logs and no UI; local[2] unless `master` says otherwise.

    A `local-cluster[...]` master starts executor JVMs from SPARK_HOME, the pyspark install.
    """
    os.environ.setdefault("SPARK_HOME", str(Path(pyspark.__file__).parent))
    java_opts = f"-Dlog4j2.configurationFile={LOG_CONF}"
    builder = (
        SparkSession.builder.master(master)
        .appName("rangejoin-benchmark")
        .config("spark.driver.memory", driver_memory)
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    spark = rangejoin.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def write_once(file_name: str, make) -> str:
    """The parquet path `DATA_DIR / file_name`, written from the DataFrame `make()` returns
    unless a finished write is already there."""
    path = DATA_DIR / file_name
    if not (path / "_SUCCESS").exists():
        make().write.mode("overwrite").parquet(str(path))
    return str(path)


def employees(spark: SparkSession, rows: int) -> str:
    """Writes (once) and returns the parquet path of an employees table of `rows` rows.

    Tax grows with salary (20%), except for about 0.04% of employees whose tax is 50 higher:
    the anomaly self-join finds the few pairs where a lower salary pays more tax.
    """
    return write_once(
        f"employees_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2)
        .selectExpr(
            "id",
            f"CAST(10000 + floor(rand(1) * {10 * rows}) AS INT) AS salary",
        )
        .selectExpr(
            "id",
            "salary",
            "CAST(salary * 0.2 AS INT) + IF(rand(2) < 0.0004, 50, 0) AS tax",
        ),
    )


def points(spark: SparkSession, name: str, rows: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of a table (id, v) with v uniform in [0, 1e6)."""
    return write_once(
        f"{name}_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id", f"rand({seed}) * 1000000 AS v"
        ),
    )


def moments(spark: SparkSession, name: str, rows: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of a table (id, ts) with ts a timestamp uniform
    over one day, to the microsecond."""
    return write_once(
        f"{name}_moments_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id",
            "timestamp_micros(1704067200000000 + "
            f"CAST(rand({seed}) * 86400000000 AS BIGINT)) AS ts",
        ),
    )


def intervals(spark: SparkSession, name: str, rows: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of intervals (id, start, end).

    Starts are uniform over [0, 30 * rows), lengths uniform in [1, 100]: each interval overlaps
    about three of another such table.
    """
    return write_once(
        f"{name}_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2)
        .selectExpr("id", f"CAST(rand({seed}) * {30 * rows} AS BIGINT) AS start")
        .selectExpr("id", "start", f"start + 1 + CAST(rand({seed + 1}) * 100 AS BIGINT) AS end"),
    )


def keyed_events(spark: SparkSession, name: str, rows: int, keys: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of events (id, key, ts).

    `key` is uniform over `keys` values and `ts` an integer tick uniform over [0, rows): each
    key's events are about `keys` ticks apart, so a window of w ticks holds about w / keys events
    of the other side per event.
    """
    return write_once(
        f"{name}_{rows}_{keys}keys.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id",
            f"CAST(floor(rand({seed}) * {keys}) AS INT) AS key",
            f"CAST(floor(rand({seed + 1}) * {rows}) AS BIGINT) AS ts",
        ),
    )


def keyed_intervals(spark: SparkSession, name: str, rows: int, keys: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of intervals (id, chrom, start, end).

    `chrom` is uniform over `keys` values, starts uniform over [0, 10 * rows) and lengths in
    [1, 100]: with 5 keys each interval overlaps about two of another such table.
    """
    return write_once(
        f"{name}_{rows}_{keys}keys.parquet",
        lambda: spark.range(0, rows, numPartitions=2)
        .selectExpr(
            "id",
            f"CAST(floor(rand({seed}) * {keys}) AS INT) AS chrom",
            f"CAST(rand({seed + 1}) * {10 * rows} AS BIGINT) AS start",
        )
        .selectExpr(
            "id", "chrom", "start", f"start + 1 + CAST(rand({seed + 2}) * 100 AS BIGINT) AS end"
        ),
    )


def trades(spark: SparkSession, rows: int, symbols: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of trades (id, symbol, ts).

    `symbol` is uniform over `symbols` values and `ts` a timestamp uniform over one day, to the
    microsecond.
    """
    return write_once(
        f"trades_{rows}_{symbols}symbols.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id",
            f"CAST(floor(rand({seed}) * {symbols}) AS INT) AS symbol",
            f"timestamp_micros(1704067200000000 + CAST(rand({seed + 2}) * 86400000000 AS BIGINT))"
            " AS ts",
        ),
    )


def quotes(spark: SparkSession, rows: int, symbols: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of quotes (qid, qsymbol, qts, bid).

    `qsymbol` is uniform over `symbols` values; `qts` spreads the quotes evenly over the day of
    [[trades]], in order of qid, so no two quotes share a timestamp and every engine's as-of
    answer is the same row.
    """
    step = max(86_400_000_000 // max(rows, 1), 1)
    return write_once(
        f"quotes_{rows}_{symbols}symbols.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id AS qid",
            f"CAST(floor(rand({seed}) * {symbols}) AS INT) AS qsymbol",
            f"timestamp_micros(1704067200000000 + id * {step}) AS qts",
            f"round(rand({seed + 2}) * 100, 2) AS bid",
        ),
    )


def facts(spark: SparkSession, rows: int, keys: int, days: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of facts (id, key, day).

    `key` is uniform over `keys` values and `day` a date uniform over the `days` days from
    2020-01-01. Uses seeds `seed` to `seed + 3`: `rand(s)` draws partition i from seed s + i, so
    the two columns take seeds two apart, to stay independent over the two partitions.
    """
    return write_once(
        f"facts_{rows}_{keys}keys_{days}days.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id",
            f"CAST(floor(rand({seed}) * {keys}) AS INT) AS key",
            f"date_add(DATE'2020-01-01', CAST(rand({seed + 2}) * {days} AS INT)) AS day",
        ),
    )


def versions(spark: SparkSession, rows: int, keys: int, days: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of a type-2 slowly changing dimension of `rows`
    versions (version_id, key, valid_from, valid_to), in order of version_id.

    `key` is uniform over `keys` values (rows / keys versions per key on average) and
    `valid_from` a date uniform over the `days` days from 2020-01-01. In order of valid_from
    (then version_id), each version of a key is valid until the next one's valid_from; the last,
    the key's current version, has valid_to NULL. So a key's versions [valid_from, valid_to) do
    not overlap (two of one key that start on the same day leave the first empty), and a day
    falls in at most one of them: in none if it is before the key's first version. Uses seeds
    `seed` to `seed + 3`, as `facts` does.
    """
    return write_once(
        f"versions_{rows}_{keys}keys_{days}days.parquet",
        lambda: spark.range(0, rows, numPartitions=2)
        .selectExpr(
            "id AS version_id",
            f"CAST(floor(rand({seed}) * {keys}) AS INT) AS key",
            f"date_add(DATE'2020-01-01', CAST(rand({seed + 2}) * {days} AS INT)) AS valid_from",
        )
        .selectExpr(
            "version_id",
            "key",
            "valid_from",
            "lead(valid_from) OVER (PARTITION BY key ORDER BY valid_from, version_id) AS valid_to",
        )
        .repartitionByRange(2, "version_id")
        .sortWithinPartitions("version_id"),
    )


def best_of(repeat: int, run, warmup: int = 5):
    """Runs `run` `warmup` times (JIT and caches), then `repeat` times.

    Returns (the best seconds of the timed runs, last result).
    """
    for _ in range(warmup):
        result = run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def once(run):
    """Runs `run` once; returns (seconds, result)."""
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def wait_until_no_task_runs(spark: SparkSession, timeout_s: float = 900.0) -> float:
    """Waits until no task runs in `spark`'s executors; returns the seconds it waited.

    A cancelled job's tasks run on until they next check whether they were killed: a vanilla
    nested loop join over a large broadcast can keep every core busy for many seconds after its
    cancel, and whatever is timed meanwhile is slowed. Call this after a cancel.
    """
    tracker = spark.sparkContext._jsc.sc().statusTracker()
    start = time.perf_counter()
    while True:
        executors = tracker.getExecutorInfos()
        if all(executors[i].numRunningTasks() == 0 for i in range(len(executors))):
            return time.perf_counter() - start
        if time.perf_counter() - start > timeout_s:
            raise RuntimeError(f"tasks still run {timeout_s:.0f} s after a cancel")
        time.sleep(1)


def spark_query(spark: SparkSession, query: str, accelerated: bool):
    """A function that runs `query` with the plugin on or off and returns its rows as tuples."""

    def run():
        spark.conf.set("spark.rangejoin.enabled", str(accelerated).lower())
        return [tuple(row) for row in spark.sql(query).collect()]

    return run


def plan_text(spark: SparkSession, query: str) -> str:
    return spark.sql(query)._jdf.queryExecution().executedPlan().toString()


def join_line(plan: str) -> str:
    """The first join node of an EXPLAIN text, as it prints: the operator, then its details.
    CountMatches, which counts a join's pairs without forming them, stands for the join.

    BlockJoinOutput, which hands a block join's rows to the generated code above it, is passed
    over for the join below it.
    """
    # A tree line: its indent and branches, then a whole-stage codegen id as in "*(3) ".
    nodes = (re.sub(r"^[\s:+\-*]*(\(\d+\)\s+)?", "", line) for line in plan.splitlines())
    return next(
        (
            n
            for n in nodes
            if ("Join" in n or n.startswith("CountMatches")) and not n.startswith("BlockJoinOutput")
        ),
        "",
    )


def plan_metrics(df, operator: str) -> dict:
    """The SQL metrics of the first `operator` node of `df`'s executed plan, once it ran."""
    pending = [df._jdf.queryExecution().executedPlan()]
    while pending:
        node = pending.pop()
        if node.nodeName() == operator:
            metrics = node.metrics()
            names = metrics.keys().toSeq()
            return {
                names.apply(i): metrics.apply(names.apply(i)).value() for i in range(names.size())
            }
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            pending.append(node.executedPlan())
        elif name.endswith("QueryStageExec"):
            pending.append(node.plan())
        children = node.children()
        pending.extend(children.apply(i) for i in range(children.size()))
    raise ValueError(f"no {operator} in the plan")


def group_stages(spark: SparkSession, job_group: str) -> list:
    """(stage id, attempt id) of every stage that `job_group`'s jobs ran, in order."""
    tracker = spark.sparkContext.statusTracker()
    stages = []
    for job in sorted(tracker.getJobIdsForGroup(job_group)):
        for stage_id in tracker.getJobInfo(job).stageIds:
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                stages.append((stage_id, info.currentAttemptId))
    return stages


def stage_nodes(spark: SparkSession, stage_id: int) -> str:
    """What a stage ran: the plan nodes whose RDDs it computed, as the Spark UI's stage graph
    groups them, and whether it read cached blocks."""
    store = spark.sparkContext._jsc.sc().statusStore()
    graph = store.operationGraphForStage(stage_id).rootCluster()
    clusters = graph.childClusters()
    nodes = [clusters.apply(i).name().strip() for i in range(clusters.size())]
    if graph.getCachedNodes().size():
        nodes.append("caches or reads sorted blocks")
    return ", ".join(nodes)


def stage_task_times(spark: SparkSession, job_group: str) -> list:
    """(stage id, what it ran, task count, median ms, slowest ms) of every stage run by
    `job_group`'s jobs."""
    store = spark.sparkContext._jsc.sc().statusStore()
    stages = []
    for stage_id, attempt in group_stages(spark, job_group):
        tasks = store.taskList(stage_id, attempt, 1_000_000)
        durations = [
            tasks.apply(i).duration().get()
            for i in range(tasks.size())
            if tasks.apply(i).duration().isDefined()
        ]
        if durations:
            median = statistics.median(durations)
            name = stage_nodes(spark, stage_id)
            stages.append((stage_id, name, len(durations), median, max(durations)))
    return stages


def stage_profile(spark: SparkSession, job_group: str) -> list:
    """Per stage that `job_group`'s jobs ran: its id, what it ran (the plan nodes whose RDDs it
    computed, as the Spark UI's stage graph groups them, and whether it read cached blocks), its
    submission and completion (epoch seconds) and wall seconds between them, tasks, and the
    tasks' summed run time in seconds."""
    jvm = spark.sparkContext._jvm
    store = spark.sparkContext._jsc.sc().statusStore()
    no_quantiles = spark.sparkContext._gateway.new_array(jvm.double, 0)
    profile = []
    for stage_id, _ in group_stages(spark, job_group):
        attempts = store.stageData(stage_id, False, jvm.java.util.ArrayList(), False, no_quantiles)
        data = attempts.apply(attempts.size() - 1)
        if data.submissionTime().isEmpty() or data.completionTime().isEmpty():
            continue
        start = data.submissionTime().get().getTime() / 1000
        end = data.completionTime().get().getTime() / 1000
        profile.append(
            {
                "stage": stage_id,
                "name": stage_nodes(spark, stage_id),
                "start": start,
                "end": end,
                "wall_s": end - start,
                "tasks": data.numCompleteTasks(),
                "task_s": data.executorRunTime() / 1000,
            }
        )
    return profile

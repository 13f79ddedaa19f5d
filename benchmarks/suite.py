"""The benchmark suite (`make bench`): every workload on vanilla Spark, Spark with the plugin and
DuckDB, in one process on the same parquet files, with the answers checked against each other.

1. The table: each workload of `workloads.py` at its rows x `--scale`.
2. The scaling curves: the `--curves` workloads from 10^4 to `--max-rows` rows per side.

Vanilla Spark and DuckDB stop at `--cap` seconds (`--curve-cap` in the curves) and are reported
as "> cap"; a curve stops an engine after its first capped size. A run shorter than 30 s is
followed by `--warmups` - 1 more untimed runs and three timed ones, and the best of those is
reported, so a fast query's time is that of a warm JVM.
Where the plugin is more than 3x slower than DuckDB in the table, the suite runs it once more and
records where the time went: each Spark stage's wall time and the operator's metrics, and it
times the workload's `exchange_alone` query where there is one. It writes the results page
(`suite.md` or the set's), its CSV and `scaling.png` to `--out` (docs/benchmarks/).
"""

import argparse
import threading
import time
from dataclasses import replace
from pathlib import Path

import duckdb
from report import ENGINES, Measurement, write_reports
from results_page import DOCS_DIR, markdown_table, measured_header, words
from user_workloads import USER_WORKLOADS
from workloads import WORKLOADS, Workload

from common import (
    join_line,
    plan_metrics,
    spark_session,
    stage_profile,
    wait_until_no_task_runs,
)

# The workload sets: their workloads and their page (file stem, title).
SETS = {
    "suite": (WORKLOADS, ("suite", "The suite")),
    "users": (USER_WORKLOADS, ("workloads", "Workloads at user sizes")),
}
BY_NAME = {w.name: w for workloads, _ in SETS.values() for w in workloads}
REWRITE_NOTE = (
    "The hand-written rewrite is what Spark users write instead, run by the same session with "
    "the plugin off: each range exploded over the bins it touches, the bin width being the 90th "
    "percentile of the range lengths (Databricks' guidance for its RANGE_JOIN hint, shown in "
    "parentheses), an equi-join on the bin, then the condition; for as-of joins, a window that "
    'carries the last quote forward per symbol. "-": no such rewrite is written for the shape.'
)
REPEAT_BELOW_S = 30.0
CURVE_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)


def normalized(rows) -> list:
    """Rows as sorted tuples of comparable values: whole numbers as int, others as str."""

    def value(v):
        if hasattr(v, "as_integer_ratio"):  # int, float, Decimal
            return int(v) if float(v).is_integer() else float(v)
        return str(v)

    return sorted(tuple(value(v) for v in row) for row in rows)


class Heartbeat:
    """Prints `label` and the seconds elapsed every 15 s until stopped: a long run is alive."""

    def __init__(self, label: str):
        self.label, self.stop = label, threading.Event()
        self.start = time.perf_counter()
        threading.Thread(target=self.beat, daemon=True).start()

    def beat(self) -> None:
        while not self.stop.wait(15):
            print(f"    {self.label}: still running, {time.perf_counter() - self.start:.0f} s")


class Engines:
    """Vanilla Spark, Spark with the plugin and DuckDB (2 threads), over the same views."""

    def __init__(self, driver_memory: str):
        self.spark = spark_session(driver_memory=driver_memory)
        self.duck = duckdb.connect()
        self.duck.execute("SET threads = 2")

    def register(self, tables: dict) -> None:
        for view, path in tables.items():
            self.spark.read.parquet(path).createOrReplaceTempView(view)
            self.duck.execute(
                f"CREATE OR REPLACE VIEW {view} AS SELECT * FROM read_parquet('{path}/*.parquet')"
            )

    def frame(self, workload: Workload, rows: int):
        """The workload's query in Spark, as a DataFrame analyzed now."""
        if workload.spark_frame:
            return workload.spark_frame(self.spark)
        return self.spark.sql(workload.query(rows))

    def runner(self, engine: str, workload: Workload, rows: int, bin_width: int = 0):
        """A function running the workload's query on `engine`, and one cancelling it."""
        if engine == "duckdb":
            query = (workload.duckdb_query or workload.query)(rows)
            return (lambda: self.duck.execute(query).fetchall()), self.duck.interrupt
        accelerated = engine == "plugin"

        def run():
            self.spark.conf.set("spark.rangejoin.enabled", str(accelerated).lower())
            if engine == "rewrite":
                return self.spark.sql(workload.rewrite(rows, bin_width)).collect()
            return self.frame(workload, rows).collect()

        return run, self.spark.sparkContext.cancelAllJobs

    def bin_width(self, workload: Workload) -> int:
        """The hand-written rewrite's bin width: the 90th percentile of the range lengths, at
        least 1 (Databricks' guidance for a RANGE_JOIN bin size)."""
        if not workload.range_lengths:
            return 0
        lengths = self.spark.sql(workload.range_lengths).toDF("length")
        p90 = lengths.selectExpr("percentile_approx(length, 0.9)").head()[0]
        return max(int(p90), 1)

    def operator(self, workload: Workload, rows: int) -> str:
        """The plugin's join node for the workload's query, as EXPLAIN prints it."""
        self.spark.conf.set("spark.rangejoin.enabled", "true")
        plan = self.frame(workload, rows)._jdf.queryExecution().executedPlan().toString()
        return join_line(plan)


def timed(label: str, run, cancel, cap: float | None, warmups: int = 1):
    """(seconds, rows) of `run`, or (None, None) past `cap` seconds; a run under 30 s is the
    first of `warmups` warm-up runs before three more, and the best of those is taken (the first
    runs of a query pay for compiling Spark's code and the JIT, plugin or not)."""
    beat = Heartbeat(label)
    timer = threading.Timer(cap, cancel) if cap else None
    try:
        if timer:
            timer.start()
        start = time.perf_counter()
        try:
            rows = run()
        except Exception:
            if timer and not timer.is_alive():  # cancelled at the cap
                return None, None
            raise
        seconds = time.perf_counter() - start
    finally:
        if timer:
            timer.cancel()
        beat.stop.set()
    if seconds < REPEAT_BELOW_S:
        for _ in range(warmups - 1):
            run()
        times = []
        for _ in range(3):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        seconds = min(times)
    return seconds, rows


class Suite:
    def __init__(self, engines: Engines, cap: float, curve_cap: float, warmups: int = 1):
        self.engines, self.cap, self.curve_cap, self.warmups = engines, cap, curve_cap, warmups
        self.done: dict = {}  # (workload, rows) -> Measurement
        self.step = 0

    def measure(self, name: str, rows: int, engines=tuple(ENGINES), cap=None, profile=True):
        """Runs workload `name` at `rows` per side on `engines`, vanilla Spark and DuckDB capped
        at `cap` seconds (default `--cap`); checks the answers agree. With `profile`, profiles
        the plugin where it is more than 3x slower than DuckDB."""
        if (name, rows) in self.done:
            return self.done[(name, rows)]
        workload = BY_NAME[name]
        self.engines.register(workload.tables(self.engines.spark, rows))
        cap = cap or self.cap
        result = Measurement(name, rows, cap, operator=self.engines.operator(workload, rows))
        if workload.rewrite and "rewrite" in engines:
            result.bin_width = self.engines.bin_width(workload)
        answers = {}
        for engine in ("plugin", "vanilla", "duckdb", "rewrite"):
            if engine not in engines or (engine == "rewrite" and not workload.rewrite):
                continue
            self.step += 1
            label = f"[{self.step}] {name} {rows:,} rows: {engine}"
            print(f"{label} ...", flush=True)
            run, cancel = self.engines.runner(engine, workload, rows, result.bin_width or 0)
            seconds, answer = timed(
                label, run, cancel, None if engine == "plugin" else cap, self.warmups
            )
            result.seconds[engine] = seconds
            if seconds is None:
                waited = wait_until_no_task_runs(self.engines.spark)
                print(
                    f"{label}: > {cap:.0f} s (cap); its tasks stopped {waited:.0f} s later",
                    flush=True,
                )
                continue
            answers[engine] = normalized(answer)
            agree = answers[engine] == answers["plugin"]
            print(f"{label}: {seconds:.3f} s, answer {answers[engine][:1]}", flush=True)
            assert agree, f"{name} at {rows}: {engine} answered {answers[engine][:3]}, " + (
                f"the plugin {answers['plugin'][:3]}"
            )
        if profile and result.slower_than_duckdb(3.0):
            node = result.operator.split(" ")[0]
            result.profile = self.profile(f"profile-{name}-{rows}", workload, rows, node)
        self.done[(name, rows)] = result
        return result

    def profile(self, group: str, workload: Workload, rows: int, node: str) -> dict:
        """Runs the plugin once more in job group `group`: stage times and the metrics of its
        join node `node`; then, where the workload has one, times its `exchange_alone` query
        (warm-up, best of 3)."""
        spark = self.engines.spark
        spark.conf.set("spark.rangejoin.enabled", "true")
        spark.sparkContext.setJobGroup(group, group)
        start = time.perf_counter()
        df = self.engines.frame(workload, rows)
        df.collect()
        wall = time.perf_counter() - start
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        metrics = {k: v for k, v in plan_metrics(df, node).items() if v}
        profile = {"wall": wall, "stages": stage_profile(spark, group), "metrics": metrics}
        if workload.exchange_alone:
            label = f"[profile] {workload.name} {rows:,} rows: Spark's exchange alone"
            query = workload.exchange_alone
            # A DataFrame per run: collecting one twice would skip the stages whose shuffle
            # output the first run left.
            run = lambda: spark.sql(query).collect()  # noqa: E731
            profile["exchange_alone"] = timed(label, run, None, None, self.warmups)[0]
            print(f"{label}: {profile['exchange_alone']:.3f} s", flush=True)
        return profile

    def curve(self, name: str, max_rows: int) -> list:
        """The workload from 10^4 to `max_rows` rows, capped at `--curve-cap` seconds; a capped
        engine stops there. Sizes already in the table are not run again."""
        points, live = [], set(ENGINES)
        for rows in (n for n in CURVE_SIZES if n <= max_rows):
            result = self.measure(name, rows, tuple(live), self.curve_cap, profile=False)
            # A size the table ran may have run an engine the curve has stopped.
            seconds = {e: s for e, s in result.seconds.items() if e in live}
            result = replace(result, seconds=seconds, profile=None)
            points.append(result)
            live -= {e for e in live if result.seconds.get(e) is None}
        return points


def intro(args, minutes: float, engines: tuple) -> str:
    """The page's first paragraph: how the suite measured."""
    ran = words([ENGINES[e] for e in ENGINES if e in engines])
    extra = max(args.warmups, 1) - 1
    warmups = f"it and {extra} more untimed runs were warm-ups" if extra else "it was a warm-up"
    return (
        f"Each workload ran on {ran}, in one process on the same parquet files "
        "(`benchmarks/suite.py`; vanilla Spark is the same session with the plugin off, DuckDB "
        f"runs with 2 threads). Vanilla Spark and DuckDB were stopped at {args.cap:g} s "
        f'({args.curve_cap:g} s in the scaling curves) and show as "> cap"; after a stopped '
        "run the suite waits until Spark's cancelled tasks have stopped before it times anything "
        f"else. Where a first run took under 30 s, {warmups}, and the best of three more runs "
        "is shown (a longer run is shown as it ran). Every answer that finished agreed with the "
        f"plugin's. Rows are each workload's rows at scale 1 times {args.scale:g}. The operator "
        "column is the plugin's join node in EXPLAIN: a Spark operator there means the plugin "
        "left the join to Spark. "
        "Where the plugin took more than 3x DuckDB's time, one more run of it is profiled: its "
        "Spark stages and the operator's metrics, and, where the workload defines it, Spark's "
        "exchange of the two inputs with no join (about the least any partitioned plan takes). "
        f"The whole suite took {minutes:.1f} min."
    )


def workloads_table(workloads: list, names: list, curve_names: list, scale: float) -> str:
    """The workloads that ran: their rows in the table ("-": only in the chart) and query."""
    rows = [
        (w.name, f"{max(int(w.rows * scale), 1):,}" if w.name in names else "-", w.title)
        for w in workloads
        if w.name in names or w.name in curve_names
    ]
    return markdown_table(["workload", "rows per side in the table>", "query"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every table's rows")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds before a run stops")
    parser.add_argument("--curve-cap", type=float, default=60.0, help="--cap for the curves")
    parser.add_argument("--curves", default="anomaly,band", help="workloads for the chart")
    parser.add_argument("--max-rows", type=int, default=10_000_000, help="largest curve size")
    parser.add_argument("--only", help="comma-separated workloads for the table (default all)")
    parser.add_argument(
        "--engines",
        default=",".join(ENGINES),
        help="comma-separated engines to run (the plugin always runs: it answers first)",
    )
    parser.add_argument(
        "--warmups", type=int, default=1, help="untimed runs before the best of 3 (at least 1)"
    )
    parser.add_argument(
        "--set", default="suite", choices=sorted(SETS), help="the workloads and their page"
    )
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--out", default=str(DOCS_DIR), help="where the page, CSV and chart go")
    args = parser.parse_args()

    started = time.perf_counter()
    suite = Suite(Engines(args.driver_memory), args.cap, args.curve_cap, max(args.warmups, 1))
    workloads, page = SETS[args.set]
    names = args.only.split(",") if args.only else [w.name for w in workloads]
    engines = tuple({"plugin", *args.engines.split(",")})
    table = [suite.measure(n, max(int(BY_NAME[n].rows * args.scale), 1), engines) for n in names]
    curve_names = [n for n in args.curves.split(",") if n]
    curves = {n: suite.curve(n, args.max_rows) for n in curve_names}
    minutes = (time.perf_counter() - started) / 60
    spark = suite.engines.spark
    duck = duckdb.__version__ if "duckdb" in engines else None
    header = measured_header(spark, duck, "2 threads")
    described = intro(args, minutes, engines)
    if "rewrite" in engines:
        described += " " + REWRITE_NOTE
    paths = write_reports(
        Path(args.out),
        table,
        curves,
        described,
        header,
        workloads_table(workloads, names, curve_names, args.scale),
        page,
    )
    print(f"wrote {', '.join(str(p) for p in paths)} ({minutes:.1f} min)")
    spark.stop()


if __name__ == "__main__":
    main()

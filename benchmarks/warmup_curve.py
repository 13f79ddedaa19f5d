"""How a workload's time with the plugin falls as the JVM warms up, against DuckDB and against
Spark's own floor, and where the CPU goes while it does.

In a new process it runs one workload of `workloads.py` `--runs` times with the plugin and prints
the best of 3 after N runs for several N, each as a ratio to DuckDB's best time (2 threads, best
of 4 after a warm-up). It then times Spark alone scanning each of the workload's tables and
summing every numeric column, best of 5 in the same warm process: no join can take less in
Spark, and at small sizes that floor, not the join, separates Spark from DuckDB.

With `--cpu-runs K` it also prints, for each of the first K runs, the CPU time the JVM's threads
took during it (Linux: from /proc), in three groups: the JIT compiler's threads, Spark's task
threads, and all others (the driver, the scheduler, the garbage collector). On two cores the
first runs share them with the JIT compiling Spark's code. `--sql` times another query on the
workload's tables instead of the workload's own, with the plugin off unless `--plugin`: a vanilla
Spark query shows how much of that warm-up is Spark's own.

    ../.venv/bin/python warmup_curve.py --workload anomaly --scale 0.1 --runs 90
    ../.venv/bin/python warmup_curve.py --workload anomaly --runs 12 --cpu-runs 12
"""

import argparse
import os
import time
from collections import Counter
from pathlib import Path

from pyspark.sql.types import NumericType
from suite import Engines
from workloads import BY_NAME

WARMUPS = (1, 3, 5, 10, 20, 30, 40, 60, 80, 120)


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def thread_group(name: str) -> str:
    """The group of a JVM thread, by the name Linux gives it (15 characters at most)."""
    if "CompilerThre" in name:
        return "JIT"
    if name.startswith("Executor task"):
        return "tasks"
    return "other"


def cpu_ms_by_group(pid: int) -> Counter:
    """CPU milliseconds (user and system) that each thread group of process `pid` has used."""
    tick = os.sysconf("SC_CLK_TCK")
    used = Counter()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        used[thread_group(name)] += (int(fields[11]) + int(fields[12])) * 1000 // tick
    return used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workload", default="anomaly")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the table's rows")
    parser.add_argument("--runs", type=int, default=90, help="runs of the join with the plugin")
    parser.add_argument("--cpu-runs", type=int, default=0, help="runs to print the CPU split of")
    parser.add_argument("--sql", help="a query on the workload's tables to time instead")
    parser.add_argument("--plugin", action="store_true", help="run --sql with the plugin on")
    parser.add_argument("--driver-memory", default="8g")
    args = parser.parse_args()
    workload = BY_NAME[args.workload]
    rows = max(int(workload.rows * args.scale), 1)
    engines = Engines(args.driver_memory)
    tables = workload.tables(engines.spark, rows)
    engines.register(tables)
    spark = engines.spark

    if args.sql:
        spark.conf.set("spark.rangejoin.enabled", str(args.plugin).lower())
        timed = args.sql

        def run():
            spark.sql(args.sql).collect()
    else:
        timed = f"{workload.name} with the plugin"
        run, _ = engines.runner("plugin", workload, rows)
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    times = []
    for i in range(args.runs):
        before = cpu_ms_by_group(pid)
        times.append(seconds(run))
        if i < args.cpu_runs:
            used = cpu_ms_by_group(pid) - before
            split = ", ".join(f"{group} {used[group]} ms" for group in ("JIT", "tasks", "other"))
            print(f"  run {i + 1:>3}: {times[-1]:.3f} s; CPU: {split}")
    if args.sql:
        print(f"{timed}: " + ", ".join(f"{t:.3f}" for t in times))
        spark.stop()
        return

    duck, _ = engines.runner("duckdb", workload, rows)
    duck()  # its warm-up
    duckdb_s = min(seconds(duck) for _ in range(4))
    print(f"{workload.name} at {rows:,} rows per side; DuckDB {duckdb_s:.3f} s")
    for n in (n for n in WARMUPS if n + 3 <= args.runs):
        best = min(times[n : n + 3])
        print(f"  after {n:>3} runs: best of 3 {best:.3f} s, {best / duckdb_s:.1f}x DuckDB")

    for view in tables:
        numeric = [f.name for f in spark.table(view).schema if isinstance(f.dataType, NumericType)]
        sums = "".join(f", sum({c})" for c in numeric)
        query = f"SELECT count(*){sums} FROM {view}"
        best = min(seconds(lambda q=query: spark.sql(q).collect()) for _ in range(5))
        print(f"  Spark alone: {query}: {best:.3f} s, {best / duckdb_s:.1f}x DuckDB")
    spark.stop()


if __name__ == "__main__":
    main()

"""How a workload's time with the plugin falls as the JVM warms up, against DuckDB and against
Spark's own floor.

In a new process it runs one workload of `workloads.py` `--runs` times with the plugin and prints
the best of 3 after N runs for several N, each as a ratio to DuckDB's best time (2 threads, best
of 4 after a warm-up). It then times Spark alone scanning each of the workload's tables and
summing every numeric column, best of 5 in the same warm process: no join can take less in
Spark, and at small sizes that floor, not the join, separates Spark from DuckDB.

    ../.venv/bin/python warmup_curve.py --workload anomaly --scale 0.1 --runs 90
"""

import argparse
import time

from pyspark.sql.types import NumericType
from suite import Engines
from workloads import BY_NAME

WARMUPS = (1, 3, 5, 10, 20, 30, 40, 60, 80, 120)


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workload", default="anomaly")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the table's rows")
    parser.add_argument("--runs", type=int, default=90, help="runs of the join with the plugin")
    parser.add_argument("--driver-memory", default="8g")
    args = parser.parse_args()
    workload = BY_NAME[args.workload]
    rows = max(int(workload.rows * args.scale), 1)
    engines = Engines(args.driver_memory)
    tables = workload.tables(engines.spark, rows)
    engines.register(tables)

    plugin, _ = engines.runner("plugin", workload, rows)
    times = [seconds(plugin) for _ in range(args.runs)]
    duck, _ = engines.runner("duckdb", workload, rows)
    duck()  # its warm-up
    duckdb_s = min(seconds(duck) for _ in range(4))
    print(f"{workload.name} at {rows:,} rows per side; DuckDB {duckdb_s:.3f} s")
    for n in (n for n in WARMUPS if n + 3 <= args.runs):
        best = min(times[n : n + 3])
        print(f"  after {n:>3} runs: best of 3 {best:.3f} s, {best / duckdb_s:.1f}x DuckDB")

    spark = engines.spark
    for view in tables:
        numeric = [f.name for f in spark.table(view).schema if isinstance(f.dataType, NumericType)]
        sums = "".join(f", sum({c})" for c in numeric)
        query = f"SELECT count(*){sums} FROM {view}"
        best = min(seconds(lambda q=query: spark.sql(q).collect()) for _ in range(5))
        print(f"  Spark alone: {query}: {best:.3f} s, {best / duckdb_s:.1f}x DuckDB")
    spark.stop()


if __name__ == "__main__":
    main()

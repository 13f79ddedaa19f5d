"""Acceptance benchmark for IEJoinExec: the employees anomaly self-join.

1. 100K rows: vanilla Spark against spark-rangejoin in the same session, same answer.
2. 1M rows: spark-rangejoin against DuckDB (2 threads) on the same parquet files.

Spark and DuckDB times are medians of 5 runs after 5 warm-up runs (a long-running session's
steady state); vanilla Spark runs once.
"""

import argparse

from common import (
    ANOMALY_QUERY,
    best_of,
    duckdb_query,
    employees,
    normalize,
    once,
    operator_metrics,
    spark_query,
    spark_session,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small", type=int, default=100_000, help="rows for the vanilla race")
    parser.add_argument("--large", type=int, default=1_000_000, help="rows for the DuckDB race")
    args = parser.parse_args()

    spark = spark_session()
    results = []

    path = employees(spark, args.small)
    spark.read.parquet(path).createOrReplaceTempView("employees")
    query = ANOMALY_QUERY.format(table="employees")
    fast_s, fast = best_of(5, spark_query(spark, query, accelerated=True))
    print(f"[{args.small:,} rows] spark-rangejoin: {fast_s:.3f} s", flush=True)
    slow_s, slow = once(spark_query(spark, query, accelerated=False))
    print(f"[{args.small:,} rows] vanilla Spark:   {slow_s:.3f} s", flush=True)
    assert fast == slow, f"answers differ: {fast} vs {slow}"
    results.append((args.small, "vanilla Spark", slow_s, fast_s, fast[0]))

    path = employees(spark, args.large)
    spark.read.parquet(path).createOrReplaceTempView("employees")
    fast_s, fast = best_of(5, spark_query(spark, query, accelerated=True))
    print(f"[{args.large:,} rows] spark-rangejoin: {fast_s:.3f} s", flush=True)
    duck_query = ANOMALY_QUERY.format(table=f"read_parquet('{path}/*.parquet')")
    duck_s, duck = best_of(5, duckdb_query(duck_query, threads=2))
    print(f"[{args.large:,} rows] DuckDB:          {duck_s:.3f} s", flush=True)
    assert normalize(fast) == normalize(duck), f"answers differ: {fast} vs {duck}"
    results.append((args.large, "DuckDB (2 threads)", duck_s, fast_s, fast[0]))
    metrics = operator_metrics(spark, query, "IEJoin")
    print(
        f"[{args.large:,} rows] IEJoin metrics: {metrics['blockPairs']} block pairs joined, "
        f"{metrics['prunedBlockPairs']} pruned, local IEJoin time "
        f"{metrics['localJoinTime'] / 1e6:.0f} ms (summed over tasks)",
        flush=True,
    )

    print()
    print("| rows | reference | reference s | spark-rangejoin s | reference / plugin | answer |")
    print("|---:|---|---:|---:|---:|---|")
    for rows, name, ref_s, plugin_s, answer in results:
        print(
            f"| {rows:,} | {name} | {ref_s:.3f} | {plugin_s:.3f} | {ref_s / plugin_s:.2f}x "
            f"| {answer} |"
        )
    spark.stop()


if __name__ == "__main__":
    main()

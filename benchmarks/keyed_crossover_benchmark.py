"""Where Spark's hash join beats the plugin on equality keys: the window query
`l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50` (inner and left outer) on small key
groups, the plugin forced on (`spark.rangejoin.keyed.minCandidatePairs=0`) against vanilla
Spark, by candidate pairs (left rows x right rows / keys).

The crossover it shows sets the default of `spark.rangejoin.keyed.minCandidatePairs`. Times are
the best of 3 runs after 2 warm-ups. `make bench-defaults` runs it through `defaults.py`, which
writes the table to its page.
"""

import argparse

from results_page import Table

from common import best_of, keyed_events, spark_query, spark_session

WINDOW_QUERY = """
SELECT count(*) AS pairs, sum(l.id) AS l_ids, sum(r.id) AS r_ids
FROM ta l {join} tb r ON l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50
"""
PER_KEY = "1,8,64,512"
COLUMNS = [
    "join",
    "keys>",
    "rows per side>",
    "candidate pairs>",
    "vanilla Spark s>",
    "spark-rangejoin s>",
]


def measure(spark, rows: int, per_key: list) -> Table:
    spark.conf.set("spark.rangejoin.keyed.minCandidatePairs", "0")
    table = Table(COLUMNS)
    for n in per_key:
        keys = max(rows // n, 1)
        for name, seed in (("ta", 41), ("tb", 51)):
            path = keyed_events(spark, name, rows, keys, seed)
            spark.read.parquet(path).createOrReplaceTempView(name)
        for join in ("JOIN", "LEFT JOIN"):
            query = WINDOW_QUERY.format(join=join)
            fast_s, fast = best_of(3, spark_query(spark, query, accelerated=True), warmup=2)
            slow_s, slow = best_of(3, spark_query(spark, query, accelerated=False), warmup=2)
            assert fast == slow, f"answers differ: {fast} vs {slow}"
            pairs = rows * rows / keys
            table.add(
                [join, f"{keys:,}", f"{rows:,}", f"{pairs:.1e}", f"{slow_s:.3f}", f"{fast_s:.3f}"],
                join=join,
                keys=keys,
                pairs=pairs,
                vanilla_s=slow_s,
                plugin_s=fast_s,
            )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=300_000, help="rows per side")
    parser.add_argument("--per-key", default=PER_KEY, help="comma-separated rows per key")
    parser.add_argument("--json", help="also save the table here, for defaults.py")
    args = parser.parse_args()
    spark = spark_session()
    table = measure(spark, args.rows, [int(n) for n in args.per_key.split(",")])
    if args.json:
        table.save(args.json, spark)
    spark.stop()


if __name__ == "__main__":
    main()

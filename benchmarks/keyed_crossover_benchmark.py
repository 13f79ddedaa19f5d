"""Where Spark's hash join beats the plugin on equality keys: the window query
`l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50` (inner and left outer) on small key
groups, the plugin forced on (`spark.rangejoin.keyed.minCandidatePairs=0`) against vanilla
Spark, by candidate pairs (left rows x right rows / keys).

The crossover it shows sets the default of `spark.rangejoin.keyed.minCandidatePairs`. Times are
the best of 3 runs after 2 warm-ups.
"""

import argparse

from common import best_of, keyed_events, spark_query, spark_session

WINDOW_QUERY = """
SELECT count(*) AS pairs, sum(l.id) AS l_ids, sum(r.id) AS r_ids
FROM ta l {join} tb r ON l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=300_000)
    rows = parser.parse_args().rows
    spark = spark_session()
    spark.conf.set("spark.rangejoin.keyed.minCandidatePairs", "0")
    print("| join | keys | rows per side | candidate pairs | vanilla Spark s | spark-rangejoin s |")
    print("|---|---:|---:|---:|---:|---:|")
    for per_key in (1, 8, 64, 512):
        keys = rows // per_key
        for name, seed in (("ta", 41), ("tb", 51)):
            path = keyed_events(spark, name, rows, keys, seed)
            spark.read.parquet(path).createOrReplaceTempView(name)
        for join in ("JOIN", "LEFT JOIN"):
            query = WINDOW_QUERY.format(join=join)
            fast_s, fast = best_of(3, spark_query(spark, query, accelerated=True), warmup=2)
            slow_s, slow = best_of(3, spark_query(spark, query, accelerated=False), warmup=2)
            assert fast == slow, f"answers differ: {fast} vs {slow}"
            pairs = rows * rows / keys
            print(
                f"| {join} | {keys:,} | {rows:,} | {pairs:.1e} | {slow_s:.3f} | {fast_s:.3f} |",
                flush=True,
            )
    spark.stop()


if __name__ == "__main__":
    main()

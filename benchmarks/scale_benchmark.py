"""Scale check (issue 5, first part): a 20M x 20M band join in a 2 GiB driver, local mode.

`SELECT count(*) FROM br r JOIN bs s ON r.v BETWEEN s.v - 1 AND s.v + 1`, with v uniform over as
many integers as rows (about 3.9 matches per row), runs through IEJoinExec. Its count is checked
against an independent plan: the equi-join of r.v with s.v + d for d in (-1, 0, 1), with the
plugin off (Spark's hash or sort-merge join). Both run once, on a cold session.
"""

import argparse
import time

from common import spark_session, write_once

BAND_QUERY = "SELECT count(*) FROM br r JOIN bs s ON r.v BETWEEN s.v - 1 AND s.v + 1"

EQUI_CHECK = """
SELECT count(*) FROM br r
JOIN (SELECT s.v + d AS w FROM bs s CROSS JOIN (VALUES (-1), (0), (1)) AS t(d)) x ON r.v = x.w
"""


def band_points(spark, name: str, rows: int, seed: int) -> str:
    """Writes (once) and returns the parquet path of (id, v), v an integer uniform in [0, rows)."""
    return write_once(
        f"{name}_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=8).selectExpr(
            "id", f"CAST(rand({seed}) * {rows} AS BIGINT) AS v"
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side")
    parser.add_argument("--driver-memory", default="2g")
    args = parser.parse_args()
    spark = spark_session(driver_memory=args.driver_memory)
    for name, seed in (("br", 61), ("bs", 62)):
        spark.read.parquet(band_points(spark, name, args.rows, seed)).createOrReplaceTempView(name)

    start = time.perf_counter()
    band = spark.sql(BAND_QUERY)
    pairs = band.collect()[0][0]
    band_s = time.perf_counter() - start
    plan = band._jdf.queryExecution().executedPlan().toString()
    operator = next(line.strip() for line in plan.splitlines() if "Join" in line)
    print(f"[{args.rows:,} x {args.rows:,}] {operator}", flush=True)
    print(f"[band join] spark-rangejoin: {band_s:.1f} s -> {pairs:,} pairs", flush=True)

    spark.conf.set("spark.rangejoin.enabled", "false")
    start = time.perf_counter()
    expected = spark.sql(EQUI_CHECK).collect()[0][0]
    print(f"[equi-join check] vanilla Spark: {time.perf_counter() - start:.1f} s -> {expected:,}")
    assert pairs == expected, f"band join counted {pairs}, the equi-join check {expected}"
    print(f"driver memory {args.driver_memory}: counts agree")
    spark.stop()


if __name__ == "__main__":
    main()

"""make demo: the employees anomaly self-join at 1M rows, accelerated, and vanilla Spark on a
smaller size so that it finishes. Prints the plan, the times and whether the answers agree."""

import sys

from common import ANOMALY_QUERY, employees, once, plan_text, spark_query, spark_session

BIG = 1_000_000
SMALL = 20_000


def main() -> int:
    spark = spark_session()
    for rows in (BIG, SMALL):
        spark.read.parquet(employees(spark, rows)).createOrReplaceTempView(f"employees_{rows}")

    big = ANOMALY_QUERY.format(table=f"employees_{BIG}")
    print(f"Query ({BIG:,} employees):{big}")
    spark.conf.set("spark.rangejoin.enabled", "true")
    print("Physical plan with spark-rangejoin:")
    print(plan_text(spark, big))

    for label in ("first run, cold JVM", "second run"):
        seconds, rows = once(spark_query(spark, big, accelerated=True))
        print(f"spark-rangejoin, {BIG:,} rows ({label}): {seconds:.2f} s -> {rows[0]}")

    small = ANOMALY_QUERY.format(table=f"employees_{SMALL}")
    fast_s, fast = once(spark_query(spark, small, accelerated=True))
    slow_s, slow = once(spark_query(spark, small, accelerated=False))
    print(f"spark-rangejoin, {SMALL:,} rows: {fast_s:.2f} s -> {fast[0]}")
    print(f"vanilla Spark,   {SMALL:,} rows: {slow_s:.2f} s -> {slow[0]}")
    agree = fast == slow
    print(f"Answers agree: {agree}")
    spark.stop()
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())

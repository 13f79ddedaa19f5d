"""Tables of the workloads users bring (`make bench-workloads`), at the sizes they write about:
IP ranges, genomic intervals by chromosome and integer tolerances. Each is written once to
parquet under target/bench-data and reused."""

from pyspark.sql import SparkSession

from common import write_once

IPV4 = 2**32


def ip_addresses(spark: SparkSession, rows: int, seed: int) -> str:
    """(id, ip): `rows` IPv4 addresses as BIGINT, uniform over the whole address space."""
    return write_once(
        f"ips_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=8).selectExpr(
            "id", f"CAST(floor(rand({seed}) * {IPV4}) AS BIGINT) AS ip"
        ),
    )


def ip_ranges(spark: SparkSession, rows: int, seed: int) -> str:
    """(geo_id, start_ip, end_ip, country): `rows` non-overlapping ranges of the IPv4 space, in
    order. Range i starts at i * step (step = 2^32 / rows) and is 1/4 to all of a step long, so
    about 3/8 of the space is in no range, as in a geolocation table with unassigned blocks."""
    step = IPV4 // rows
    return write_once(
        f"geo_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id AS geo_id",
            f"id * {step} AS start_ip",
            f"id * {step} + CAST(floor({step} * (0.25 + 0.75 * rand({seed}))) AS BIGINT) - 1"
            " AS end_ip",
            f"CAST(floor(rand({seed + 2}) * 250) AS INT) AS country",
        ),
    )


def chromosome_intervals(
    spark: SparkSession, name: str, rows: int, length: tuple[int, int], seed: int
) -> str:
    """(id, chrom, start, end): `rows` intervals on 25 chromosomes of 250 Mb each, starts
    uniform, lengths uniform in `length` (inclusive ends)."""
    low, high = length
    return write_once(
        f"{name}_{rows}_chrom25.parquet",
        lambda: spark.range(0, rows, numPartitions=2)
        .selectExpr(
            "id",
            f"CAST(floor(rand({seed}) * 25) AS INT) AS chrom",
            f"CAST(floor(rand({seed + 2}) * 250000000) AS BIGINT) AS start",
        )
        .selectExpr(
            "id",
            "chrom",
            "start",
            f"start + {low - 1} + CAST(floor(rand({seed + 4}) * {high - low + 1}) AS BIGINT)"
            " AS end",
        ),
    )


def integer_times(spark: SparkSession, name: str, rows: int, span: int, seed: int) -> str:
    """(id, t): `rows` integer times uniform over [0, span)."""
    return write_once(
        f"{name}_times_{rows}_over_{span}.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            "id", f"CAST(floor(rand({seed}) * {span}) AS BIGINT) AS t"
        ),
    )

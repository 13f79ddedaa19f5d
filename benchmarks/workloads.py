"""The workloads of the benchmark suite (`make bench`): their data, their query, their size.

Each query is one SQL text that Spark and DuckDB both run, over views that the suite registers
in both under the same names. Every answer is a few numbers or a small table, so answers compare
exactly across the three engines.
"""

from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import DataFrame, SparkSession

from common import (
    employees,
    facts,
    intervals,
    keyed_events,
    keyed_intervals,
    moments,
    points,
    quotes,
    trades,
    versions,
    write_once,
)


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    rows: int  # rows per side at scale 1
    tables: Callable[[SparkSession, int], dict]  # (session, rows) -> {view: parquet path}
    query: Callable[[int], str]  # rows -> SQL
    # Where Spark has no SQL for the query (as-of joins): the DataFrame Spark runs over the
    # views, built anew for each run; `query` is then DuckDB's.
    spark_frame: Callable[[SparkSession], DataFrame] | None = None
    # The rewrite Spark users write by hand instead (`make bench-workloads`): (rows, bin width)
    # -> Spark SQL, run with the plugin off. The bin width is the 90th percentile of the lengths
    # `range_lengths` (SQL of one column over the views) gives, Databricks' guidance for a
    # RANGE_JOIN bin size, measured once before the timed runs.
    rewrite: Callable[[int, int], str] | None = None
    range_lengths: str | None = None
    # DuckDB's form of the query where it differs: the BETWEEN form of a tolerance written with
    # abs(), which DuckDB's range joins take and its nested loop would otherwise run.
    duckdb_query: Callable[[int], str] | None = None
    # Spark SQL that only moves the join's inputs as a partitioned join must: each input's join
    # columns scanned, hash-partitioned on the equality keys and read back, with no join. Run
    # with the profile (see `suite.py`): about the least any plan that repartitions both
    # inputs takes.
    exchange_alone: str | None = None


def calendar_and_periods(days: int) -> Callable[[SparkSession, int], dict]:
    """Tables of a calendar of `days` days from 2020-01-01, and `rows` periods [start_day,
    end_day) of 1 to 60 days.

    A fifth of the periods start on 2020-01-01, the rest on a day uniform over the calendar.
    """

    def tables(spark: SparkSession, rows: int) -> dict:
        calendar = write_once(
            f"calendar_{days}.parquet",
            lambda: spark.range(0, days, numPartitions=1).selectExpr(
                "date_add(DATE'2020-01-01', CAST(id AS INT)) AS day"
            ),
        )
        start = (
            "CASE WHEN id % 5 = 0 THEN DATE'2020-01-01' "
            f"ELSE date_add(DATE'2020-01-01', CAST(rand(71) * {days} AS INT)) END AS start_day"
        )
        periods = write_once(
            f"periods_{rows}{'' if days == 3653 else f'_over_{days}'}.parquet",
            lambda: spark.range(0, rows, numPartitions=2)
            .selectExpr("id", start)
            .selectExpr(
                "id", "start_day", "date_add(start_day, 1 + CAST(rand(72) * 60 AS INT)) AS end_day"
            ),
        )
        return {"calendar": calendar, "periods": periods}

    return tables


def orders_and_lineitem(spark: SparkSession, rows: int) -> dict:
    """TPC-H-shaped: `rows` line items over rows / 4 orders.

    As in TPC-H, order keys are sparse (4 apart), customer keys range over orders / 10 values
    and part keys over line items / 30, so about 0.5 x 0.375 of all pairs match the query.
    """
    orders = rows // 4
    orders_path = write_once(
        f"orders_{orders}.parquet",
        lambda: spark.range(0, orders, numPartitions=2).selectExpr(
            "id * 4 + 1 AS o_orderkey",
            f"1 + CAST(rand(81) * {max(orders // 10, 1)} AS BIGINT) AS o_custkey",
        ),
    )
    lineitem_path = write_once(
        f"lineitem_{rows}.parquet",
        lambda: spark.range(0, rows, numPartitions=2).selectExpr(
            f"CAST(rand(82) * {orders} AS BIGINT) * 4 + 1 AS l_orderkey",
            f"1 + CAST(rand(83) * {max(rows // 30, 1)} AS BIGINT) AS l_partkey",
        ),
    )
    return {"orders": orders_path, "lineitem": lineitem_path}


def facts_and_versions(spark: SparkSession, rows: int) -> dict:
    """SCD type 2: `rows` facts over ten years (3,653 days) and a dimension of rows / 10
    versions, 5 per key on average (rows / 50 keys).

    `rows` is the facts side, as the larger side is in `tpch` and `point_in_period`: at scale 1,
    10M facts x 1M versions, as `point_in_period_year` runs 10M periods. Unlike `keyed_window`
    and `keyed_overlap` (5 keys, kept at 100K rows for vanilla Spark's sake), the equality key
    leaves only about 5 candidate versions per fact, 5e7 pairs for vanilla Spark's equi-join to
    filter. About a fifth of the facts fall before their key's first version (or have a key with
    no version) and match none.
    """
    dim = max(rows // 10, 1)
    keys = max(dim // 5, 1)
    return {
        "facts": facts(spark, rows, keys, 3653, 91),
        "dim": versions(spark, dim, keys, 3653, 95),
    }


POINT_IN_PERIOD = (
    "SELECT c.day, count(*) AS active FROM calendar c JOIN periods p "
    "ON c.day >= p.start_day AND c.day < p.end_day GROUP BY c.day"
)


def band_width(rows: int) -> float:
    """Half the band for about one match per row: points are uniform over [0, 1e6)."""
    return 0.5 * 1_000_000 / rows


def tolerance_millis(rows: int) -> int:
    """Half the tolerance, in whole milliseconds, for about one match per row: moments are uniform
    over one day."""
    return max(round(0.5 * 86_400_000 / rows), 1)


def latest_quotes(spark: SparkSession) -> DataFrame:
    """The `asof` workload in Spark, which has no SQL for it: `joinAsOf` (the method behind
    pandas-on-Spark's `merge_asof`), then the answer DuckDB's query computes."""
    t, q = spark.table("trades"), spark.table("quotes")
    joined = t._joinAsOf(q, "ts", "qts", on=t.symbol == q.qsymbol, how="left")
    return joined.selectExpr("count(*)", "count(qid)", "sum(qid)")


SCD2_LOOKUP = (
    "SELECT count(*), sum(d.version_id), count(d.valid_to) FROM facts f JOIN dim d "
    "ON f.key = d.key AND f.day >= d.valid_from AND (f.day < d.valid_to OR d.valid_to IS NULL)"
)


WORKLOADS = [
    Workload(
        "anomaly",
        "employees anomaly self-join: r.salary < s.salary AND r.tax > s.tax",
        1_000_000,
        lambda spark, n: {"employees": employees(spark, n)},
        lambda n: "SELECT count(*), sum(r.id), sum(s.id) FROM employees r JOIN employees s "
        "ON r.salary < s.salary AND r.tax > s.tax",
    ),
    Workload(
        "overlap",
        "events interval overlap self-join with r.id <> s.id",
        1_000_000,
        lambda spark, n: {"events": intervals(spark, "ia", n, 21)},
        lambda n: "SELECT count(*), sum(r.id) FROM events r JOIN events s "
        "ON r.start <= s.end AND r.end >= s.start AND r.id <> s.id",
    ),
    Workload(
        "point_in_period",
        "point-in-period: 3,653 days x periods, grouped by day; a fifth of the periods start on "
        "one day",
        1_000_000,
        calendar_and_periods(3653),
        lambda n: POINT_IN_PERIOD,
    ),
    Workload(
        "point_in_period_year",
        "point-in-period, the DuckDB blog's shape: 365 days x periods, grouped by day",
        10_000_000,
        calendar_and_periods(365),
        lambda n: POINT_IN_PERIOD,
    ),
    Workload(
        "band",
        "band join: r.v BETWEEN s.v - w AND s.v + w, about one match per row",
        1_000_000,
        lambda spark, n: {"pa": points(spark, "pa", n, 31), "pb": points(spark, "pb", n, 32)},
        lambda n: f"SELECT count(*), sum(r.id) FROM pa r JOIN pb s "
        f"ON r.v BETWEEN s.v - {band_width(n)} AND s.v + {band_width(n)}",
    ),
    Workload(
        "tolerance_abs",
        "tolerance join written with abs: abs(r.v - s.v) <= w, band's data and w",
        1_000_000,
        lambda spark, n: {"pa": points(spark, "pa", n, 31), "pb": points(spark, "pb", n, 32)},
        lambda n: f"SELECT count(*), sum(r.id) FROM pa r JOIN pb s "
        f"ON abs(r.v - s.v) <= {band_width(n)}",
    ),
    Workload(
        "tolerance_interval",
        "timestamp tolerance against intervals: r.ts - s.ts BETWEEN -w AND w, about one match "
        "per row",
        1_000_000,
        lambda spark, n: {"ma": moments(spark, "ma", n, 33), "mb": moments(spark, "mb", n, 34)},
        lambda n: "SELECT count(*), sum(r.id) FROM ma r JOIN mb s ON r.ts - s.ts BETWEEN "
        f"-INTERVAL {tolerance_millis(n)} MILLISECONDS AND INTERVAL {tolerance_millis(n)} "
        "MILLISECONDS",
    ),
    Workload(
        "keyed_window",
        "equality + time window on 5 keys: l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50",
        100_000,
        lambda spark, n: {
            "ka": keyed_events(spark, "ka", n, 5, 41),
            "kb": keyed_events(spark, "kb", n, 5, 42),
        },
        lambda n: "SELECT count(*), sum(l.id) FROM ka l JOIN kb r "
        "ON l.key = r.key AND l.ts BETWEEN r.ts - 50 AND r.ts + 50",
    ),
    Workload(
        "keyed_overlap",
        "interval overlap on 5 chromosomes: a.chrom = b.chrom AND a.start <= b.end AND ...",
        100_000,
        lambda spark, n: {
            "ca": keyed_intervals(spark, "ca", n, 5, 51),
            "cb": keyed_intervals(spark, "cb", n, 5, 52),
        },
        lambda n: "SELECT count(*), sum(a.id) FROM ca a JOIN cb b "
        "ON a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start",
    ),
    Workload(
        "scd2",
        "SCD type-2 lookup: f.key = d.key AND f.day >= d.valid_from AND (f.day < d.valid_to OR "
        "d.valid_to IS NULL), 10 facts per version",
        10_000_000,
        facts_and_versions,
        lambda n: SCD2_LOOKUP,
    ),
    Workload(
        "asof",
        "as-of join by symbol: each trade's latest quote (backward, left outer), 10 trades per "
        "quote over 100 symbols",
        10_000_000,
        lambda spark, n: {
            "trades": trades(spark, n, 100, 111),
            "quotes": quotes(spark, max(n // 10, 1), 100, 115),
        },
        lambda n: "SELECT count(*), count(q.qid), sum(q.qid) FROM trades t "
        "ASOF LEFT JOIN quotes q ON t.symbol = q.qsymbol AND t.ts >= q.qts",
        latest_quotes,
    ),
    Workload(
        "exists",
        "EXISTS on one inequality: r.v > s.v + 999000",
        1_000_000,
        lambda spark, n: {"pa": points(spark, "pa", n, 31), "pb": points(spark, "pb", n, 32)},
        lambda n: "SELECT count(*) FROM pa r "
        "WHERE EXISTS (SELECT 1 FROM pb s WHERE r.v > s.v + 999000)",
    ),
    Workload(
        "not_exists",
        "NOT EXISTS on one inequality: r.v > s.v + 999000",
        1_000_000,
        lambda spark, n: {"pa": points(spark, "pa", n, 31), "pb": points(spark, "pb", n, 32)},
        lambda n: "SELECT count(*) FROM pa r "
        "WHERE NOT EXISTS (SELECT 1 FROM pb s WHERE r.v > s.v + 999000)",
    ),
    Workload(
        "left_outer",
        "left outer interval overlap join",
        1_000_000,
        lambda spark, n: {"ia": intervals(spark, "ia", n, 21), "ib": intervals(spark, "ib", n, 23)},
        lambda n: "SELECT count(*), count(s.id), sum(s.id) FROM ia r LEFT JOIN ib s "
        "ON r.start <= s.end AND r.end >= s.start",
    ),
    Workload(
        "tpch",
        "TPC-H-shaped lineitem x orders: l_orderkey > o_orderkey AND l_partkey < o_custkey",
        60_000,
        orders_and_lineitem,
        lambda n: "SELECT count(*) FROM lineitem JOIN orders "
        "ON l_orderkey > o_orderkey AND l_partkey < o_custkey",
    ),
]

BY_NAME = {w.name: w for w in WORKLOADS}

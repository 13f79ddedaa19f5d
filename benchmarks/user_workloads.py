"""The workloads users bring, at the sizes they write about (`make bench-workloads`): IP to
geolocation, type-2 dimension lookups, as-of joins, genomic overlap by chromosome, a date spine,
a tolerance band and the count of a wide band join.

Each runs on the plugin, vanilla Spark, DuckDB and, where users write one, the rewrite Spark
users write by hand instead: cut the ranges into bins of the width Databricks' guidance gives for
its RANGE_JOIN hint (about the 90th percentile of the range lengths), explode each range over
its bins, equi-join on the bin, and filter on the condition. For as-of joins the hand-written
rewrite is a window: the union of both inputs, ordered by time per key, with the last quote
carried forward.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from user_data import chromosome_intervals, integer_times, ip_addresses, ip_ranges
from workloads import POINT_IN_PERIOD, SCD2_LOOKUP, Workload, calendar_and_periods

from common import facts, points, quotes, trades, versions

# --- IP to geolocation: 40M addresses x 3.5M ranges.

IP_IN_RANGE = "i.ip BETWEEN g.start_ip AND g.end_ip"


def ip_tables(spark: SparkSession, rows: int) -> dict:
    return {"ips": ip_addresses(spark, rows, 201), "geo": ip_ranges(spark, rows * 7 // 80, 203)}


def binned(table: str, columns: str, start: str, end: str, width: int) -> str:
    """`table`'s rows, each once per bin of `width` its range [start, end] touches, as `bin`."""
    return (
        f"SELECT {columns}, explode(sequence(({start}) DIV {width}, ({end}) DIV {width})) AS bin "
        f"FROM {table}"
    )


def ip_rewrite(select: str, join: str):
    def rewrite(rows: int, width: int) -> str:
        geo = binned("geo", "geo_id, start_ip, end_ip", "start_ip", "end_ip", width)
        return (
            f"WITH g AS ({geo}) SELECT {select} FROM ips i {join} g "
            f"ON i.ip DIV {width} = g.bin AND {IP_IN_RANGE}"
        )

    return rewrite


# --- Type-2 dimension: 10M facts x 1M versions over 100K keys, open ends NULL.

DAY0 = "DATE'2020-01-01'"


def day_number(column: str) -> str:
    return f"datediff({column}, {DAY0})"


def scd2_tables(spark: SparkSession, rows: int) -> dict:
    return {
        "facts": facts(spark, rows, 100_000, 3653, 91),
        "dim": versions(spark, rows // 10, 100_000, 3653, 95),
    }


def scd2_rewrite(rows: int, width: int) -> str:
    end = day_number("coalesce(valid_to, DATE'2031-01-01')")
    dim = binned(
        "dim", "version_id, key, valid_from, valid_to", day_number("valid_from"), end, width
    )
    return (
        f"WITH d AS ({dim}) SELECT count(*), sum(d.version_id), count(d.valid_to) FROM facts f "
        f"JOIN d ON f.key = d.key AND {day_number('f.day')} DIV {width} = d.bin "
        "AND f.day >= d.valid_from AND (f.day < d.valid_to OR d.valid_to IS NULL)"
    )


# --- As-of: 10M trades x 10M quotes over 1,000 symbols, backward, and within 5 seconds.

TOLERANCE = "INTERVAL 5 SECONDS"


def asof_tables(spark: SparkSession, rows: int) -> dict:
    return {"trades": trades(spark, rows, 1000, 111), "quotes": quotes(spark, rows, 1000, 115)}


def asof_frame(tolerance: str | None):
    """Spark's as-of join (`joinAsOf`, the method behind pandas-on-Spark's `merge_asof`), then
    the answer the DuckDB query computes."""

    def frame(spark: SparkSession) -> DataFrame:
        t, q = spark.table("trades"), spark.table("quotes")
        within = {"tolerance": F.expr(tolerance)} if tolerance else {}
        joined = t._joinAsOf(q, "ts", "qts", on=t.symbol == q.qsymbol, how="left", **within)
        return joined.selectExpr("count(*)", "count(qid)", "sum(qid)")

    return frame


def asof_duckdb(tolerance: str | None) -> str:
    kept = f"CASE WHEN t.ts - q.qts <= {tolerance} THEN q.qid END" if tolerance else "q.qid"
    return (
        f"SELECT count(*), count({kept}), sum({kept}) FROM trades t "
        "ASOF LEFT JOIN quotes q ON t.symbol = q.qsymbol AND t.ts >= q.qts"
    )


# What a partitioned as-of join moves: the trades' and the quotes' columns the query reads, each
# input hash-partitioned on its symbol, read back and counted.
ASOF_EXCHANGE_ALONE = (
    "SELECT count(*), sum(hash(k, t, q)) FROM "
    "((SELECT symbol AS k, ts AS t, CAST(NULL AS BIGINT) AS q FROM trades DISTRIBUTE BY symbol) "
    "UNION ALL (SELECT qsymbol, qts, qid FROM quotes DISTRIBUTE BY qsymbol))"
)


def asof_rewrite(tolerance: str | None):
    """Both inputs in one ordered stream per symbol, each trade taking the last quote before it
    (a quote at the trade's time sorts first: backward matches include equal times)."""

    def rewrite(rows: int, width: int) -> str:
        kept = f"CASE WHEN ts - qts <= {tolerance} THEN qid END" if tolerance else "qid"
        window = "PARTITION BY symbol ORDER BY ts, is_trade ROWS UNBOUNDED PRECEDING"
        stream = (
            "SELECT symbol, ts, 1 AS is_trade, CAST(NULL AS BIGINT) AS qid, "
            "CAST(NULL AS TIMESTAMP) AS qts FROM trades UNION ALL "
            "SELECT qsymbol, qts, 0, qid, qts FROM quotes"
        )
        carried = (
            f"SELECT is_trade, ts, last(qid, true) OVER ({window}) AS qid, "
            f"last(qts, true) OVER ({window}) AS qts FROM ({stream})"
        )
        return f"SELECT count(*), count({kept}), sum({kept}) FROM ({carried}) WHERE is_trade = 1"

    return rewrite


# --- Genomic overlap: 10M reads (100-150 bp) x 1M genes (1-20 kb) on 25 chromosomes.

OVERLAP = "r.chrom = g.chrom AND r.start <= g.end AND r.end >= g.start"


def genome_tables(spark: SparkSession, rows: int) -> dict:
    return {
        "reads": chromosome_intervals(spark, "reads", rows, (100, 150), 301),
        "genes": chromosome_intervals(spark, "genes", rows // 10, (1000, 20000), 311),
    }


def genome_rewrite(rows: int, width: int) -> str:
    """Both sides binned; a pair is kept in the bin where its overlap starts, so once."""
    genes = binned("genes", "id, chrom, start, end", "start", "end", width)
    reads = binned("reads", "id, chrom, start, end", "start", "end", width)
    return (
        f"WITH g AS ({genes}), r AS ({reads}) SELECT count(*), sum(g.id) FROM r JOIN g "
        f"ON r.chrom = g.chrom AND r.bin = g.bin AND r.start <= g.end AND r.end >= g.start "
        f"AND r.bin = greatest(r.start, g.start) DIV {width}"
    )


# --- Date spine: 35M periods x 365 days, grouped by day.


def spine_rewrite(rows: int, width: int) -> str:
    periods = binned(
        "periods", "start_day, end_day", day_number("start_day"), day_number("end_day"), width
    )
    return (
        f"WITH p AS ({periods}) SELECT c.day, count(*) AS active FROM calendar c JOIN p "
        f"ON {day_number('c.day')} DIV {width} = p.bin AND c.day >= p.start_day "
        "AND c.day < p.end_day GROUP BY c.day"
    )


# --- Tolerance band: 10M x 10M integer times, |a.t - b.t| <= 5, about one match per row.

BAND = 5


def tolerance_tables(spark: SparkSession, rows: int) -> dict:
    span = rows * (2 * BAND + 1)
    return {
        "ta": integer_times(spark, "ta", rows, span, 401),
        "tb": integer_times(spark, "tb", rows, span, 403),
    }


def tolerance_rewrite(rows: int, width: int) -> str:
    b = binned("tb", "id, t", f"t - {BAND}", f"t + {BAND}", width)
    return (
        f"WITH b AS ({b}) SELECT count(*), sum(a.id) FROM ta a JOIN b "
        f"ON a.t DIV {width} = b.bin AND abs(a.t - b.t) <= {BAND}"
    )


# --- A count of 2.5e9 pairs: 100K x 100K points, a band of +-134,000 over [0, 1e6).

WIDE = 134_000


def wide_rewrite(rows: int, width: int) -> str:
    def bin_of(v: str) -> str:
        return f"CAST(floor(({v}) / {width}) AS BIGINT)"

    pb = (
        f"SELECT v, explode(sequence({bin_of(f'v - {WIDE}')}, {bin_of(f'v + {WIDE}')})) AS bin "
        "FROM pb"
    )
    return (
        f"WITH s AS ({pb}) SELECT count(*) FROM pa r JOIN s ON {bin_of('r.v')} = s.bin "
        f"AND r.v BETWEEN s.v - {WIDE} AND s.v + {WIDE}"
    )


USER_WORKLOADS = [
    Workload(
        "ip_geo",
        "IP to geolocation: 40M addresses x 3.5M non-overlapping ranges, "
        "ip BETWEEN start_ip AND end_ip",
        40_000_000,
        ip_tables,
        lambda n: f"SELECT count(*), sum(g.geo_id) FROM ips i JOIN geo g ON {IP_IN_RANGE}",
        rewrite=ip_rewrite("count(*), sum(g.geo_id)", "JOIN"),
        range_lengths="SELECT end_ip - start_ip + 1 FROM geo",
    ),
    Workload(
        "ip_geo_left",
        "IP to geolocation as a LEFT JOIN: addresses in no range kept",
        40_000_000,
        ip_tables,
        lambda n: "SELECT count(*), count(g.geo_id), sum(g.geo_id) FROM ips i LEFT JOIN geo g "
        f"ON {IP_IN_RANGE}",
        rewrite=ip_rewrite("count(*), count(g.geo_id), sum(g.geo_id)", "LEFT JOIN"),
        range_lengths="SELECT end_ip - start_ip + 1 FROM geo",
    ),
    Workload(
        "scd2_lookup",
        "SCD type 2: 10M facts x 1M versions over 100K keys, f.key = d.key AND f.day >= "
        "d.valid_from AND (f.day < d.valid_to OR d.valid_to IS NULL)",
        10_000_000,
        scd2_tables,
        lambda n: SCD2_LOOKUP,
        rewrite=scd2_rewrite,
        range_lengths="SELECT datediff(valid_to, valid_from) FROM dim WHERE valid_to IS NOT NULL",
    ),
    Workload(
        "asof_backward",
        "as-of: 10M trades x 10M quotes over 1,000 symbols, each trade's latest quote",
        10_000_000,
        asof_tables,
        lambda n: asof_duckdb(None),
        asof_frame(None),
        rewrite=asof_rewrite(None),
        exchange_alone=ASOF_EXCHANGE_ALONE,
    ),
    Workload(
        "asof_tolerance",
        "as-of within 5 seconds: the latest quote, if at most 5 s before the trade",
        10_000_000,
        asof_tables,
        lambda n: asof_duckdb(TOLERANCE),
        asof_frame(TOLERANCE),
        rewrite=asof_rewrite(TOLERANCE),
        exchange_alone=ASOF_EXCHANGE_ALONE,
    ),
    Workload(
        "genomic_overlap",
        "genomic overlap: 10M reads x 1M genes on 25 chromosomes, "
        "r.chrom = g.chrom AND r.start <= g.end AND r.end >= g.start",
        10_000_000,
        genome_tables,
        lambda n: f"SELECT count(*), sum(g.id) FROM reads r JOIN genes g ON {OVERLAP}",
        rewrite=genome_rewrite,
        range_lengths="SELECT end - start + 1 FROM genes",
    ),
    Workload(
        "genomic_left",
        "genomic overlap as a LEFT JOIN: reads in no gene kept",
        10_000_000,
        genome_tables,
        lambda n: f"SELECT count(*), count(g.id) FROM reads r LEFT JOIN genes g ON {OVERLAP}",
    ),
    Workload(
        "date_spine",
        "date spine, the DuckDB article's size: 35M periods x 365 days, active periods per day",
        35_000_000,
        calendar_and_periods(365),
        lambda n: POINT_IN_PERIOD,
        rewrite=spine_rewrite,
        range_lengths="SELECT datediff(end_day, start_day) FROM periods",
    ),
    Workload(
        "tolerance_band",
        f"tolerance band: 10M x 10M integer times, abs(a.t - b.t) <= {BAND}",
        10_000_000,
        tolerance_tables,
        lambda n: f"SELECT count(*), sum(a.id) FROM ta a JOIN tb b ON abs(a.t - b.t) <= {BAND}",
        rewrite=tolerance_rewrite,
        duckdb_query=lambda n: "SELECT count(*), sum(a.id) FROM ta a JOIN tb b "
        f"ON a.t BETWEEN b.t - {BAND} AND b.t + {BAND}",
        range_lengths=f"SELECT {2 * BAND + 1}",
    ),
    Workload(
        "count_pairs",
        f"count(*) of a band join with 2.5e9 pairs: 100K x 100K, r.v BETWEEN s.v - {WIDE:,} "
        f"AND s.v + {WIDE:,}",
        100_000,
        lambda spark, n: {"pa": points(spark, "pa", n, 31), "pb": points(spark, "pb", n, 32)},
        lambda n: f"SELECT count(*) FROM pa r JOIN pb s ON r.v BETWEEN s.v - {WIDE} "
        f"AND s.v + {WIDE}",
        rewrite=wide_rewrite,
        range_lengths=f"SELECT {2 * WIDE}",
    ),
]

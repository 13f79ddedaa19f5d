"""One accelerated query through PySpark, against the same query with the plugin off."""

from pyspark.sql import functions as F


def _plan(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


def _pairs(spark):
    left = spark.range(0, 400).select(
        "id", (F.col("id") % 17).alias("a"), (F.col("id") % 5).alias("b")
    )
    right = spark.range(0, 100).select(
        "id", (F.col("id") % 13).alias("a"), (F.col("id") % 7).alias("b")
    )
    condition = (F.col("l.a") < F.col("r.a")) & (F.col("l.b") >= F.col("r.b"))
    return left.alias("l").join(right.alias("r"), condition).select("l.id", "r.id")


def test_dataframe_join_on_two_inequalities_broadcasts_the_small_side(spark):
    # A DataFrame keeps its physical plan, so each run builds the query anew.
    accelerated = _pairs(spark)
    accelerated_rows = sorted(map(tuple, accelerated.collect()))
    assert "BroadcastRangeJoin" in _plan(accelerated)

    spark.conf.set("spark.rangejoin.enabled", "false")
    try:
        vanilla = _pairs(spark)
        vanilla_rows = sorted(map(tuple, vanilla.collect()))
        assert "RangeJoin" not in _plan(vanilla)
    finally:
        spark.conf.unset("spark.rangejoin.enabled")
    assert accelerated_rows == vanilla_rows and len(vanilla_rows) > 0


def test_sql_explain_names_the_operator(spark):
    spark.range(0, 50).selectExpr("id", "id % 7 AS v", "id % 3 AS w").createOrReplaceTempView("t")
    rows = spark.sql(
        "EXPLAIN SELECT * FROM t x JOIN t y ON x.v BETWEEN y.v - 1 AND y.w + 2"
    ).collect()
    assert "BroadcastRangeJoin Inner" in rows[0][0]


def _quotes_and_trades(spark):
    trades = spark.range(0, 300).selectExpr(
        "id", "id % 4 AS symbol", "timestamp_seconds(1700000000 + id * 7) AS ts"
    )
    quotes = spark.range(0, 200).selectExpr(
        "id AS qid", "(id * 3) % 4 AS qsymbol", "timestamp_seconds(1700000000 + id * 10) AS qts"
    )
    return trades, quotes


def test_as_of_join_and_merge_asof_run_as_asofjoin(spark):
    import pyspark.pandas as ps

    def as_of():
        trades, quotes = _quotes_and_trades(spark)
        return trades._joinAsOf(
            quotes,
            "ts",
            "qts",
            on=trades.symbol == quotes.qsymbol,
            how="left",
            tolerance=F.expr("INTERVAL 30 SECONDS"),
        )

    def merged():
        trades, quotes = _quotes_and_trades(spark)
        return ps.merge_asof(
            trades.pandas_api(),
            quotes.pandas_api(),
            left_on="ts",
            right_on="qts",
            left_by="symbol",
            right_by="qsymbol",
        ).to_spark()

    for build in (as_of, merged):
        accelerated = build()
        assert "AsOfJoin" in _plan(accelerated)
        accelerated_rows = sorted(map(tuple, accelerated.collect()))
        spark.conf.set("spark.rangejoin.enabled", "false")
        try:
            vanilla = build()
            assert "AsOfJoin" not in _plan(vanilla)
            vanilla_rows = sorted(map(tuple, vanilla.collect()))
        finally:
            spark.conf.unset("spark.rangejoin.enabled")
        assert accelerated_rows == vanilla_rows
        assert sum(1 for row in vanilla_rows if row[-1] is not None) > 100

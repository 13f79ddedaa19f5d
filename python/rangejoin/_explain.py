"""Why a join was or was not accelerated, asked from Python."""

from pyspark.sql import DataFrame


def explain_joins(df: DataFrame) -> list[str]:
    """For each join of `df` whose condition compares by <, <=, > or >=: the operator
    spark-rangejoin plans for it, or why it leaves the join to Spark, in words.

    Classic sessions only: a Spark Connect client has no JVM to ask. There, set
    spark.rangejoin.explainDeclines.enabled=true and read the same reasons in the server's log.
    """
    jvm = getattr(df.sparkSession, "_jvm", None)
    if jvm is None:
        raise NotImplementedError(
            "explain_joins() needs a classic session; on Spark Connect set "
            "spark.rangejoin.explainDeclines.enabled=true and read the server's log"
        )
    return list(jvm.rangejoin.planning.Declines.explain(df._jdf.queryExecution()))

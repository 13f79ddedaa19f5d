"""Why a join was or was not accelerated, asked from Python."""

from py4j.java_gateway import JavaClass
from pyspark.sql import DataFrame

from rangejoin._jar import JarNotFoundError
from rangejoin._session import missing_jar_message


def explain_joins(df: DataFrame) -> list[str]:
    """For each join of `df` whose condition compares by <, <=, > or >=: the operator
    spark-rangejoin plans for it, or why it leaves the join to Spark, in words.

    Classic sessions only: a Spark Connect client has no JVM to ask. There, set
    spark.rangejoin.explainDeclines.enabled=true and read the same reasons in the server's log.
    Raises JarNotFoundError, saying how to add it, when the session's JVM has no rangejoin jar.
    """
    jvm = getattr(df.sparkSession, "_jvm", None)
    if jvm is None:
        raise NotImplementedError(
            "explain_joins() needs a classic session; on Spark Connect set "
            "spark.rangejoin.explainDeclines.enabled=true and read the server's log"
        )
    declines = jvm.rangejoin.planning.Declines
    if not isinstance(declines, JavaClass):  # py4j's answer for a class it cannot load
        raise JarNotFoundError(missing_jar_message(df.sparkSession))
    return list(declines.explain(df._jdf.queryExecution()))

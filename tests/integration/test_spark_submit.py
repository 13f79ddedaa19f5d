"""The plain Spark route: spark-submit with --jars (or --packages) and --conf; the job script
imports nothing of rangejoin."""

from submit import spark_submit

import rangejoin

SCRIPT = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
spark.range(0, 300).selectExpr("id", "id % 11 AS a", "id % 7 AS b").createOrReplaceTempView("t")
spark.range(0, 100).selectExpr("id", "id % 5 AS a", "id % 3 AS b").createOrReplaceTempView("u")
query = "SELECT count(*) FROM t JOIN u ON t.a < u.a AND t.b > u.b"
print("PLAN:", spark.sql("EXPLAIN " + query).collect()[0][0].replace("\\n", " | "))
print("ON:", spark.sql(query).collect()[0][0])
spark.conf.set("spark.rangejoin.enabled", "false")
print("OFF:", spark.sql(query).collect()[0][0])
"""


def _check_accelerated(tmp_path, packages: str | None = None) -> None:
    """Runs SCRIPT with the plugin as --jars, or as `packages`: the plan is the broadcast range
    join, and the answer is the same with the plugin switched off."""
    stdout = spark_submit(
        SCRIPT,
        tmp_path,
        "local[2]",
        "spark.rangejoin.minCandidatePairs=0",
        "spark.rangejoin.minSmallSideRows=0",
        packages=packages,
    )
    lines = dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)
    assert "BroadcastRangeJoin Inner" in lines["PLAN"]
    assert lines["ON"] == lines["OFF"] and int(lines["ON"]) > 0


def test_spark_submit_with_jars_and_extension_conf(tmp_path):
    _check_accelerated(tmp_path)


def test_spark_submit_with_packages_from_the_local_maven_repository(tmp_path):
    """`make publish-local` (which `make test` runs first) published the jar and its pom."""
    minor = ".".join(rangejoin.spark_version().split(".")[:2])
    _check_accelerated(
        tmp_path,
        packages=f"io.github.rangejoin:rangejoin-spark{minor}_2.13:{rangejoin.__version__}",
    )

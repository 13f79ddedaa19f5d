"""The plain Spark route: spark-submit with --jars and --conf, no rangejoin import."""

from submit import spark_submit

SCRIPT = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
spark.range(0, 300).selectExpr("id", "id % 11 AS a", "id % 7 AS b").createOrReplaceTempView("t")
query = "SELECT count(*) FROM t x JOIN t y ON x.a < y.a AND x.b > y.b"
print("PLAN:", spark.sql("EXPLAIN " + query).collect()[0][0].replace("\\n", " | "))
print("ON:", spark.sql(query).collect()[0][0])
spark.conf.set("spark.rangejoin.enabled", "false")
print("OFF:", spark.sql(query).collect()[0][0])
"""


def test_spark_submit_with_jars_and_extension_conf(tmp_path):
    stdout = spark_submit(
        SCRIPT,
        tmp_path,
        "local[2]",
        "spark.rangejoin.minCandidatePairs=0",
        "spark.rangejoin.minSmallSideRows=0",
    )
    lines = dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)
    assert "BroadcastRangeJoin Inner" in lines["PLAN"]
    assert lines["ON"] == lines["OFF"] and int(lines["ON"]) > 0

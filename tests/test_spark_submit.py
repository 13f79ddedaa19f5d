"""The plain Spark route: spark-submit with --jars and --conf, no rangejoin import."""

import os
import subprocess
import sys
from pathlib import Path

import pyspark

import rangejoin

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
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    result = subprocess.run(
        [
            str(spark_submit),
            "--master",
            "local[2]",
            "--jars",
            rangejoin.jar_path(),
            "--conf",
            "spark.sql.extensions=rangejoin.RangeJoinExtensions",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.rangejoin.minCandidatePairs=0",
            str(script),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert "IEJoin Inner" in lines["PLAN"]
    assert lines["ON"] == lines["OFF"] and int(lines["ON"]) > 0

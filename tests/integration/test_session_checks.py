"""The checks that keep the plugin from being silently absent or misconfigured: is_active, a
mistyped or invalid setting, a session that already runs without the plugin, and the reasons a
join was left to Spark."""

import os
import subprocess
import sys

import pytest
from pyspark.sql import functions as F

import rangejoin


def test_is_active_follows_the_master_switch(spark):
    assert rangejoin.is_installed(spark) and rangejoin.is_active(spark)
    version = spark.sql("SELECT rangejoin_version()").collect()[0][0]
    assert version == f"{rangejoin.__version__} (Spark {rangejoin.spark_version()})"
    spark.conf.set("spark.rangejoin.enabled", "false")
    try:
        assert rangejoin.is_installed(spark) and not rangejoin.is_active(spark)
    finally:
        spark.conf.unset("spark.rangejoin.enabled")


def test_a_mistyped_key_set_at_runtime_fails_the_next_join_naming_the_key(spark):
    a = spark.range(100).withColumnRenamed("id", "x")
    b = spark.range(100).withColumnRenamed("id", "y")
    settings = {
        "spark.rangejoin.enable": "Did you mean spark.rangejoin.enabled",
        "spark.rangejoin.keyed.minCandidatePairs": "for configuration spark.rangejoin.keyed",
    }
    for key, message in settings.items():
        spark.conf.set(key, "")
        try:
            with pytest.raises(Exception, match=message):
                a.join(b, F.expr("x < y")).count()
        finally:
            spark.conf.unset(key)
    assert a.join(b, F.expr("x < y")).count() == 4950


def test_explain_joins_says_what_the_plugin_does_with_each_join(spark):
    a = spark.range(1000).selectExpr("id AS x", "id % 7 AS k")
    b = spark.range(300).selectExpr("id AS y", "id % 7 AS j")
    reasons = rangejoin.explain_joins(a.join(b, F.expr("x < y AND k > j")))
    assert len(reasons) == 1 and reasons[0].endswith(" as BroadcastRangeJoin"), reasons
    declined = rangejoin.explain_joins(a.join(b, F.expr("x * y < 10")))
    assert len(declined) == 1, declined
    assert "to Spark: no part of the condition compares" in declined[0]
    # The conjunct, and what keeps it from being an inequality of the two inputs.
    assert "`((x * y) < 10L)` has `(x * y)` reading both inputs" in declined[0], declined
    assert rangejoin.explain_joins(a.join(b, F.expr("x = y"))) == []


def _run(script: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_mistyped_key_fails_at_session_start_naming_the_key():
    result = _run(
        "import rangejoin\n"
        "from pyspark.sql import SparkSession\n"
        "builder = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        "spark = rangejoin.configure(builder.config('spark.rangejoin.enable', 'false'))"
        ".getOrCreate()\n"
        "print('STARTED')\n"
    )
    assert "STARTED" not in result.stdout
    message = "Unknown configuration spark.rangejoin.enable: spark-rangejoin has no such key. "
    assert message + "Did you mean spark.rangejoin.enabled?" in result.stderr, result.stderr[-3000:]


def test_configure_refuses_a_process_where_spark_started_without_the_plugin():
    result = _run(
        "import rangejoin\n"
        "from pyspark.sql import SparkSession\n"
        "plain = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')"
        ".getOrCreate()\n"
        "print('INSTALLED:', rangejoin.is_installed(plain))\n"
        "for stopped in (False, True):\n"
        "    try:\n"
        "        rangejoin.configure(SparkSession.builder)\n"
        "    except rangejoin.SessionAlreadyRunningError as error:\n"
        "        print('REFUSED:', error)\n"
        "    plain.stop()\n"
    )
    assert "INSTALLED: False" in result.stdout, result.stderr[-3000:]
    refusals = [line for line in result.stdout.splitlines() if line.startswith("REFUSED:")]
    # Running, and stopped: the driver's JVM has no jar either way.
    assert len(refusals) == 2, result.stdout + result.stderr[-3000:]
    assert "Restart the Python process" in refusals[0]
    assert f"--jars {rangejoin.jar_path()}" in refusals[0]


def test_configure_again_after_stopping_a_session_with_the_plugin():
    result = _run(
        "import rangejoin\n"
        "from pyspark.sql import SparkSession\n"
        "builder = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        "first = rangejoin.configure(builder).getOrCreate()\n"
        "first.stop()\n"
        "second = rangejoin.configure(SparkSession.builder.master('local[1]')).getOrCreate()\n"
        "print('ACTIVE:', rangejoin.is_active(second))\n"
    )
    assert "ACTIVE: True" in result.stdout, result.stderr[-3000:]


def test_a_session_with_the_extension_but_without_the_jar_says_the_jar_is_missing():
    result = _run(
        "import warnings\n"
        "import rangejoin\n"
        "from pyspark.sql import SparkSession\n"
        "spark = (SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        "         .config('spark.sql.extensions', rangejoin.EXTENSION_CLASS).getOrCreate())\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    print('ACTIVE:', rangejoin.is_active(spark))\n"
        "print('WARNED:', ' '.join(str(w.message) for w in caught))\n"
        "a = spark.range(100).withColumnRenamed('id', 'x')\n"
        "b = spark.range(100).withColumnRenamed('id', 'y')\n"
        "try:\n"
        "    rangejoin.explain_joins(a.join(b, a.x < b.y))\n"
        "except rangejoin.JarNotFoundError as error:\n"
        "    print('RAISED:', error)\n"
    )
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert lines.get("ACTIVE") == "False", result.stderr[-3000:]
    missing = (
        "The JVM of this Spark session has no rangejoin jar on its classpath, so Spark ignored "
        f"{rangejoin.EXTENSION_CLASS} in spark.sql.extensions."
    )
    assert lines["WARNED"].startswith(missing), lines["WARNED"]
    assert "RAISED" in lines, result.stdout + result.stderr[-3000:]
    assert lines["RAISED"].startswith(missing)
    for advice in ("spark.jars", "rangejoin.configure(", "--jars", rangejoin.jar_path()):
        assert advice in lines["RAISED"], lines["RAISED"]

"""Spark Connect: the local route (builder.remote("local") with configure()) and a Connect
server started with the jar and the extension both plan range joins, as the client's EXPLAIN
shows, and switch at runtime from the client; a server without the plugin is reported, and
configure() on a remote client says how to start the server."""

import os
import subprocess
import sys

import pytest
from connect_server import connect_server
from pyspark.sql import SparkSession

import rangejoin

# Runs with `spark` a Connect session; prints what the client sees.
CLIENT = """
import rangejoin
print("CONNECT:", type(spark).__module__.startswith("pyspark.sql.connect"))
print("ACTIVE:", rangejoin.is_active(spark))
spark.range(3000).selectExpr("id AS x", "id % 13 AS p").createOrReplaceTempView("a")
spark.range(1000).selectExpr("id AS y", "id % 11 AS q").createOrReplaceTempView("b")
query = "SELECT count(*) FROM a JOIN b ON x < y AND p > q"
def plan():
    return spark.sql("EXPLAIN " + query).collect()[0][0].replace("\\n", " | ")
print("PLAN ON:", plan())
print("ON:", spark.sql(query).collect()[0][0])
spark.conf.set("spark.rangejoin.enabled", "false")
print("ACTIVE OFF:", rangejoin.is_active(spark))
print("PLAN OFF:", plan())
print("OFF:", spark.sql(query).collect()[0][0])
"""


def _client(opening: str) -> dict:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    result = subprocess.run(
        [sys.executable, "-c", opening + CLIENT],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert "OFF" in lines, result.stdout + result.stderr[-4000:]
    return lines


def _remote_session(address: str) -> str:
    """Opens `spark` as a client of the server at `address`, with no rangejoin setting."""
    return (
        "from pyspark.sql import SparkSession\n"
        f"spark = SparkSession.builder.remote({address!r}).getOrCreate()\n"
    )


def _check_accelerated(lines: dict) -> None:
    assert lines["CONNECT"] == "True" and lines["ACTIVE"] == "True"
    assert "BroadcastRangeJoin Inner" in lines["PLAN ON"], lines["PLAN ON"]
    assert lines["ACTIVE OFF"] == "False"
    assert "RangeJoin" not in lines["PLAN OFF"] and "NestedLoopJoin" in lines["PLAN OFF"]
    assert lines["ON"] == lines["OFF"] and int(lines["ON"]) > 0


def test_the_local_connect_route_with_configure():
    _check_accelerated(
        _client(
            "import rangejoin\n"
            "from pyspark.sql import SparkSession\n"
            "builder = SparkSession.builder.remote('local[1]')\n"
            "builder = builder.config('spark.ui.enabled', 'false')\n"
            "builder = builder.config('spark.rangejoin.minCandidatePairs', '0')\n"
            "spark = rangejoin.configure(builder).getOrCreate()\n"
        )
    )


def test_a_connect_server_started_with_the_jar_and_the_extension(tmp_path):
    with connect_server(tmp_path, with_plugin=True) as address:
        _check_accelerated(_client(_remote_session(address)))


def test_a_connect_server_without_the_plugin_is_reported(tmp_path):
    with connect_server(tmp_path, with_plugin=False) as address:
        lines = _client(_remote_session(address))
        assert lines["ACTIVE"] == "False" and "RangeJoin" not in lines["PLAN ON"]
        with pytest.raises(rangejoin.ConnectServerError) as error:
            rangejoin.configure(SparkSession.builder.remote(address))
        message = str(error.value)
        assert "start-connect-server.sh --jars" in message
        assert f"--conf spark.sql.extensions={rangejoin.EXTENSION_CLASS}" in message

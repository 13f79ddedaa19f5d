"""A Spark Connect server in a child process, as start-connect-server.sh runs one, for tests."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyspark

import rangejoin


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def connect_server(tmp_path: Path, with_plugin: bool):
    """Yields the sc:// address of a local Connect server, started with the plugin's jar and
    extension when `with_plugin`, and stops it afterwards."""
    spark_home = Path(pyspark.__file__).parent
    port = _free_port()
    command = [str(spark_home / "bin" / "spark-submit"), "--master", "local[2]"]
    command += ["--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
    command += ["--conf", f"spark.connect.grpc.binding.port={port}"]
    command += ["--conf", "spark.ui.enabled=false"]
    command += ["--conf", "spark.rangejoin.minCandidatePairs=0"] if with_plugin else []
    if with_plugin:
        command += ["--jars", rangejoin.jar_path()]
        command += ["--conf", f"spark.sql.extensions={rangejoin.EXTENSION_CLASS}"]
    env = dict(os.environ, SPARK_HOME=str(spark_home), PYSPARK_PYTHON=sys.executable)
    log = (tmp_path / f"connect-{port}.log").open("w")
    server = subprocess.Popen(command + ["spark-internal"], stdout=log, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 180
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("localhost", port), 1):
                break
            assert server.poll() is None, (tmp_path / f"connect-{port}.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the Connect server did not start in 180 s"
            time.sleep(1)
        yield f"sc://localhost:{port}"
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()

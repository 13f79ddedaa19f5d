"""Runs a PySpark script with the plain spark-submit route: --jars and --conf, no helper."""

import os
import subprocess
import sys
from pathlib import Path

import pyspark

import rangejoin


def spark_submit(
    script: str, tmp_path: Path, master: str, *conf: str, packages: str | None = None
) -> str:
    """Runs `script` with `master`, the plugin and the extension; returns its stdout.

    The plugin comes as the bundled jar (--jars), or as Maven coordinates (--packages) when
    `packages` names them. `conf` holds extra `key=value` settings. Fails with the tail of
    stderr if the job fails.
    """
    path = tmp_path / "job.py"
    path.write_text(script)
    spark_home = Path(pyspark.__file__).parent
    env = dict(
        os.environ,
        SPARK_HOME=str(spark_home),
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    settings = ["spark.sql.extensions=rangejoin.RangeJoinExtensions", "spark.ui.enabled=false"]
    command = [str(spark_home / "bin" / "spark-submit"), "--master", master]
    if packages:
        # A fresh Ivy home: the coordinates resolve from the local Maven repository, not a cache.
        command += ["--packages", packages, "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}"]
    else:
        command += ["--jars", rangejoin.jar_path()]
    for setting in settings + list(conf):
        command += ["--conf", setting]
    result = subprocess.run(
        command + [str(path)], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout

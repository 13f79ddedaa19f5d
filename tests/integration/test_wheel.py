"""The package as a user installs it: a wheel built from the checkout (after `make dist`, with a
jar for each Spark line) runs a range join in a fresh virtualenv that has only pyspark, of the
default line and of Spark 3.5 (Scala 2.12); a build without the jars fails at once."""

import shutil
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

import rangejoin

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"

SCRIPT = """
import rangejoin
from pyspark.sql import functions as F
spark = rangejoin.session("local[1]", **{"spark.ui.enabled": "false",
                                          "spark.rangejoin.minCandidatePairs": "0"})
a = spark.range(3000).selectExpr("id AS x", "id % 13 AS p")
b = spark.range(1000).selectExpr("id AS y", "id % 11 AS q")
joined = a.join(b, F.expr("x < y AND p > q"))
print("ACTIVE:", rangejoin.is_active(spark))
print("JAR:", rangejoin.jar_path().rsplit("/", 1)[-1])
print("OPERATOR:", rangejoin.explain_joins(joined)[0].rsplit(" ", 1)[-1])
print("ON:", joined.count())
spark.conf.set("spark.rangejoin.enabled", "false")
print("OFF:", joined.count())
"""


def _wheel(source: Path, out: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    return subprocess.run(
        command + ["-w", str(out), str(source)], capture_output=True, text=True, timeout=300
    )


def test_a_build_without_the_jar_fails_saying_how_to_build_it(tmp_path):
    source = tmp_path / "python"
    leave_out = shutil.ignore_patterns("jars", "build", "*.egg-info")
    shutil.copytree(PYTHON_DIR, source, ignore=leave_out)
    result = _wheel(source, tmp_path / "dist")
    assert result.returncode != 0
    assert "rangejoin needs its jars in rangejoin/jars" in result.stdout + result.stderr
    assert "make dist" in result.stdout + result.stderr


@pytest.mark.parametrize("pyspark_version", [pyspark.__version__, "3.5.8"])
def test_the_wheel_runs_a_range_join_in_a_fresh_virtualenv_with_only_pyspark(
    tmp_path, pyspark_version
):
    line = rangejoin._jar.spark_line(pyspark_version)
    bundled = [jar.name for jar in (PYTHON_DIR / "rangejoin" / "jars").glob("*.jar")]
    assert any(name.startswith(f"rangejoin-spark{line}.") for name in bundled), "run make dist"
    built = _wheel(PYTHON_DIR, tmp_path / "dist")
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("rangejoin-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = [python, "-m", "pip", "install", "-q", str(wheel), f"pyspark=={pyspark_version}"]
    subprocess.run(install, check=True, timeout=900)
    result = subprocess.run(
        [python, "-c", SCRIPT], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert lines.get("ACTIVE") == "True", result.stderr[-3000:]
    assert lines["OPERATOR"] == "BroadcastRangeJoin"
    assert lines["ON"] == lines["OFF"] and int(lines["ON"]) > 0
    scala = "2.12" if line == "3.5" else "2.13"
    assert lines["JAR"].startswith(f"rangejoin-spark{line}.") and f"_{scala}-" in lines["JAR"]

"""The package as a user installs it: a wheel built from the checkout (after `make dist`, with a
jar for each Spark line) runs a range join in a fresh virtualenv that has only pyspark, of the
default line and of Spark 3.5 (Scala 2.12); a build without the jars fails at once; the wheel
builds without warnings, with the version of versions.properties, the license and the pandas
extra, and so does the sdist's."""

import email.parser
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pyspark
import pytest
from project_versions import builds

import rangejoin

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "python"

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


def _wheel(source: Path, out: Path, verbose: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pip", "wheel", "-v" if verbose else "-q", "--no-deps"]
    command += ["--no-build-isolation", "-w", str(out), str(source)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _checkout_copy(tmp_path: Path) -> Path:
    """A copy of python/ with its jars, next to copies of the checkout's LICENSE and
    versions.properties, as the build sees the checkout; nothing built before."""
    root = tmp_path / "checkout"
    leave_out = shutil.ignore_patterns("build", "*.egg-info", "LICENSE", "__pycache__")
    shutil.copytree(PYTHON_DIR, root / "python", ignore=leave_out)
    for name in ("LICENSE", "versions.properties"):
        shutil.copy(REPO / name, root / name)
    return root / "python"


def _written_version() -> str:
    text = (REPO / "versions.properties").read_text()
    (version,) = re.findall(r"^VERSION=(\S+)$", text, re.MULTILINE)
    return version


# What setuptools says about a package it is unsure of (data directories not listed as packages,
# deprecated license forms, beta configuration): the build must say none of it.
_NOISE = re.compile(
    r"\w*Warning\b|would be ignored|as data is deprecated|absent from the `packages`"
)


def _check_wheel(wheel: Path) -> None:
    """The wheel has the checkout's version, license and jars, and the pandas extra."""
    version = _written_version()
    assert wheel.name == f"rangejoin-{version}-py3-none-any.whl"
    dist_info = f"rangejoin-{version}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = email.parser.Parser().parsestr(archive.read(f"{dist_info}/METADATA").decode())
        (license_file,) = [n for n in names if n.startswith(dist_info) and n.endswith("LICENSE")]
        assert archive.read(license_file) == (REPO / "LICENSE").read_bytes()
    assert metadata["Version"] == version
    assert "Apache-2.0" in (metadata["License-Expression"], metadata["License"])
    assert metadata.get_all("License-File") == ["LICENSE"]
    requires = metadata.get_all("Requires-Dist")
    assert 'pandas<3,>=2; extra == "pandas"' in requires, requires
    assert 'pyarrow; extra == "pandas"' in requires, requires
    bundled = sorted(path.name for path in (PYTHON_DIR / "rangejoin" / "jars").glob("*.jar"))
    packed = sorted(Path(n).name for n in names if n.startswith("rangejoin/jars/"))
    assert packed == bundled and bundled


def test_the_wheel_builds_quietly_with_the_version_license_and_extra(tmp_path):
    built = _wheel(_checkout_copy(tmp_path), tmp_path / "dist", verbose=True)
    assert built.returncode == 0, built.stderr[-3000:]
    noise = [line for line in (built.stdout + built.stderr).splitlines() if _NOISE.search(line)]
    assert noise == [], "\n".join(noise)
    (wheel,) = (tmp_path / "dist").glob("rangejoin-*.whl")
    _check_wheel(wheel)


def test_the_sdist_carries_the_jars_and_the_license_and_builds_the_same_wheel(tmp_path):
    source = _checkout_copy(tmp_path)
    command = [sys.executable, "-m", "build", "--sdist", "--no-isolation"]
    command += ["--outdir", str(tmp_path / "sdist"), str(source)]
    built = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = (tmp_path / "sdist").glob("rangejoin-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    assert (unpacked / "LICENSE").read_bytes() == (REPO / "LICENSE").read_bytes()
    assert list((unpacked / "rangejoin" / "jars").glob("*.jar"))
    wheel = _wheel(unpacked, tmp_path / "dist")
    assert wheel.returncode == 0, wheel.stderr[-3000:]
    (path,) = (tmp_path / "dist").glob("rangejoin-*.whl")
    _check_wheel(path)


def test_a_build_without_the_jar_fails_saying_how_to_build_it(tmp_path):
    source = tmp_path / "python"
    leave_out = shutil.ignore_patterns("jars", "build", "*.egg-info")
    shutil.copytree(PYTHON_DIR, source, ignore=leave_out)
    result = _wheel(source, tmp_path / "dist")
    assert result.returncode != 0
    assert "rangejoin needs its jars in rangejoin/jars" in result.stdout + result.stderr
    assert "make dist" in result.stdout + result.stderr


# The default line, and the Scala 2.12 build the wheel carries for pyspark 3.5.
SCALA_212_RELEASE = next(release for release, scala in builds("WHEEL_BUILDS") if scala == "2.12")


@pytest.mark.parametrize("pyspark_version", [pyspark.__version__, SCALA_212_RELEASE])
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

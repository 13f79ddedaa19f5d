"""The Python helpers: configure() keeps the user's settings and errors say what to do."""

from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import rangejoin
from rangejoin import _jar


def test_jar_path_points_at_the_bundled_jar():
    path = Path(rangejoin.jar_path())
    assert path.is_file() and path.suffix == ".jar"
    assert rangejoin.spark_version() in path.name
    assert rangejoin.spark_version() == pyspark.__version__


def test_configure_appends_and_keeps_existing_settings():
    builder = (
        SparkSession.Builder()
        .config("spark.jars", "/opt/other.jar")
        .config("spark.sql.extensions", "com.example.OtherExtensions")
    )
    assert rangejoin.configure(builder) is builder
    options = builder._options
    assert options["spark.jars"] == f"/opt/other.jar,{rangejoin.jar_path()}"
    assert options["spark.sql.extensions"] == (
        f"com.example.OtherExtensions,{rangejoin.EXTENSION_CLASS}"
    )


def test_configure_twice_adds_nothing_twice():
    builder = rangejoin.configure(rangejoin.configure(SparkSession.Builder()))
    assert builder._options["spark.jars"] == rangejoin.jar_path()
    assert builder._options["spark.sql.extensions"] == rangejoin.EXTENSION_CLASS


def test_configure_rejects_other_arguments():
    with pytest.raises(TypeError, match="SparkSession.Builder"):
        rangejoin.configure("local[2]")


def test_a_different_pyspark_version_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(pyspark, "__version__", "3.5.1")
    with pytest.raises(rangejoin.SparkVersionMismatchError) as error:
        rangejoin.configure(SparkSession.Builder())
    message = str(error.value)
    assert "3.5.1" in message and f'pip install "pyspark=={rangejoin.spark_version()}"' in message


def test_a_missing_jar_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(_jar, "_jar_dir", lambda: tmp_path)
    with pytest.raises(rangejoin.JarNotFoundError, match="make build"):
        rangejoin.jar_path()
    with pytest.raises(rangejoin.JarNotFoundError, match="make build"):
        rangejoin.configure(SparkSession.Builder())

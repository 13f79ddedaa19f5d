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


def _spark_defaults(tmp_path, monkeypatch, text: str) -> None:
    """Points Spark (and configure()) at a spark-defaults.conf holding `text`."""
    (tmp_path / "spark-defaults.conf").write_text(text)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    assert rangejoin.spark_defaults_file() == tmp_path / "spark-defaults.conf"


def test_configure_keeps_the_extensions_and_jars_of_spark_defaults(tmp_path, monkeypatch):
    _spark_defaults(
        tmp_path,
        monkeypatch,
        "# a cluster's defaults\n"
        "spark.sql.extensions   io.delta.sql.DeltaSparkSessionExtension\n"
        "spark.jars=/opt/delta-spark.jar,/opt/delta-storage.jar\n"
        "spark.executor.memory: 4g\n",
    )
    options = rangejoin.configure(SparkSession.Builder())._options
    assert options["spark.sql.extensions"] == (
        f"io.delta.sql.DeltaSparkSessionExtension,{rangejoin.EXTENSION_CLASS}"
    )
    assert options["spark.jars"] == (
        f"/opt/delta-spark.jar,/opt/delta-storage.jar,{rangejoin.jar_path()}"
    )
    assert "spark.executor.memory" not in options  # Spark reads the rest itself


def test_a_builder_setting_wins_over_spark_defaults_as_in_spark(tmp_path, monkeypatch):
    _spark_defaults(tmp_path, monkeypatch, "spark.sql.extensions com.example.FromDefaults\n")
    builder = SparkSession.Builder().config("spark.sql.extensions", "com.example.FromBuilder")
    options = rangejoin.configure(builder)._options
    assert options["spark.sql.extensions"] == f"com.example.FromBuilder,{rangejoin.EXTENSION_CLASS}"


def test_without_spark_defaults_only_the_plugin_is_added(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))  # no file there
    options = rangejoin.configure(SparkSession.Builder())._options
    assert options["spark.sql.extensions"] == rangejoin.EXTENSION_CLASS


def test_the_package_has_a_version_and_type_information():
    pyproject = Path(__file__).resolve().parents[2] / "python" / "pyproject.toml"
    assert f'version = "{rangejoin.__version__}"' in pyproject.read_text()
    assert (Path(rangejoin.__file__).parent / "py.typed").is_file()

"""The Python helpers and the package build: configure() keeps the user's settings, errors say
what to do, and the build takes its version from the bundled jars."""

import importlib.util
import re
import warnings
from pathlib import Path
from types import SimpleNamespace

import pyspark
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

import rangejoin
from rangejoin import _jar


def test_jar_path_points_at_the_bundled_jar_of_the_installed_pyspark():
    path = Path(rangejoin.jar_path())
    assert path.is_file() and path.suffix == ".jar"
    assert f"rangejoin-spark{rangejoin.spark_version()}_2.13-" in path.name
    assert _jar.spark_line(rangejoin.spark_version()) == _jar.spark_line(pyspark.__version__)
    assert _jar.spark_line(pyspark.__version__) in rangejoin.supported_spark_versions()


def _fake_jars(monkeypatch, tmp_path, *builds: str) -> None:
    for build in builds:
        (tmp_path / f"rangejoin-spark{build}-0.1.0.jar").write_bytes(b"")
    monkeypatch.setattr(_jar, "_jar_dir", lambda: tmp_path)


def test_the_jar_of_the_pyspark_line_and_its_scala_version_is_picked(monkeypatch, tmp_path):
    _fake_jars(monkeypatch, tmp_path, "3.5.8_2.12", "3.5.8_2.13", "4.1.3_2.13", "4.10.0_2.13")
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda line: "2.12" if line < "4" else "2.13")
    assert rangejoin.supported_spark_versions() == ["3.5", "4.1", "4.10"]
    assert rangejoin.jar_path("3.5.2").endswith("rangejoin-spark3.5.8_2.12-0.1.0.jar")
    assert rangejoin.jar_path("4.1.4").endswith("rangejoin-spark4.1.3_2.13-0.1.0.jar")
    assert rangejoin.spark_version("4.10.1") == "4.10.0"
    with pytest.raises(rangejoin.SparkVersionMismatchError) as error:
        rangejoin.jar_path("4.2.0")
    assert "no jar for Spark 4.2 with Scala 2.13" in str(error.value)
    assert "it supports Spark 3.5, 4.1, 4.10" in str(error.value)
    assert 'pip install "pyspark==4.10.*"' in str(error.value)


def test_a_spark_line_built_for_another_scala_version_says_which(monkeypatch, tmp_path):
    _fake_jars(monkeypatch, tmp_path, "3.5.8_2.12", "4.1.3_2.13")
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda line: "2.13")  # Spark 3.5 for Scala 2.13
    with pytest.raises(rangejoin.SparkVersionMismatchError) as error:
        rangejoin.jar_path("3.5.8")
    message = str(error.value)
    assert "no jar for Spark 3.5 with Scala 2.13" in message
    assert "Its Spark 3.5 jar is built for Scala 2.12 only." in message


def test_the_scala_version_is_read_from_spark_home_when_pyspark_has_no_jars(monkeypatch, tmp_path):
    fake = tmp_path / "python" / "pyspark"
    fake.mkdir(parents=True)
    (tmp_path / "jars").mkdir()
    (tmp_path / "jars" / "scala-library-2.13.8.jar").write_bytes(b"")
    monkeypatch.setattr(pyspark, "__file__", str(fake / "__init__.py"))
    monkeypatch.setattr(pyspark, "__version__", "3.5.8")
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    assert _jar._pyspark_scala("3.5") == "2.13"
    monkeypatch.delenv("SPARK_HOME")
    assert _jar._pyspark_scala("3.5") == "2.12"


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


def test_an_unsupported_pyspark_version_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(pyspark, "__version__", "3.4.1")
    with pytest.raises(rangejoin.SparkVersionMismatchError) as error:
        rangejoin.configure(SparkSession.Builder())
    message = str(error.value)
    assert "PySpark 3.4.1" in message
    assert f"it supports Spark {', '.join(rangejoin.supported_spark_versions())}" in message


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


REPO = Path(__file__).resolve().parents[2]


def _written_version() -> str:
    """VERSION of versions.properties, where the project's version is written once."""
    text = (REPO / "versions.properties").read_text()
    (version,) = re.findall(r"^VERSION=(\S+)$", text, re.MULTILINE)
    return version


def _setup_module():
    """python/setup.py as a module (it calls setup() only when run as a script)."""
    spec = importlib.util.spec_from_file_location("rangejoin_setup", REPO / "python" / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_has_the_version_of_versions_properties_and_type_information():
    assert rangejoin.__version__ == _written_version()
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    assert re.search(r"^dynamic = \[.*\"version\"", pyproject, re.MULTILINE)
    assert not re.search(r"^version\s*=", pyproject, re.MULTILINE)  # written once, elsewhere
    assert (Path(rangejoin.__file__).parent / "py.typed").is_file()


def test_the_build_takes_its_version_from_the_bundled_jars(tmp_path):
    setup = _setup_module()
    assert setup.bundled_version(setup.JAR_DIR, REPO / "versions.properties") == _written_version()
    for build in ("3.5.8_2.12", "4.2.0_2.13"):
        (tmp_path / f"rangejoin-spark{build}-1.2.3.jar").write_bytes(b"")
    assert setup.bundled_version(tmp_path) == "1.2.3"
    properties = tmp_path / "versions.properties"
    properties.write_text("# the versions\nVERSION=1.2.3\nDEFAULT_BUILD=4.2.0_2.13\n")
    assert setup.bundled_version(tmp_path, properties) == "1.2.3"


def test_the_build_fails_on_jars_of_different_versions_stale_jars_or_none(tmp_path):
    setup = _setup_module()
    with pytest.raises(SystemExit, match="rangejoin needs its jars in rangejoin/jars"):
        setup.bundled_version(tmp_path)
    (tmp_path / "rangejoin-spark4.2.0_2.13-1.2.3.jar").write_bytes(b"")
    properties = tmp_path / "versions.properties"
    properties.write_text("VERSION=1.3.0\n")
    with pytest.raises(SystemExit, match="are version 1.2.3, but .* says 1.3.0: they are stale"):
        setup.bundled_version(tmp_path, properties)
    (tmp_path / "rangejoin-spark3.5.8_2.12-1.3.0.jar").write_bytes(b"")
    with pytest.raises(SystemExit) as error:
        setup.bundled_version(tmp_path)
    assert "carry different versions (rangejoin-spark3.5.8_2.12-1.3.0.jar, " in str(error.value)
    assert "they must agree" in str(error.value)


def test_the_license_is_declared_in_the_form_the_setuptools_supports(monkeypatch):
    import setuptools

    setup = _setup_module()
    monkeypatch.setattr(setuptools, "__version__", "65.5.0")
    old = setup.license_metadata()
    assert old["license"] == "Apache-2.0" and old["license_files"] == ["LICENSE"]
    assert old["classifiers"] == ["License :: OSI Approved :: Apache Software License"]
    monkeypatch.setattr(setuptools, "__version__", "80.9.0")
    new = setup.license_metadata()
    assert new["license_expression"] == "Apache-2.0" and "license" not in new
    assert new["classifiers"] == []  # PEP 639 deprecates license classifiers


class _FakeConf:
    def __init__(self, settings: dict):
        self.settings = settings

    def get(self, key, default=None):
        return self.settings.get(key, default)


class _FakeSession:
    """A classic session whose JVM cannot load the plugin's classes."""

    def __init__(self, extensions: str):
        self.conf = _FakeConf({"spark.sql.extensions": extensions})
        loadable = SimpleNamespace(classIsLoadable=lambda name: False)
        utils = SimpleNamespace(util=SimpleNamespace(Utils=loadable))
        self._jvm = SimpleNamespace(
            org=SimpleNamespace(apache=SimpleNamespace(spark=utils)),
            # py4j gives a JavaPackage, not a JavaClass, for a class it cannot load
            rangejoin=SimpleNamespace(planning=SimpleNamespace(Declines=object())),
        )

    def sql(self, query):
        raise AnalysisException(message="[UNRESOLVED_ROUTINE] rangejoin_version")


def test_explain_joins_without_the_jar_in_the_jvm_says_so():
    session = _FakeSession("com.example.Other,rangejoin.RangeJoinExtensions")
    with pytest.raises(rangejoin.JarNotFoundError) as error:
        rangejoin.explain_joins(SimpleNamespace(sparkSession=session))
    message = str(error.value)
    assert message.startswith("The JVM of this Spark session has no rangejoin jar on its classpath")
    assert "so Spark ignored rangejoin.RangeJoinExtensions in spark.sql.extensions" in message
    assert "spark.jars" in message and "rangejoin.configure(" in message and "--jars" in message
    assert rangejoin.jar_path() in message


def test_is_active_without_the_jar_is_false_and_warns_when_the_extension_is_named():
    with pytest.warns(RuntimeWarning, match="has no rangejoin jar on its classpath"):
        assert rangejoin.is_active(_FakeSession("rangejoin.RangeJoinExtensions")) is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a session that never asked for the plugin: no warning
        assert rangejoin.is_installed(_FakeSession("")) is False

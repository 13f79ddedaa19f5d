"""Builder and session helpers that switch the plugin on, and a check that it is on."""

import os
import re
import warnings
from pathlib import Path

import pyspark
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from rangejoin._jar import check_pyspark_version, jar_path

EXTENSION_CLASS = "rangejoin.RangeJoinExtensions"
VERSION_FUNCTION = "rangejoin_version"

# The two list-valued settings configure() adds to; it never drops what they already name.
_LIST_KEYS = ("spark.jars", "spark.sql.extensions")


class ConnectServerError(RuntimeError):
    """configure() was given a client of a Spark Connect server: the plugin belongs in the
    server, which loads jars and extensions when it starts."""


class SessionAlreadyRunningError(RuntimeError):
    """Spark already started in this process without the plugin; a builder cannot add it."""


def _append(current: str | None, value: str) -> str:
    """Appends `value` to a comma-separated list, unless it is already in it."""
    items = [item.strip() for item in (current or "").split(",") if item.strip()]
    if value not in items:
        items.append(value)
    return ",".join(items)


def spark_defaults_file() -> Path:
    """The spark-defaults.conf that spark-submit reads when PySpark starts Spark: the one in
    SPARK_CONF_DIR, else in SPARK_HOME's conf, else in the installed pyspark's conf."""
    if os.environ.get("SPARK_CONF_DIR"):
        return Path(os.environ["SPARK_CONF_DIR"]) / "spark-defaults.conf"
    home = os.environ.get("SPARK_HOME") or str(Path(pyspark.__file__).parent)
    return Path(home) / "conf" / "spark-defaults.conf"


def _read_properties(path: Path) -> dict[str, str]:
    """The settings of a Java properties file as Spark reads spark-defaults.conf: `key value`,
    `key=value` or `key: value` lines; `#` and `!` start comments."""
    if not path.is_file():
        return {}
    settings = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        match = re.match(r"([^\s=:]+)\s*[\s=:]\s*(.*)", line)
        if line and line[0] not in "#!" and match:
            settings[match[1]] = match[2].strip()
    return settings


def _started_without_plugin() -> bool:
    """Whether this process already started Spark in a way configure() cannot change: a JVM
    without the plugin's jar (jars join the driver only when its JVM starts), or a running
    session without the extension (extensions are fixed when it starts)."""
    jvm = pyspark.SparkContext._jvm
    if jvm is None:
        return False
    if not jvm.org.apache.spark.util.Utils.classIsLoadable(EXTENSION_CLASS):
        return True
    context = pyspark.SparkContext._active_spark_context
    running = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    if running is not None and context is not None:
        return not is_installed(running)
    return False


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the rangejoin jar to `spark.jars` and the extension to `spark.sql.extensions`.

    Whatever those keys already name is kept: the builder's value, or else the value of the
    spark-defaults.conf Spark will read (SPARK_CONF_DIR, SPARK_HOME/conf), so a cluster's Delta
    or Iceberg extension and jars stay; the jar and the extension are appended. Returns the same
    builder, so calls chain:
    ``rangejoin.configure(SparkSession.builder.master("local[2]")).getOrCreate()``.

    With ``builder.remote("local")`` the local Spark Connect server starts with the plugin. A
    client of a remote server (``sc://...``) raises ConnectServerError, which shows how to start
    the server with the plugin. Raises SessionAlreadyRunningError when Spark already started in
    this process without the plugin (a notebook, the pyspark shell): getOrCreate() would return a
    session without it.
    """
    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(f"configure() takes a SparkSession.Builder, not {type(builder).__name__}")
    check_pyspark_version(pyspark.__version__)
    options = builder._options  # the builder keeps its settings here; there is no getter
    remote = options.get("spark.remote") or os.environ.get("SPARK_REMOTE") or ""
    if remote.startswith("sc://"):
        raise ConnectServerError(
            f"{remote} is a Spark Connect server: spark-rangejoin must be installed in the "
            "server, since a server loads jars and session extensions when it starts. Start it "
            f"with: start-connect-server.sh --jars {jar_path()} "
            f"--conf spark.sql.extensions={EXTENSION_CLASS}; then build this session without "
            "configure() and check it with rangejoin.is_active(spark)."
        )
    if not remote and _started_without_plugin():
        raise SessionAlreadyRunningError(
            "Spark already started in this process without spark-rangejoin, and a running "
            "Spark driver takes no new jar or session extension. Restart the Python process "
            "(the notebook kernel) and call rangejoin.configure() before anything starts "
            f"Spark, or start PySpark with --jars {jar_path()} "
            f"--conf spark.sql.extensions={EXTENSION_CLASS}."
        )
    defaults = _read_properties(spark_defaults_file())
    added = {"spark.jars": jar_path(), "spark.sql.extensions": EXTENSION_CLASS}
    for key in _LIST_KEYS:
        builder.config(key, _append(options.get(key, defaults.get(key)), added[key]))
    return builder


def session(master: str = "local[*]", app_name: str = "rangejoin", **conf: str) -> SparkSession:
    """A SparkSession with the plugin enabled; `conf` holds extra settings (dots as in Spark).

    Example: ``rangejoin.session("local[2]", **{"spark.driver.memory": "4g"})``.
    """
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return configure(builder).getOrCreate()


def _extension_named(spark: SparkSession) -> bool:
    """Whether spark.sql.extensions names the plugin's extension in `spark`."""
    try:
        named = spark.conf.get("spark.sql.extensions", "") or ""
    except Exception:  # a setting the session cannot read is not one that names it
        return False
    return EXTENSION_CLASS in [item.strip() for item in named.split(",")]


def _jvm_has_jar(spark: SparkSession) -> bool | None:
    """Whether the JVM of classic session `spark` can load the plugin's classes; None for a
    Spark Connect session, whose JVM is the server's."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return None
    return bool(jvm.org.apache.spark.util.Utils.classIsLoadable(EXTENSION_CLASS))


def missing_jar_message(spark: SparkSession) -> str:
    """Says that `spark`'s JVM has no rangejoin jar, and how to give it one."""
    if getattr(spark, "_jvm", None) is None:
        where = "The Spark Connect server of this session has no rangejoin jar on its classpath"
        fix = (
            "Restart the server with the jar: start-connect-server.sh --jars <jar> "
            f"--conf spark.sql.extensions={EXTENSION_CLASS}"
        )
    else:
        where = "The JVM of this Spark session has no rangejoin jar on its classpath"
        fix = (
            "Start the session with the jar in spark.jars: "
            "rangejoin.configure(SparkSession.builder...).getOrCreate() and rangejoin.session() "
            "set spark.jars and spark.sql.extensions; with spark-submit or pyspark, pass "
            "--jars <jar>. A running JVM takes no new jar, so restart the Python process (the "
            "notebook kernel) first"
        )
    if _extension_named(spark):
        where += f", so Spark ignored {EXTENSION_CLASS} in spark.sql.extensions"
    try:
        jar = f" The jar for this PySpark is {jar_path()}."
    except RuntimeError:  # no bundled jar serves this PySpark: that error says why elsewhere
        jar = ""
    return f"{where}. {fix}.{jar}"


def is_installed(spark: SparkSession) -> bool:
    """Whether the plugin's extension is installed in `spark` (its jar on the classpath and its
    class in spark.sql.extensions), asked through SQL so that it works on classic and Spark
    Connect sessions alike.

    False when either is missing. When spark.sql.extensions names the extension but the session's
    JVM has no rangejoin jar (Spark then ignores the extension), it also warns, with a
    RuntimeWarning that says so and how to add the jar.
    """
    return _installed(spark)


def _installed(spark: SparkSession) -> bool:
    """is_installed(spark), for is_installed and is_active: its warning names their caller."""
    try:
        spark.sql(f"SELECT {VERSION_FUNCTION}()").collect()
    except AnalysisException:
        if _extension_named(spark) and not _jvm_has_jar(spark):
            warnings.warn(missing_jar_message(spark), RuntimeWarning, stacklevel=3)
        return False
    return True


def is_active(spark: SparkSession) -> bool:
    """Whether the plugin plans `spark`'s joins: it is installed (is_installed) and
    spark.rangejoin.enabled is not false. Works on classic and Spark Connect sessions.

    False when the extension is named but the session's JVM has no rangejoin jar, with a
    RuntimeWarning saying so (see is_installed).
    """
    enabled = spark.conf.get("spark.rangejoin.enabled", "true").strip().lower() != "false"
    return enabled and _installed(spark)

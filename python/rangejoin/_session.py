"""Builder and session helpers that switch the plugin on."""

import pyspark
from pyspark.sql import SparkSession

from rangejoin._jar import check_pyspark_version, jar_path

EXTENSION_CLASS = "rangejoin.RangeJoinExtensions"


def _append(current: str | None, value: str) -> str:
    """Appends `value` to a comma-separated list, unless it is already in it."""
    items = [item.strip() for item in (current or "").split(",") if item.strip()]
    if value not in items:
        items.append(value)
    return ",".join(items)


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the rangejoin jar to `spark.jars` and the extension to `spark.sql.extensions`.

    Whatever the builder already holds in those keys is kept; the jar and the extension are
    appended. Returns the same builder, so calls chain:
    ``rangejoin.configure(SparkSession.builder.master("local[2]")).getOrCreate()``.
    """
    if not isinstance(builder, SparkSession.Builder):
        raise TypeError(f"configure() takes a SparkSession.Builder, not {type(builder).__name__}")
    check_pyspark_version(pyspark.__version__)
    options = builder._options  # the builder keeps its settings here; there is no getter
    builder.config("spark.jars", _append(options.get("spark.jars"), jar_path()))
    builder.config(
        "spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS)
    )
    return builder


def session(master: str = "local[*]", app_name: str = "rangejoin", **conf: str) -> SparkSession:
    """A SparkSession with the plugin enabled; `conf` holds extra settings (dots as in Spark).

    Example: ``rangejoin.session("local[2]", **{"spark.driver.memory": "4g"})``.
    """
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return configure(builder).getOrCreate()

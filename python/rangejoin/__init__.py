"""spark-rangejoin: fast inequality joins for Apache Spark.

Enable the plugin on a session builder, then write joins as usual::

    import rangejoin
    from pyspark.sql import SparkSession

    spark = rangejoin.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    # or, for a local session: spark = rangejoin.session()
    assert rangejoin.is_active(spark)
"""

from importlib.metadata import PackageNotFoundError, version

from rangejoin._explain import explain_joins
from rangejoin._jar import (
    JarNotFoundError,
    SparkVersionMismatchError,
    jar_path,
    spark_version,
    supported_spark_versions,
)
from rangejoin._session import (
    EXTENSION_CLASS,
    ConnectServerError,
    SessionAlreadyRunningError,
    configure,
    is_active,
    is_installed,
    session,
    spark_defaults_file,
)

try:
    __version__ = version("rangejoin")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "EXTENSION_CLASS",
    "ConnectServerError",
    "JarNotFoundError",
    "SessionAlreadyRunningError",
    "SparkVersionMismatchError",
    "__version__",
    "configure",
    "explain_joins",
    "is_active",
    "is_installed",
    "jar_path",
    "session",
    "spark_defaults_file",
    "spark_version",
    "supported_spark_versions",
]

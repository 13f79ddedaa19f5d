"""spark-rangejoin: fast inequality joins for Apache Spark.

Enable the plugin on a session builder, then write joins as usual::

    import rangejoin
    from pyspark.sql import SparkSession

    spark = rangejoin.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    # or, for a local session: spark = rangejoin.session()
"""

from rangejoin._jar import JarNotFoundError, SparkVersionMismatchError, jar_path, spark_version
from rangejoin._session import EXTENSION_CLASS, configure, session

__all__ = [
    "EXTENSION_CLASS",
    "JarNotFoundError",
    "SparkVersionMismatchError",
    "configure",
    "jar_path",
    "session",
    "spark_version",
]

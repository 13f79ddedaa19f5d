import pytest
from pyspark.sql import SparkSession

import rangejoin


@pytest.fixture(scope="session")
def spark():
    """One local session with the plugin, shared by the end-to-end tests."""
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("rangejoin-pytest")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        # Test tables are tiny: accelerate them although Spark's nested loop would be faster.
        .config("spark.rangejoin.minCandidatePairs", "0")
        .config("spark.rangejoin.minSmallSideRows", "0")
    )
    session = rangejoin.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()

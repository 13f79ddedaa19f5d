package org.apache.spark.sql.execution.rangejoin

/** Spark 3.5 has one Dataset class. */
object ClassicDatasets {
  type ClassicDataset[T] = org.apache.spark.sql.Dataset[T]
}

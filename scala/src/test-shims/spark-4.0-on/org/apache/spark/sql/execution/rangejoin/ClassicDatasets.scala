package org.apache.spark.sql.execution.rangejoin

/** From Spark 4.0 on a classic session's Datasets are `sql.classic.Dataset`. */
object ClassicDatasets {
  type ClassicDataset[T] = org.apache.spark.sql.classic.Dataset[T]
}

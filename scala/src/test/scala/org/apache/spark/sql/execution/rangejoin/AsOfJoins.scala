package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.execution.rangejoin.ClassicDatasets.ClassicDataset

/**
 * Spark's as-of join for Scala tests: `Dataset.joinAsOf` is `private[sql]` (PySpark's
 * `DataFrame._joinAsOf` and pandas-on-Spark's `merge_asof` call it).
 */
object AsOfJoins {
  def joinAsOf(
      left: DataFrame,
      right: DataFrame,
      leftAsOf: Column,
      rightAsOf: Column,
      on: Column,
      how: String,
      tolerance: Column,
      allowExactMatches: Boolean,
      direction: String
  ): DataFrame = left
    .asInstanceOf[ClassicDataset[_]]
    .joinAsOf(
      right.asInstanceOf[ClassicDataset[_]],
      leftAsOf,
      rightAsOf,
      on,
      how,
      tolerance,
      allowExactMatches,
      direction
    )
}

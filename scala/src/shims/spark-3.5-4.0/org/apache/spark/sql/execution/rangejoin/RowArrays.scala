package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/** Spark 3.5 to 4.0: the sort-merge join buffer spills by row count only. */
private[rangejoin] object RowArrays {
  def create(thresholds: SpillThresholds): ExternalAppendOnlyUnsafeRowArray =
    new ExternalAppendOnlyUnsafeRowArray(thresholds.inMemoryRows, thresholds.spillRows)

  /** No size threshold before Spark 4.1. */
  def spillBytes(conf: SQLConf): Long = Long.MaxValue
}

package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/** Spark 4.1 on: the sort-merge join buffer spills by row count or by size. */
private[rangejoin] object RowArrays {
  def create(thresholds: SpillThresholds): ExternalAppendOnlyUnsafeRowArray =
    new ExternalAppendOnlyUnsafeRowArray(
      thresholds.inMemoryRows,
      thresholds.spillBytes,
      thresholds.spillRows,
      thresholds.spillBytes
    )

  def spillBytes(conf: SQLConf): Long = conf.sortMergeJoinExecBufferSpillSizeThreshold
}

package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray

/**
 * Spark's append-only row array, which its sort-merge join buffers with: rows stay in an
 * in-memory array up to a row threshold, then go to an `UnsafeExternalSorter` whose pages come
 * from the task's memory manager and spill to local disk under memory pressure or past a size
 * threshold. This wrapper exists because that class is private to Spark's `sql` package.
 *
 * @param thresholds the in-memory row threshold, spill row threshold and spill size threshold,
 *                   as [[SpillableRowArray.sortMergeJoinThresholds]] reads them
 */
final class SpillableRowArray(thresholds: (Int, Int, Long)) {
  private val rows =
    new ExternalAppendOnlyUnsafeRowArray(thresholds._1, thresholds._3, thresholds._2, thresholds._3)

  def length: Int = rows.length

  /** Appends a copy of `row`. */
  def add(row: UnsafeRow): Unit = rows.add(row)

  /** The rows from index `from` on; a returned row is valid until the next `next()`. */
  def iterator(from: Int): Iterator[UnsafeRow] = rows.generateIterator(from)

  /** Bytes spilled to disk so far. */
  def spillSize: Long = rows.spillSize

  /** Frees the rows' memory and spill files. */
  def clear(): Unit = rows.clear()
}

object SpillableRowArray {

  /** The thresholds of Spark's sort-merge join buffer, read on the driver from `conf`. */
  def sortMergeJoinThresholds(
      conf: org.apache.spark.sql.internal.SQLConf
  ): (Int, Int, Long) = (
    conf.sortMergeJoinExecBufferInMemoryThreshold,
    conf.sortMergeJoinExecBufferSpillThreshold,
    conf.sortMergeJoinExecBufferSpillSizeThreshold
  )
}

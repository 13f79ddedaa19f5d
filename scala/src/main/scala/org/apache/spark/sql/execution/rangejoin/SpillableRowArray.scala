package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark's append-only row array, which its sort-merge join buffers with: rows stay in an
 * in-memory array up to a row threshold, then go to an `UnsafeExternalSorter` whose pages come
 * from the task's memory manager and spill to local disk under memory pressure or past a size
 * threshold. This wrapper exists because that class is private to Spark's `sql` package.
 *
 * @param thresholds when rows leave memory and when they spill
 */
final class SpillableRowArray(thresholds: SpillThresholds) {
  private val rows = RowArrays.create(thresholds)

  // Spark 4.3 counts rows in a Long; a window buffer holds at most Int.MaxValue of them.
  def length: Int = rows.length.toInt

  /** Appends a copy of `row`. */
  def add(row: UnsafeRow): Unit = rows.add(row)

  /** The rows from index `from` on; a returned row is valid until the next `next()`. */
  def iterator(from: Int): Iterator[UnsafeRow] = rows.generateIterator(from)

  /** Bytes spilled to disk so far. */
  def spillSize: Long = rows.spillSize

  /** Frees the rows' memory and spill files. */
  def clear(): Unit = rows.clear()
}

/**
 * When a [[SpillableRowArray]] moves its rows from an in-memory array to a sorter
 * (`inMemoryRows`), and when that sorter spills to disk besides memory pressure: past `spillRows`
 * rows or `spillBytes` bytes (from Spark 4.1 on; earlier versions spill by rows only).
 */
final case class SpillThresholds(inMemoryRows: Int, spillRows: Int, spillBytes: Long)

object SpillThresholds {

  /** The thresholds of Spark's sort-merge join buffer, read on the driver from `conf`. */
  def ofSortMergeJoin(conf: SQLConf): SpillThresholds = SpillThresholds(
    conf.sortMergeJoinExecBufferInMemoryThreshold,
    conf.sortMergeJoinExecBufferSpillThreshold,
    RowArrays.spillBytes(conf)
  )
}

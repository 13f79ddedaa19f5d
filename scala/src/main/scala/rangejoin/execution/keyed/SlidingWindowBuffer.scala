package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.rangejoin.{SpillThresholds, SpillableRowArray}

/**
 * The build rows of a sliding window, first in first out: rows enter at the back in ascending
 * order of the window column and leave from the front. Rows live in a
 * [[org.apache.spark.sql.execution.rangejoin.SpillableRowArray]], so a huge window spills to disk
 * through Spark's memory manager instead of failing; leaving only moves a front index, and the
 * array is compacted once most of it has left.
 *
 * With `trackMatches`, each row carries whether some stream row matched it, for full outer joins.
 *
 * @param thresholds the spill thresholds of
 *                   [[org.apache.spark.sql.execution.rangejoin.SpillableRowArray]]
 */
final class SlidingWindowBuffer(thresholds: SpillThresholds, trackMatches: Boolean) {
  private var rows = new SpillableRowArray(thresholds)
  private var front = 0
  private var matched = new java.util.BitSet
  private var spilled = 0L

  /** Appends a copy of `row` at the back. */
  def add(row: UnsafeRow): Unit = rows.add(row)

  /**
   * One stream row's pass over the window (see [[Pass]]). Read its `leaving`, then its
   * `remaining`, both to their ends, before any other call: a spilled window's iterator holds its
   * spill files open until it ends.
   */
  def pass(leaves: UnsafeRow => Boolean): Pass = {
    compactIfMostlyGone()
    new Pass(leaves)
  }

  /** Empties the window; returns the rows that were in it with whether each was matched. */
  def drain(): Iterator[(UnsafeRow, Boolean)] =
    new Pass(_ => true).leaving ++ { clear(); Iterator.empty }

  /**
   * A pass over the window, front to back: `leaving` removes rows from the front while `leaves`
   * holds for them, giving each with whether it was matched; `remaining` then gives every row
   * left, and `markMatched()` marks the one it gave last.
   */
  final class Pass private[SlidingWindowBuffer] (leaves: UnsafeRow => Boolean) {
    private val it = rows.iterator(front).buffered
    // `leaving` has moved `front` past the rows it removed by the time `remaining` is read.
    private var last = -1

    val leaving: Iterator[(UnsafeRow, Boolean)] = new Iterator[(UnsafeRow, Boolean)] {
      def hasNext: Boolean = it.hasNext && leaves(it.head)
      def next(): (UnsafeRow, Boolean) = {
        if (!hasNext) throw new NoSuchElementException
        val wasMatched = trackMatches && matched.get(front)
        front += 1
        (it.next(), wasMatched)
      }
    }

    val remaining: Iterator[UnsafeRow] = it.map { row =>
      last = if (last < 0) front else last + 1
      row
    }

    def markMatched(): Unit = if (trackMatches) matched.set(last)
  }

  /** Bytes spilled to disk so far. */
  def spillSize: Long = spilled + rows.spillSize

  /** Empties the window without reading it. */
  def clear(): Unit = {
    spilled += rows.spillSize
    rows.clear()
    front = 0
    matched.clear()
  }

  private def compactIfMostlyGone(): Unit =
    if (front >= 4096 && front * 2 >= rows.length) {
      val kept = new SpillableRowArray(thresholds)
      rows.iterator(front).foreach(kept.add)
      if (trackMatches) matched = matched.get(front, rows.length)
      spilled += rows.spillSize
      rows.clear()
      rows = kept
      front = 0
    }
}

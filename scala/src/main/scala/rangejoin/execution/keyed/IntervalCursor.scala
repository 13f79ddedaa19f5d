package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * The walk over an [[IntervalIndex]] for one point at a time, which [[IntervalProbe]] and the
 * generated code of a broadcast keyed join drive: [[probe]] starts the walk for a point's group
 * ([[groupOfKeys]], [[groupOfValue]]) and code, and each [[next]] moves to the next interval that
 * holds the point, in descending order of lower bound, whose row [[row]] gives. The candidates
 * are the intervals of the group that start at or before the point, walked back until
 * [[IntervalIndex.reaches]] says that none before can end at or after it.
 *
 * @param walked counts the candidates walked
 */
final class IntervalCursor(index: IntervalIndex, walked: SQLMetric) {
  private val candidate = new UnsafeRow(index.byLower.rows.numFields)
  private var point = 0L
  private var position = -1 // the next candidate; below `stop` when the walk is over
  private var stop = 0

  /** The group of the key row `keys` (none NULL), or -1 if it has none. */
  def groupOfKeys(keys: UnsafeRow): Int = index.byLower.groupOfKeys(keys)

  /** The group of one integral key's `value`, or -1 if it has none. */
  def groupOfValue(value: Long): Int = index.byLower.groupOfValue(value)

  /** Starts the walk for `point` among the intervals of `group`; none when it is -1. */
  def probe(group: Int, p: Long): Unit =
    if (group < 0) {
      position = -1
      stop = 0
    } else {
      point = p
      stop = index.start(group)
      position = index.candidatesEnd(group, p) - 1
    }

  /** Moves to the next interval that holds the point: false when there is none. */
  def next(): Boolean = {
    while (position >= stop && index.reaches(position, point)) {
      walked += 1
      val at = position
      position -= 1
      if (index.admits(at, point)) {
        index.row(at, candidate)
        return true
      }
    }
    false
  }

  /** The row of the interval [[next]] moved to, valid until it moves again. */
  def row: UnsafeRow = candidate
}

package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.HeapBudget

/**
 * One input of a keyed point-in-interval join, indexed for lookups by key and point: an
 * [[AsOfIndex]] on the intervals' lower bounds (each key group in ascending order of lower bound)
 * and, per position, the largest upper bound of its group up to it (`reach`).
 *
 * The intervals of a group that may contain a point `p` are among those whose lower bound is at
 * most `p`, the prefix `[start(g), candidatesEnd(g, p))` of the group. Walking that prefix
 * backwards, the walk can stop at the first position whose `reach` is below `p`: `reach` does not
 * decrease along a group, so no interval at or before it ends at `p` or later. Where the
 * intervals of a key do not overlap (the versions of a type-2 dimension), the walk meets the one
 * interval that holds `p` and stops at the next: O(log n) per point. Overlapping intervals walk
 * further, but never past the intervals that start at or before the point, which a hash join on
 * the key compares with every point.
 *
 * Rows whose key or lower bound is NULL are left out (they meet no point); a NULL upper bound
 * reaches nothing. An open end's bound is never NULL ([[rangejoin.condition.NullAsBoundKey]]).
 */
final class IntervalIndex private (val byLower: AsOfIndex, reach: Array[Long]) {

  def group(key: UnsafeRow): Int = byLower.group(key)

  def numGroups: Int = byLower.numGroups

  def start(group: Int): Int = byLower.start(group)

  /** One past the last position of `group` whose lower bound is at most `point`. */
  def candidatesEnd(group: Int, point: Long): Int = {
    val codes = byLower.codes
    var lo = byLower.start(group)
    var hi = byLower.end(group)
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (codes(mid) <= point) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** Whether an interval at or before `position` in its group may end at `point` or later. */
  def reaches(position: Int, point: Long): Boolean = reach(position) >= point

  def row(position: Int, reuse: UnsafeRow): UnsafeRow = byLower.rows.row(position, reuse)

  def sizeInBytes: Long = byLower.rows.sizeInBytes + 16L * reach.length
}

object IntervalIndex {

  /**
   * Indexes `rows` in O(n) after hashing the keys ([[AsOfIndex.build]]), then one pass for the
   * running maximum of the upper bounds.
   */
  def build(
      rows: Iterator[InternalRow],
      keyOf: UnsafeProjection,
      keyTypes: Seq[DataType],
      lower: AsOfValue,
      upper: AsOfValue,
      types: Seq[DataType],
      budget: HeapBudget
  ): IntervalIndex = {
    val byLower = AsOfIndex.build(rows, keyOf, keyTypes, lower, types, budget)
    val n = byLower.codes.length
    budget.allocate(8L * n)
    val reach = new Array[Long](n)
    val row = new UnsafeRow(types.size)
    var g = 0
    while (g < byLower.numGroups) {
      var running = Long.MinValue
      var i = byLower.start(g)
      while (i < byLower.end(g)) {
        if (upper.of(byLower.rows.row(i, row))) running = math.max(running, upper.code)
        reach(i) = running
        i += 1
      }
      g += 1
    }
    new IntervalIndex(byLower, reach)
  }
}

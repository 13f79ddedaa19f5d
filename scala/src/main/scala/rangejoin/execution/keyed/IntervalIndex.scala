package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{HeapBudget, PackedRows}
import rangejoin.local.SortedSearch

/**
 * One bound of an interval, read from a row as the inclusive code of the points it admits: a
 * lower bound `l` admits points from `l` on (from `l + 1` when `strict`), an upper bound `u`
 * points up to `u` (up to `u - 1` when `strict`). A NULL bound admits every point when it is an
 * `open` end, and none otherwise. [[of]] is false when the bound admits no point.
 *
 * @param value the bound's column, bound to the row's columns
 */
final class IntervalBound(value: AsOfValue, isLower: Boolean, strict: Boolean, open: Boolean)
    extends RowCode {
  private var inclusive = 0L

  override def of(row: InternalRow): Boolean =
    if (!value.of(row)) {
      inclusive = if (isLower) Long.MinValue else Long.MaxValue
      open
    } else {
      val c = value.code
      inclusive = if (!strict) c else if (isLower) c + 1 else c - 1
      // A strict bound at the end of the codes' range admits nothing (and would wrap).
      !strict || c != (if (isLower) Long.MaxValue else Long.MinValue)
    }

  override def code: Long = inclusive
}

object IntervalBound {

  /** A bound's column, bound to the rows' columns, and how it compares: what a reader reads. */
  final case class Spec(column: Expression, strict: Boolean, open: Boolean) {

    /** A new reader of the bound: one per index build, as a reader keeps state. */
    def reader(isLower: Boolean): IntervalBound =
      new IntervalBound(new AsOfValue(column), isLower, strict, open)
  }
}

/**
 * One input of a keyed point-in-interval join, indexed for lookups by key and point: each
 * interval as the inclusive codes `[lower, upper]` of the points it admits ([[IntervalBound]]),
 * an [[AsOfIndex]] on the lower codes (each key group in ascending order), and per position the
 * upper code and the largest upper code of its group up to it (`reach`). An interval with a NULL
 * bound that is not an open end admits no point and is left out, as is one with a NULL key. An
 * interval with `lower > upper` admits no point either, but stays: no point is at least its lower
 * code and at most its upper code, so [[admits]] is false for every point it is a candidate for,
 * and rows that arrive grouped and in order (a broadcast sorted on the driver) stay in place
 * instead of being copied to leave it out.
 *
 * The intervals of a group that hold a point `p` are among those whose lower code is at most `p`,
 * the prefix `[start(g), candidatesEnd(g, p))` of the group, and they are exactly those of them
 * whose upper code is at least `p` ([[admits]]). Walking that prefix backwards, the walk can stop
 * at the first position whose `reach` is below `p`: `reach` does not decrease along a group, so no
 * interval at or before it ends at `p` or later. Where the intervals of a key do not overlap (the
 * versions of a type-2 dimension), the walk meets the one interval that holds `p` and stops at
 * the next: O(log n) per point. Overlapping intervals walk further, but never past the intervals
 * that start at or before the point, which a hash join on the key compares with every point.
 */
final class IntervalIndex private (
    val byLower: AsOfIndex,
    uppers: Array[Long],
    reach: Array[Long]
) {

  def start(group: Int): Int = byLower.start(group)

  /** One past the last position of `group` whose lower code is at most `point`. */
  def candidatesEnd(group: Int, point: Long): Int =
    SortedSearch.upperBound(byLower.codes, byLower.start(group), byLower.end(group), point)

  /** Whether an interval at or before `position` in its group may end at `point` or later. */
  def reaches(position: Int, point: Long): Boolean = reach(position) >= point

  /** Whether the interval at `position`, a candidate for `point`, holds it. */
  def admits(position: Int, point: Long): Boolean = uppers(position) >= point

  def row(position: Int, reuse: UnsafeRow): UnsafeRow = byLower.rows.row(position, reuse)

  def sizeInBytes: Long = byLower.rows.sizeInBytes + 24L * reach.length

  /** The intervals the build put in order: 0 when they arrived in order. */
  def sortedRows: Int = byLower.sortedRows

  /**
   * This index with each position's row replaced by its projection to `columns` (bound to the
   * rows' columns), allocated from `budget`, which the rows it replaces are freed from: for a
   * join whose output is exactly those columns, each match's row is then its output row. The
   * codes and bounds are unchanged: they were read from the rows before.
   */
  def projected(columns: Seq[Expression], budget: HeapBudget): IntervalIndex = {
    val rows = byLower.rows
    val projection = UnsafeProjection.create(columns)
    val n = rows.size
    // Room for the rows' fixed-width parts: exact for columns without variable-length values.
    val fixedBytes = n * (UnsafeRow.calculateBitSetWidthInBytes(columns.size) + 8L * columns.size)
    val packed = new PackedRows.Builder(
      columns.size,
      budget,
      initialRows = math.max(n, 1),
      initialBytes = math.max(8L, math.min(fixedBytes, Int.MaxValue / 2)).toInt
    )
    val row = new UnsafeRow(rows.numFields)
    var i = 0
    while (i < n) { packed += projection(rows.row(i, row)); i += 1 }
    budget.free(rows.sizeInBytes)
    new IntervalIndex(byLower.withRows(packed.result()), uppers, reach)
  }
}

object IntervalIndex {

  /**
   * Indexes `rows` in O(n) after hashing the keys ([[AsOfIndex.build]]), then one pass for the
   * upper codes and their running maximum.
   */
  def build(
      rows: Iterator[InternalRow],
      keys: Seq[Expression],
      lower: IntervalBound,
      upper: IntervalBound,
      types: Seq[DataType],
      budget: HeapBudget
  ): IntervalIndex = {
    val byLower = AsOfIndex.build(rows, keys, bounded(lower, upper), types, budget)
    withUppers(byLower, upper, budget)
  }

  /**
   * Indexes packed `rows` as [[build]] does, without copying them when they are in order already
   * and none is left out ([[AsOfIndex.build]]).
   */
  def build(
      rows: PackedRows,
      keys: Seq[Expression],
      lower: IntervalBound,
      upper: IntervalBound,
      budget: HeapBudget
  ): IntervalIndex = {
    val byLower = AsOfIndex.build(rows, keys, bounded(lower, upper), budget)
    withUppers(byLower, upper, budget)
  }

  /** An interval's lower code, read only from intervals whose two bounds each admit a point. */
  private def bounded(lower: IntervalBound, upper: IntervalBound): RowCode = new RowCode {
    def of(row: InternalRow): Boolean = lower.of(row) && upper.of(row)
    def code: Long = lower.code
  }

  private def withUppers(byLower: AsOfIndex, upper: IntervalBound, budget: HeapBudget)
      : IntervalIndex = {
    val n = byLower.codes.length
    budget.allocate(16L * n)
    val uppers = new Array[Long](n)
    val reach = new Array[Long](n)
    val row = new UnsafeRow(byLower.rows.numFields)
    var g = 0
    while (g < byLower.numGroups) {
      var running = Long.MinValue
      var i = byLower.start(g)
      while (i < byLower.end(g)) {
        upper.of(byLower.rows.row(i, row)) // true: the interval was kept
        uppers(i) = upper.code
        running = math.max(running, upper.code)
        reach(i) = running
        i += 1
      }
      g += 1
    }
    new IntervalIndex(byLower, uppers, reach)
  }
}

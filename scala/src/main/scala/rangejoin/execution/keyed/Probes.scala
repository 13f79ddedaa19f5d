package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{HeapBudget, PackedRows}

/**
 * The rows that probe an index grouped by key and ordered by a code within each group
 * ([[AsOfIndex]], [[IntervalIndex]]), each with its group and code.
 *
 * A cursor: [[advance]] moves to the next row, whose [[row]], [[group]] and [[code]] are valid
 * until it moves again.
 *
 * @param keys the probing rows' equality keys, bound to their columns
 * @param value the probing rows' code (an as-of value, a point)
 */
abstract class Probes(index: AsOfIndex, keys: Seq[Expression], value: RowCode) {
  protected final val key: GroupKey = index.keys(keys)

  /** Moves to the next row; false when there is none. */
  def advance(): Boolean

  /** The current row. */
  def row: InternalRow

  /** The current row's group in the index, or -1 if it has none. */
  var group: Int = -1

  /** The current row's code, if it has a group. */
  var code: Long = 0L

  /**
   * The group of `probing` in the index, or -1 when it has none (a NULL key or value, or a key
   * the index lacks); when it has one, `value.code` is its code until `value` reads another row.
   */
  protected final def locate(probing: InternalRow): Int = {
    val g = key.groupOf(probing)
    if (g < 0 || !value.of(probing)) -1 else g
  }

  /**
   * [[locate]] for each of the first `n` rows of `rows`: its group into `groups`, and when it has
   * one, its code into `codes`. The keys are looked up first, all of them, and only rows with a
   * group are read for their codes, as [[locate]] reads them.
   */
  protected final def locateAll(
      rows: PackedRows,
      n: Int,
      groups: Array[Int],
      codes: Array[Long]
  ): Unit = {
    key.groupsOf(rows, n, groups, codes)
    val row = new UnsafeRow(rows.numFields)
    var i = 0
    while (i < n) {
      if (groups(i) >= 0) {
        if (value.of(rows.row(i, row))) codes(i) = value.code else groups(i) = -1
      }
      i += 1
    }
  }
}

object Probes {

  /**
   * The probes of `rows`: as they arrive when the whole index fits in one of its `regions`
   * ([[ProbeStream]]), else in batches put in order of region ([[ProbeBatches]]).
   *
   * @param types the probing rows' column types
   * @param budget what batches allocate from
   * @param carried whether the rows' columns are read after their probes ([[ProbeBatches]])
   */
  def apply(
      index: AsOfIndex,
      regions: ProbeRegions,
      keys: Seq[Expression],
      value: RowCode,
      types: Seq[DataType],
      budget: HeapBudget,
      rows: Iterator[InternalRow],
      carried: Boolean = true
  ): Probes =
    if (regions.count == 1) new ProbeStream(index, keys, value, rows)
    else new ProbeBatches(index, regions, keys, value, types, budget, rows, carried)
}

/**
 * The probing rows in the order they arrive, none copied: each row is the input's own, valid
 * until the next [[advance]]. For an index that fits in the cache, where the order of the probes
 * does not change which of its bytes are cached.
 */
final class ProbeStream(
    index: AsOfIndex,
    keys: Seq[Expression],
    value: RowCode,
    rows: Iterator[InternalRow]
) extends Probes(index, keys, value) {
  private var current: InternalRow = _

  def row: InternalRow = current

  def advance(): Boolean = rows.hasNext && {
    current = rows.next()
    group = locate(current)
    if (group >= 0) code = value.code
    true
  }
}

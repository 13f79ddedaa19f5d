package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{HeapBudget, PackedRows}
import rangejoin.local.{GroupedOrder, RadixSort}

/**
 * The rows that probe an index grouped by key and ordered by a code within each group
 * ([[AsOfIndex]], [[IntervalIndex]]), a batch at a time, each batch in the index's order: up to
 * [[ProbeBatches.BatchRows]] rows (and [[ProbeBatches.BatchBytes]]) are copied, looked up, put in
 * order of group, then code ([[rangejoin.local.GroupedOrder]]), and copied in that order, so that
 * successive probes read neighbouring codes and rows of the index, and of the batch, instead of
 * jumping across them (an index larger than the cache, probed in arrival order, misses the cache
 * at about every step). Rows come out in that order, which Spark does not promise for a join
 * anyway; rows with no group (a NULL key or value, or a key the index lacks) come first.
 *
 * A cursor: [[advance]] moves to the next row, whose [[row]], [[group]] and [[code]] are valid
 * until it moves again.
 *
 * @param groupOf the index's group for a key row, or -1
 * @param numGroups the index's number of groups
 * @param keyOf the probing rows' equality keys
 * @param value the probing rows' code (an as-of value, a point)
 * @param types the probing rows' column types
 */
final class ProbeBatches(
    groupOf: UnsafeRow => Int,
    numGroups: Int,
    keyOf: UnsafeProjection,
    value: AsOfValue,
    types: Seq[DataType],
    budget: HeapBudget,
    rows: Iterator[InternalRow]
) {
  private val toUnsafe = UnsafeProjection.create(types.toArray)
  private var batch: PackedRows = _
  private val groupsIn = new Array[Int](ProbeBatches.BatchRows)
  private val codesIn = new Array[Long](ProbeBatches.BatchRows)
  private var groups = Array.emptyIntArray
  private var codes = Array.emptyLongArray
  private var position = 0

  /** The current row. */
  val row = new UnsafeRow(types.size)

  /** The current row's group in the index, or -1 if it has none. */
  var group: Int = -1

  /** The current row's code, if it has a group. */
  var code: Long = 0L

  /** Moves to the next row; false when there is none. */
  def advance(): Boolean =
    if (position >= groups.length && !refill()) false
    else {
      group = groups(position) - 1
      code = codes(position)
      batch.row(position, row)
      position += 1
      true
    }

  /** Reads the next batch; false when there are no rows left. */
  private def refill(): Boolean = {
    if (batch != null) budget.free(batch.sizeInBytes)
    batch = null
    if (!rows.hasNext) return false
    val packed = new PackedRows.Builder(types.size, budget)
    var n = 0
    while (n < ProbeBatches.BatchRows && packed.bytes < ProbeBatches.BatchBytes && rows.hasNext) {
      val next = rows.next()
      val key = keyOf(next)
      // Group + 1: rows with no group sort first, as group 0.
      val g = if (key.anyNull || !value.of(next)) 0 else groupOf(key) + 1
      groupsIn(n) = g
      codesIn(n) = if (g == 0) 0L else value.code
      packed += (next match {
        case unsafe: UnsafeRow => unsafe
        case other => toUnsafe(other)
      })
      n += 1
    }
    val arrived = packed.result()
    val order = GroupedOrder(codesIn.take(n), groupsIn.take(n), numGroups + 1)._1
    // Copied into that order, so that the probes read the batch in sequence too.
    batch = arrived.permuted(order, budget)
    budget.free(arrived.sizeInBytes)
    groups = new Array[Int](n)
    var i = 0
    while (i < n) { groups(i) = groupsIn(order(i)); i += 1 }
    codes = RadixSort.gather(codesIn, order)
    position = 0
    true
  }
}

object ProbeBatches {

  /**
   * Rows per batch at most: many, so that a batch's probes fall close together in an index of
   * a million rows (measured on the suite's scd2 workload against batches of 65,536 rows).
   */
  val BatchRows: Int = 1 << 20

  /** Bytes of rows per batch at most, so that wide rows make shorter batches. */
  val BatchBytes: Int = 32 << 20
}

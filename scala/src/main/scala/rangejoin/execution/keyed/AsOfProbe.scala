package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{HeapBudget, PackedRows}
import rangejoin.local.GroupedOrder

/**
 * Streams an as-of join's left rows through an [[AsOfIndex]], a batch at a time: each batch of
 * up to [[AsOfProbe.BatchRows]] rows is copied, put in the index's order (by key group, then
 * as-of code: [[rangejoin.local.GroupedOrder]]) and searched in that order, so that successive
 * searches read neighbouring codes and rows of the index instead of jumping across it (an index
 * larger than the cache, searched in arrival order, misses the cache at about every step).
 * Output rows come out in that order, which Spark does not promise for a join anyway.
 *
 * @param keyOf the left rows' equality keys
 * @param asOf the left rows' as-of value
 * @param types the left rows' column types
 * @param emit the output row for a left row and its answer's position in the index (-1: none),
 *   or null when the join drops the row
 */
final class AsOfProbe(
    index: AsOfIndex,
    search: AsOfSearch,
    keyOf: UnsafeProjection,
    asOf: AsOfValue,
    types: Seq[DataType],
    budget: HeapBudget,
    emit: (InternalRow, Int) => InternalRow
) {
  private val toUnsafe = UnsafeProjection.create(types.toArray)

  def join(lefts: Iterator[InternalRow]): Iterator[InternalRow] = new Iterator[InternalRow] {
    private var batch: PackedRows = _
    private var groups = Array.emptyIntArray
    private var codes = Array.emptyLongArray
    private var order = Array.emptyIntArray
    private var position = 0
    private var pending: InternalRow = _
    private val row = new UnsafeRow(types.size)

    override def hasNext: Boolean = {
      while (pending == null && (position < order.length || refill())) {
        val i = order(position)
        position += 1
        val g = groups(i)
        batch.row(i, row)
        pending = emit(row, if (g < 0) -1 else search.nearest(row, codes(i), index, g))
      }
      pending != null
    }

    override def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException
      val out = pending
      pending = null
      out
    }

    /** Reads the next batch of left rows; false when there are none. */
    private def refill(): Boolean = {
      if (batch != null) budget.free(batch.sizeInBytes)
      if (!lefts.hasNext) return false
      val rows = new PackedRows.Builder(types.size, budget)
      val groupOf = Array.newBuilder[Int]
      val codeOf = Array.newBuilder[Long]
      while (rows.size < AsOfProbe.BatchRows && lefts.hasNext) {
        val left = lefts.next()
        val key = keyOf(left)
        val g = if (key.anyNull || !asOf.of(left)) -1 else index.group(key)
        groupOf += g
        codeOf += (if (g < 0) 0L else asOf.code)
        rows += (left match {
          case unsafe: UnsafeRow => unsafe
          case other => toUnsafe(other)
        })
      }
      batch = rows.result()
      groups = groupOf.result()
      codes = codeOf.result()
      // Rows with no group (NULL key or as-of value, or a key the right side lacks) go first.
      order = GroupedOrder(codes, groups.map(_ + 1), index.numGroups + 1)._1
      position = 0
      true
    }
  }
}

object AsOfProbe {

  /** Left rows searched per batch: a few megabytes, enough to walk the index in order. */
  val BatchRows: Int = 65536
}

package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{HeapBudget, PackedRows}

/**
 * The rows that probe an index ([[Probes]]) a batch at a time, each batch in order of the index's
 * [[ProbeRegions]]: up to [[ProbeBatches.BatchRows]] rows (and [[ProbeBatches.BatchBytes]]) are
 * copied as they arrive, then looked up in a pass over the batch for each step (their groups,
 * their codes, their regions: the lookups of one pass do not wait for one another, so the cache
 * misses of an index larger than the cache overlap instead of stalling each row in turn), then
 * copied once more, region by region ([[rangejoin.execution.blocks.PackedRows#bucketed]]), so
 * that the probes read the batch in sequence and the index about in order, region after region
 * (an index larger than the cache, probed in arrival order, misses it at about every step).
 * Within a region, rows keep the order in which they arrived; Spark does not promise the order of
 * a join's output anyway. Rows with no group (a NULL key or value, or a key the index lacks) go
 * with the first region.
 *
 * The batch and its arrays are allocated from `budget`, and freed once the rows run out.
 *
 * @param types the probing rows' column types
 */
final class ProbeBatches(
    index: AsOfIndex,
    regions: ProbeRegions,
    keys: Seq[Expression],
    value: RowCode,
    types: Seq[DataType],
    budget: HeapBudget,
    rows: Iterator[InternalRow]
) extends Probes(index, keys, value) {
  private val toUnsafe = UnsafeProjection.create(types.toArray)
  private var batch: PackedRows = _
  // Each arrived row's group (-1: none), code and region (then its place in the batch's order),
  // grown as batches need; then the groups and codes in the batch's order.
  private var groupsIn = Array.emptyIntArray
  private var codesIn = Array.emptyLongArray
  private var regionsIn = Array.emptyIntArray
  private var groups = Array.emptyIntArray
  private var codes = Array.emptyLongArray
  // The arrays' bytes per row of room: group, code and region as they arrive, then the groups
  // and codes again in the batch's order.
  private val bytesPerRow = 28L
  private var size = 0
  private var position = 0
  // The last batch's rows and bytes: the next batch's builder starts with room for as many.
  private var lastRows = PackedRows.InitialRows
  private var lastBytes = PackedRows.InitialBytes

  /** The current row, pointed into the batch. */
  val row = new UnsafeRow(types.size)

  def advance(): Boolean =
    if (position >= size && !refill()) false
    else {
      group = groups(position)
      code = codes(position)
      batch.row(position, row)
      position += 1
      true
    }

  /** Reads the next batch; false, with everything freed, when there are no rows left. */
  private def refill(): Boolean = {
    if (batch != null) budget.free(batch.sizeInBytes)
    batch = null
    if (!rows.hasNext) {
      budget.free(bytesPerRow * groupsIn.length)
      groupsIn = Array.emptyIntArray
      codesIn = Array.emptyLongArray
      regionsIn = Array.emptyIntArray
      groups = Array.emptyIntArray
      codes = Array.emptyLongArray
      return false
    }
    val packed = new PackedRows.Builder(types.size, budget, lastRows, lastBytes)
    var n = 0
    while (n < ProbeBatches.BatchRows && packed.bytes < ProbeBatches.BatchBytes && rows.hasNext) {
      if (n == groupsIn.length) grow()
      packed += (rows.next() match {
        case unsafe: UnsafeRow => unsafe
        case other => toUnsafe(other)
      })
      n += 1
    }
    lastRows = n
    lastBytes = packed.bytes
    val arrived = packed.result(trim = false)
    locateAll(arrived, n, groupsIn, codesIn)
    var r = 0
    while (r < n) {
      val g = groupsIn(r)
      regionsIn(r) = if (g < 0) 0 else regions.of(g, codesIn(r))
      r += 1
    }
    // Each row's region is replaced by its place in the batch's order.
    val moved = regionsIn
    batch = arrived.bucketed(regionsIn, regions.count, moved, budget)
    budget.free(arrived.sizeInBytes)
    var i = 0
    while (i < n) {
      groups(moved(i)) = groupsIn(i)
      codes(moved(i)) = codesIn(i)
      i += 1
    }
    size = n
    position = 0
    true
  }

  /** Doubles the room of the arrays, up to a batch's rows. */
  private def grow(): Unit = {
    val rows = math.min(ProbeBatches.BatchRows, math.max(1024, 2 * groupsIn.length))
    budget.allocate(bytesPerRow * (rows - groupsIn.length))
    groupsIn = java.util.Arrays.copyOf(groupsIn, rows)
    codesIn = java.util.Arrays.copyOf(codesIn, rows)
    regionsIn = java.util.Arrays.copyOf(regionsIn, rows)
    groups = new Array[Int](rows)
    codes = new Array[Long](rows)
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

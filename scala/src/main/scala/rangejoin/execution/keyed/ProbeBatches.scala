package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Expression,
  GenericInternalRow,
  UnsafeProjection,
  UnsafeRow
}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{BucketOrder, HeapBudget, PackedRows}

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
 * Where nothing reads the probing rows' columns once they have probed (`carried` false: the
 * join's output and residual read none of them, as in an aggregate of the other input's columns
 * only), a batch keeps only the rows' groups and codes in region order, and [[row]] is a
 * placeholder whose columns must not be read ([[ProbeBatches.Uncarried]]): the rows are never
 * copied into region order. When, too, the code is a column of the rows (reading it cannot fail),
 * each row's keys and code are read as it arrives and the row is not copied at all; otherwise the
 * rows are packed for the lookups, which read a row's code only once its key found a group.
 *
 * The batch and its arrays are allocated from `budget`, and freed once the rows run out.
 *
 * @param types the probing rows' column types
 * @param carried whether the rows' columns are read after their probes
 */
final class ProbeBatches(
    index: AsOfIndex,
    regions: ProbeRegions,
    keys: Seq[Expression],
    value: RowCode,
    types: Seq[DataType],
    budget: HeapBudget,
    rows: Iterator[InternalRow],
    carried: Boolean
) extends Probes(index, keys, value) {
  private lazy val toUnsafe = UnsafeProjection.create(types.toArray)
  private var batch: PackedRows = _
  // The batch's rows as they arrived, packed for their lookups; null once they are done.
  private var arrived: PackedRows = _
  // Each arrived row's group (-1: none), code and region (then its place in the batch's order),
  // grown as batches need; then the groups and codes in the batch's order.
  private var groupsIn = Array.emptyIntArray
  private var codesIn = Array.emptyLongArray
  private var regionsIn = Array.emptyIntArray
  private var groups = Array.emptyIntArray
  private var codes = Array.emptyLongArray
  // Whether rows are read for their keys and code as they arrive, and not copied.
  private val readOnArrival = !carried && value.readsColumn
  // Each arrived row's keys, when they are read on arrival and looked up once the batch is read.
  private var keysIn = Array.emptyLongArray
  // The arrays' bytes per row of room: group, code, region (and keys, read on arrival) as they
  // arrive, then the groups and codes again in the batch's order.
  private val bytesPerRow = if (readOnArrival) 36L else 28L
  private var size = 0
  private var position = 0
  // The last batch's rows and bytes: the next batch's builder starts with room for as many.
  private var lastRows = PackedRows.InitialRows
  private var lastBytes = PackedRows.InitialBytes

  private val carriedRow = new UnsafeRow(types.size)

  /** The current row, pointed into the batch; a placeholder unless the rows are `carried`. */
  val row: InternalRow = if (carried) carriedRow else new ProbeBatches.Uncarried(types.size)

  def advance(): Boolean =
    if (position >= size && !refill()) false
    else {
      group = groups(position)
      code = codes(position)
      if (carried) batch.row(position, carriedRow)
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
      keysIn = Array.emptyLongArray
      groups = Array.emptyIntArray
      codes = Array.emptyLongArray
      return false
    }
    val n = if (readOnArrival) readArriving() else packArriving()
    var r = 0
    while (r < n) {
      val g = groupsIn(r)
      regionsIn(r) = if (g < 0) 0 else regions.of(g, codesIn(r))
      r += 1
    }
    // Each row's region is replaced by its place in the batch's order.
    val moved = regionsIn
    if (carried) batch = arrived.bucketed(regionsIn, regions.count, moved, budget)
    else BucketOrder.place(regionsIn, n, regions.count, moved)
    if (arrived != null) budget.free(arrived.sizeInBytes)
    arrived = null
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

  /**
   * Packs the next batch's rows into `arrived` and looks them up: their groups and codes into
   * `groupsIn` and `codesIn`. Returns the batch's rows.
   */
  private def packArriving(): Int = {
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
    arrived = packed.result(trim = false)
    locateAll(arrived, n, groupsIn, codesIn)
    n
  }

  /**
   * Reads the next batch's rows for their keys and codes as they arrive (keys that look their
   * groups up in a pass of their own, after the batch: [[GroupKey#collect]]), into `groupsIn`
   * and `codesIn`, as [[packArriving]] finds them. Returns the batch's rows.
   */
  private def readArriving(): Int = {
    var n = 0
    while (n < ProbeBatches.BatchRows && rows.hasNext) {
      if (n == groupsIn.length) grow()
      val row = rows.next()
      key.collect(row, n, groupsIn, keysIn)
      if (groupsIn(n) >= 0) {
        if (value.of(row)) codesIn(n) = value.code else groupsIn(n) = -1
      }
      n += 1
    }
    key.findCollected(n, groupsIn, keysIn)
    n
  }

  /** Doubles the room of the arrays, up to a batch's rows. */
  private def grow(): Unit = {
    val rows = math.min(ProbeBatches.BatchRows, math.max(1024, 2 * groupsIn.length))
    budget.allocate(bytesPerRow * (rows - groupsIn.length))
    groupsIn = java.util.Arrays.copyOf(groupsIn, rows)
    codesIn = java.util.Arrays.copyOf(codesIn, rows)
    regionsIn = java.util.Arrays.copyOf(regionsIn, rows)
    if (readOnArrival) keysIn = java.util.Arrays.copyOf(keysIn, rows)
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

  /**
   * The row of a batch that keeps no columns: as many columns as the probing rows, none of which
   * may be read. Reading one is a bug in the caller, which fails here instead of reading another
   * row's bytes.
   */
  final class Uncarried(numFields: Int) extends GenericInternalRow(numFields) {
    override protected def genericGet(ordinal: Int): Any = unread()
    override def isNullAt(ordinal: Int): Boolean = unread()
    override def copy(): GenericInternalRow = unread()
    override def toSeq(fieldTypes: Seq[DataType]): Seq[Any] = unread()

    private def unread(): Nothing =
      throw new IllegalStateException("A probing row's columns were read after they were dropped.")
  }
}

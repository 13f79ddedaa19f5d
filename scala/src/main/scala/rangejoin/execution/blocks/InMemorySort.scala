package rangejoin.execution.blocks

import scala.annotation.tailrec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.rangejoin.RecordSpills
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.unsafe.Platform
import org.apache.spark.util.collection.unsafe.sort.RecordComparator

import rangejoin.local.RadixSort

/**
 * Cuts one partition into [[BlockLoader]]'s blocks in memory, when it fits, at a fraction of the
 * external sorter's cost: the rows are kept as they are and their keys in columns, key 0's codes
 * are radix-sorted, and each block's rows and keys are gathered in that order.
 *
 *  1. [[fill]] keeps each row's columns in one of two packed buffers, the rows with a NULL key
 *     and the others, and the others' keys in one column per key, in arrival order; rows of a
 *     column batch without NULL keys are written from its columns ([[FixedWidthRows]]). It reserves
 *     the memory from `memory` first, with room for the sort's arrays and a copy. It stops taking
 *     rows at `maxRows` or when the memory manager refuses; the loader then hands what it took
 *     ([[taken]]: after a refusal through a spill file, so that its memory is given back first)
 *     and the rest of its input to Spark's external sorter instead.
 *  1. [[blocks]] radix-sorts key 0's codes (stable: rows with equal key 0 stay in arrival order)
 *     and cuts blocks of `blockRows` rows in that order, after the blocks of rows with a NULL
 *     key (in the total order). A block's rows are read from a copy grouped in chunks of
 *     consecutive positions ([[PackedRows.chunked]]), so that the gather does not miss the cache
 *     on every row; its key 0 is a slice of the sorted codes and its other keys are selected
 *     from their columns.
 *  1. Only the rows that fall on each side of a block boundary depend on how equal keys are
 *     ordered. So a run of equal key-0 codes that crosses a boundary (a multiple of `blockRows`)
 *     is sorted by the loader's total order on records: every block then holds exactly the rows
 *     the total order (and so the external sorter) puts in it. Inside a block, rows with equal
 *     key 0 may come in any order.
 *
 * @param numFields the rows' columns
 * @param rowKeys reads a row's keys
 * @param columnsOf projects a row that is not already an unsafe row of `numFields` columns
 * @param toRecord projects a row to the loader's record: its keys, then its columns
 * @param encoders each key's encoder; key 0's gives the `key0` code
 * @param order the loader's total order on records
 * @param ordersKey1 give each block its [[Block.key1Order]]
 * @param fixedWidth writes the rows of column batches, when every column has a fixed width
 */
final class InMemorySort(
    numFields: Int,
    rowKeys: RowKeys,
    columnsOf: UnsafeProjection,
    toRecord: UnsafeProjection,
    encoders: Seq[KeyEncoder],
    order: RecordComparator,
    blockRows: Int,
    maxRows: Int,
    ordersKey1: Boolean,
    memory: LoadMemory,
    fixedWidth: Option[FixedWidthRows]
) {
  private val numKeys = encoders.length
  private var matchable: PackedRows.Builder = _
  private var nullKeys: PackedRows.Builder = _
  private var keyColumns: Array[KeyColumnBuilder] = _
  private var refused: Option[UnsafeRow] = None // the record of the row that was not taken
  private var refusedMemory = false // whether fill stopped because memory was refused

  /**
   * Takes rows until they end (true), or until `maxRows` are held or memory is refused (false:
   * [[taken]] then gives the records of what was taken, and the rows not taken are the rest of
   * `rows`). Rows that come as column batches ([[BatchRows]]) and have a fixed width are taken a
   * batch at a time, written straight from the batch's columns, when the batch has no NULL key.
   */
  def fill(rows: Iterator[InternalRow]): Boolean = {
    try {
      matchable = new PackedRows.Builder(numFields, memory)
      nullKeys = new PackedRows.Builder(numFields, memory)
      keyColumns = encoders.map(_.newBuilder(memory)).toArray
    } catch { case LoadMemory.Refused => refusedMemory = true; return false }
    val batches = rows match {
      case b: BatchRows if fixedWidth.isDefined && rowKeys.inPlace => b
      case _ => null
    }
    @tailrec def from(taken: Long): Boolean = {
      val batch = if (batches == null) null else batches.wholeBatch
      if (batch != null && taken + batch.numRows <= maxRows && !anyNullKey(batch)) {
        if (!takeWhole(batch)) false
        else {
          batches.skipBatch()
          from(taken + batch.numRows)
        }
      } else if (!rows.hasNext) true
      else if (!take(rows.next(), taken)) false
      else from(taken + 1)
    }
    from(0L)
  }

  /**
   * Takes one row (true), or not because `maxRows` are held or memory is refused (false, and
   * `refused` holds its record).
   */
  private def take(row: InternalRow, taken: Long): Boolean = {
    if (taken >= maxRows) { refused = Some(toRecord(row).copy()); return false }
    try {
      val keys = rowKeys.of(row)
      val columns = row match {
        case unsafe: UnsafeRow if unsafe.numFields == numFields => unsafe
        case _ => columnsOf(row)
      }
      if (rowKeys.anyNull(keys)) nullKeys += columns
      else {
        memory.allocate(InMemorySort.SortBytesPerRow + columns.getSizeInBytes)
        // Keys first: when memory is refused, the row is not in `matchable`, which is what
        // [[taken]] reads (it ignores the key columns).
        var k = 0
        while (k < numKeys) { keyColumns(k).add(keys, rowKeys.ordinals(k)); k += 1 }
        matchable += columns
      }
      true
    } catch {
      case LoadMemory.Refused =>
        refused = Some(toRecord(row).copy())
        refusedMemory = true
        false
    }
  }

  /**
   * Takes every row of `batch`, whose keys are all non-NULL, writing them straight from its
   * columns (true); or none when memory is refused (false: the batch is still the input's next).
   */
  private def takeWhole(batch: ColumnarBatch): Boolean =
    try {
      val rows = batch.numRows
      memory.allocate(rows * (InMemorySort.SortBytesPerRow + fixedWidth.get.rowBytes))
      var k = 0
      while (k < numKeys) {
        var i = 0
        while (i < rows) { keyColumns(k).add(batch.getRow(i), rowKeys.ordinals(k)); i += 1 }
        k += 1
      }
      // Rows last, all at once: `matchable` holds all of them or none ([[taken]] reads it).
      fixedWidth.get.append(batch, matchable)
      true
    } catch { case LoadMemory.Refused => refusedMemory = true; false }

  private def anyNullKey(batch: ColumnarBatch): Boolean =
    rowKeys.ordinals.exists(batch.column(_).hasNull)

  /**
   * The records of the rows taken, in any order, for the external sorter, and the bytes spilled
   * to hand them over, once [[fill]] stopped early; `release` gives back the memory they held.
   * When memory was refused, they are written to a local spill file and `release` is called
   * before they are read back: the external sorter then finds the memory this load was refused.
   * When `maxRows` stopped the load, they are read from memory, which is released once they are.
   */
  def taken(release: () => Unit): (Iterator[UnsafeRow], Long) = {
    val held = Seq(matchable, nullKeys).filter(_ != null)
    matchable = null
    nullKeys = null
    keyColumns = null
    val row = new UnsafeRow(numFields)
    val records = held.iterator.flatMap { rows =>
      Iterator.range(0, rows.size).map(i => toRecord(rows.row(i, row)))
    } ++ refused
    if (refusedMemory) {
      val spill =
        RecordSpills.spill(records, held.map(_.size).sum + refused.size, numKeys + numFields)
      release()
      spill
    } else (InMemorySort.releasedAtEnd(records, release), 0L)
  }

  /**
   * The blocks, once [[fill]] took every row: those of rows with a NULL key first, then the
   * others in key-0 order. `release` is called after the last one.
   */
  def blocks(release: () => Unit): Iterator[Block] = {
    memory.settle()
    val withNull = nullKeys.result()
    val keys = keyColumns.map(_.result())
    val rest = matchable.result(trim = false) // copied just below; the blocks do not hold it
    val (sorted, key0) = byKey0(rest, keys(0).asInstanceOf[LongCodes].codes)
    val (chunked, mapped) = rest.chunked(sorted, HeapBudget.Unaccounted) // reserved by fill
    nullKeys = null
    matchable = null
    keyColumns = null
    val nullOrder = byRecordOrder(withNull, Array.range(0, withNull.size), 0, withNull.size)
    val noKeys = encoders.map(_.newBuilder(HeapBudget.Unaccounted).result()).toArray
    val noRows = PackedRows.empty(numFields)
    val nullBlocks = cuts(withNull.size).map { case (from, until) =>
      val rows = withNull.select(nullOrder, from, until, HeapBudget.Unaccounted)
      new Block(noRows, noKeys, Array.emptyIntArray, rows)
    }
    val matchBlocks = cuts(chunked.size).map { case (from, until) =>
      val blockKeys = LongCodes(java.util.Arrays.copyOfRange(key0, from, until)) +:
        keys.tail.map(_.select(sorted, from, until, HeapBudget.Unaccounted))
      val rows = chunked.select(mapped, from, until, HeapBudget.Unaccounted)
      new Block(
        rows,
        blockKeys,
        Block.key1Order(blockKeys, ordersKey1, HeapBudget.Unaccounted),
        noRows
      )
    }
    InMemorySort.releasedAtEnd(nullBlocks ++ matchBlocks, release)
  }

  /** `[from, until)` of each block of `rows` rows: `blockRows` each, the last fewer. */
  private def cuts(rows: Int): Iterator[(Int, Int)] =
    Iterator.range(0, rows, blockRows).map(from => (from, math.min(rows, from + blockRows)))

  /**
   * Row indices of `rows` by key 0, with the runs that cross a block boundary in total order, and
   * key 0's codes in that order.
   */
  private def byKey0(rows: PackedRows, codes: Array[Long]): (Array[Int], Array[Long]) = {
    val n = rows.size
    val RadixSort.Sorted(sortedRows, sortedCodes) = RadixSort.sort(codes)
    var boundary = blockRows
    while (boundary < n) {
      val code = sortedCodes(boundary)
      if (sortedCodes(boundary - 1) == code) {
        var from = boundary - 1
        while (from > 0 && sortedCodes(from - 1) == code) from -= 1
        var until = boundary + 1
        while (until < n && sortedCodes(until) == code) until += 1
        byRecordOrder(rows, sortedRows, from, until)
        boundary = until - until % blockRows + blockRows // the next boundary past the run
      } else boundary += blockRows
    }
    (sortedRows, sortedCodes) // reordering runs of equal codes leaves the codes as they were
  }

  /**
   * Sorts `indices(from until until)`, row indices of `rows`, by the total order on the rows'
   * records; returns `indices`.
   */
  private def byRecordOrder(rows: PackedRows, indices: Array[Int], from: Int, until: Int)
      : Array[Int] = {
    val records = new PackedRows.Builder(numKeys + numFields, HeapBudget.Unaccounted)
    val row = new UnsafeRow(numFields)
    var i = from
    while (i < until) { records += toRecord(rows.row(indices(i), row)); i += 1 }
    val run = records.result(trim = false)
    def base(k: Int) = Platform.BYTE_ARRAY_OFFSET + run.offsets(k)
    def length(k: Int) = run.offsets(k + 1) - run.offsets(k)
    val inOrder = Array.range(0, until - from).sortWith { (a, b) =>
      order.compare(run.data, base(a), length(a), run.data, base(b), length(b)) < 0
    }
    val reordered = inOrder.map(k => indices(from + k))
    System.arraycopy(reordered, 0, indices, from, reordered.length)
    indices
  }
}

object InMemorySort {

  /**
   * Bytes reserved per row for [[InMemorySort.blocks]]' arrays besides the row's copy and keys:
   * the radix sort's (two copies of codes and of indices at most: 24), or after it its result
   * (sorted codes and indices: 12) with the chunked copy's index arrays (12); 36 leaves a margin.
   */
  private val SortBytesPerRow = 36L

  /** `items`, calling `release` once when they run out. */
  private def releasedAtEnd[A](items: Iterator[A], release: () => Unit): Iterator[A] =
    new Iterator[A] {
      private var open = true
      def hasNext: Boolean = {
        val more = items.hasNext
        if (!more && open) { open = false; release() }
        more
      }
      def next(): A = items.next()
    }
}

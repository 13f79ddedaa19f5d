package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform
import org.apache.spark.util.collection.unsafe.sort.RecordComparator

import rangejoin.local.RadixSort

/**
 * Sorts one partition's records for [[BlockLoader]] in memory, when they fit, into an order that
 * cuts into the same blocks as the loader's total order (see [[BlockLoader]]) at a fraction of a
 * comparison sort's cost.
 *
 *  1. [[fill]] copies records into two packed buffers, those with a NULL key and the others,
 *     reserving the memory from `memory` first, with room for the sort's arrays and a copy. It
 *     stops taking records at `maxRows` or when the memory manager refuses, and then the loader
 *     hands [[buffered]] and the rest of its input to Spark's external sorter instead.
 *  1. [[sorted]] puts the records with a NULL key first, in `order`, then radix-sorts the others
 *     on key 0's code (stable, so rows with equal key 0 stay in arrival order).
 *  1. The cut then reads the records in that order from a copy grouped in chunks of
 *     consecutive positions ([[PackedRows.chunked]]), so that it does not miss the cache on
 *     every row.
 *  1. Only the rows that fall on each side of a block boundary depend on how equal keys are
 *     ordered. So a run of equal key-0 codes that crosses a boundary (a multiple of `blockRows`
 *     after the NULL-key records) is sorted by `order`: every block then holds exactly the rows
 *     the total order puts in it. Inside a block, rows with equal key 0 may come in any order.
 *
 * @param numFields the records' fields: the keys, then the row's columns
 * @param hasNullKey whether a record has a NULL key
 * @param key0 the code of key 0 (a record's field 0) when it is not NULL
 * @param order the loader's total order on records
 */
final class InMemorySort(
    numFields: Int,
    hasNullKey: UnsafeRow => Boolean,
    key0: KeyCode,
    order: RecordComparator,
    blockRows: Int,
    maxRows: Int,
    memory: LoadMemory
) {
  private var matchable: PackedRows.Builder = _
  private var nullKeys: PackedRows.Builder = _
  private var refused: Option[UnsafeRow] = None // a copy of the record that was not taken

  /**
   * Takes records until they end (true), or until `maxRows` are held or memory is refused
   * (false: [[buffered]] then gives what was taken, and the records not taken are the rest of
   * `records`).
   */
  def fill(records: Iterator[UnsafeRow]): Boolean = {
    try {
      matchable = new PackedRows.Builder(numFields, memory)
      nullKeys = new PackedRows.Builder(numFields, memory)
    } catch { case LoadMemory.Refused => return false }
    var rows = 0L
    while (records.hasNext) {
      val record = records.next()
      if (rows >= maxRows) { refused = Some(record.copy()); return false }
      try {
        if (hasNullKey(record)) nullKeys += record
        else {
          // Room for the sort's arrays and the record's place in the chunked copy.
          memory.allocate(InMemorySort.SortBytesPerRow + 4L + record.getSizeInBytes)
          matchable += record
        }
      } catch { case LoadMemory.Refused => refused = Some(record.copy()); return false }
      rows += 1
    }
    true
  }

  /** The records taken, in arrival order within each buffer, for the external sorter. */
  def buffered: Iterator[UnsafeRow] = {
    val taken = Seq(matchable, nullKeys).filter(_ != null).map(_.result())
    matchable = null
    nullKeys = null
    taken.iterator.flatMap(rows => records(rows, Array.range(0, rows.size))) ++ refused
  }

  /** Every record, once [[fill]] took them all, in an order that cuts into the loader's blocks. */
  def sorted: Iterator[UnsafeRow] = {
    val (withNull, rest) = (nullKeys.result(), matchable.result(trim = false)) // rest is copied
    nullKeys = null
    matchable = null
    val nullOrder = byRecordOrder(withNull, Array.range(0, withNull.size), 0, withNull.size)
    // fill reserved the copy's room with each record.
    val (chunked, order) = rest.chunked(byKey0(rest), HeapBudget.Unaccounted)
    records(withNull, nullOrder) ++ records(chunked, order)
  }

  /** Row indices of `rows` by key 0, with the runs that cross a block boundary in total order. */
  private def byKey0(rows: PackedRows): Array[Int] = {
    val n = rows.size
    val codes = new Array[Long](n)
    val record = new UnsafeRow(numFields)
    var i = 0
    while (i < n) { codes(i) = key0(rows.row(i, record), 0); i += 1 }
    val sortedRows = RadixSort.sortedIndices(codes)
    var boundary = blockRows
    while (boundary < n) {
      val code = codes(sortedRows(boundary))
      if (codes(sortedRows(boundary - 1)) == code) {
        var from = boundary - 1
        while (from > 0 && codes(sortedRows(from - 1)) == code) from -= 1
        var until = boundary + 1
        while (until < n && codes(sortedRows(until)) == code) until += 1
        byRecordOrder(rows, sortedRows, from, until)
        boundary = until - until % blockRows + blockRows // the next boundary past the run
      } else boundary += blockRows
    }
    sortedRows
  }

  /** Sorts `indices(from until until)`, row indices of `rows`, by the total order; returns it. */
  private def byRecordOrder(rows: PackedRows, indices: Array[Int], from: Int, until: Int)
      : Array[Int] = {
    def base(i: Int) = Platform.BYTE_ARRAY_OFFSET + rows.offsets(i)
    def length(i: Int) = rows.offsets(i + 1) - rows.offsets(i)
    val run = indices.slice(from, until).sortWith { (a, b) =>
      order.compare(rows.data, base(a), length(a), rows.data, base(b), length(b)) < 0
    }
    System.arraycopy(run, 0, indices, from, run.length)
    indices
  }

  /** Rows `order(0)`, `order(1)`, ... of `rows`, through one reused record. */
  private def records(rows: PackedRows, order: Array[Int]): Iterator[UnsafeRow] =
    new Iterator[UnsafeRow] {
      private val record = new UnsafeRow(numFields)
      private var k = 0
      def hasNext: Boolean = k < order.length
      def next(): UnsafeRow = {
        k += 1
        rows.row(order(k - 1), record)
      }
    }
}

object InMemorySort {

  /** Key 0's codes and the radix sort's arrays (two copies of codes and of indices). */
  private val SortBytesPerRow = 8L + 24L
}

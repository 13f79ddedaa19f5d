package rangejoin.execution.blocks

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.rangejoin.{ExternalSorters, TaskMemory}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.util.collection.unsafe.sort.{PrefixComparators, RecordComparator}

import rangejoin.shims.StringOrders

/**
 * Cuts one partition of a join input into sorted [[Block]]s of at most `blockRows` rows. When
 * key 0 has a 64-bit code and the partition fits in the task's execution memory (and in
 * `spillRows` rows), the partition is sorted in memory by a radix sort ([[InMemorySort]]);
 * otherwise through Spark's external sorter, which spills runs to local disk under memory
 * pressure or past `spillRows` rows. Either way the memory comes from the task's memory manager,
 * and blocks come out one at a time, so only the block being cut is held outside the sort.
 *
 * Each row is sorted as a record of its join keys followed by its columns, in a total order:
 *  1. rows with a NULL key first. A NULL never satisfies an inequality, so these rows form blocks
 *     of their own, with no matchable rows ([[Block.nullKeyRows]]): outer, anti and existence
 *     joins still output them;
 *  1. then by key 0, key 1, ..., each in Spark's order (NaN largest, -0.0 equal to 0.0; see
 *     [[KeyEncoder]]);
 *  1. then by the record's bytes, unsigned.
 * Only byte-identical rows tie, and they are interchangeable. So a partition cuts into blocks
 * that hold the same rows however its rows arrive (a shuffle read does not fix their order) and
 * whichever sort ran, and block statistics taken from one load stay true of a block rebuilt
 * later. Within a block, rows with equal key 0 may come in any order. A run of one key value
 * longer than `blockRows` is split across blocks like any other rows.
 *
 * @param keys the inequality keys, bound to `schema`
 * @param ordersKey1 give each block its [[Block.key1Order]]
 */
final class BlockLoader(
    schema: Seq[Attribute],
    keys: Seq[Expression],
    encoders: Seq[KeyEncoder],
    blockRows: Int,
    spillRows: Int,
    ordersKey1: Boolean
) extends Serializable {
  private val numKeys = keys.length
  private val numFields = schema.length
  private val fixedWidth = FixedWidthRows.of(schema.map(_.dataType))

  /**
   * The blocks of `rows`, in sort order. Adds the sort's spilled bytes and peak memory to the
   * metrics once the rows are sorted.
   */
  def load(rows: Iterator[InternalRow], spillSize: SQLMetric, peakMemory: SQLMetric)
      : Iterator[Block] = {
    val toRecord = UnsafeProjection.create(keys ++ columns(from = 0))
    def records(rows: Iterator[InternalRow]) = rows.map(row => toRecord(row): UnsafeRow)
    encoders.head match {
      case _: LongKeyEncoder =>
        val memory = new LoadMemory(TaskContext.get())
        val inMemory = new InMemorySort(
          numFields,
          new RowKeys(keys),
          UnsafeProjection.create(columns(from = 0)),
          toRecord,
          encoders,
          new RecordOrder,
          blockRows,
          spillRows,
          ordersKey1,
          memory,
          fixedWidth
        )
        if (inMemory.fill(rows)) {
          reportPeak(memory.peak, peakMemory)
          inMemory.blocks(() => memory.release())
        } else {
          reportPeak(memory.peak, peakMemory)
          val (taken, spilledBytes) = inMemory.taken(() => memory.release())
          spillSize += spilledBytes
          externalSort(taken ++ records(rows), spillSize, peakMemory)
        }
      case _: ValueKeyEncoder => externalSort(records(rows), spillSize, peakMemory)
    }
  }

  /** The blocks of `records` sorted through Spark's external sorter. */
  private def externalSort(
      records: Iterator[UnsafeRow],
      spillSize: SQLMetric,
      peakMemory: SQLMetric
  ): Iterator[Block] = {
    val sorter =
      ExternalSorters.create(() => new RecordOrder, PrefixComparators.LONG, spillRows)
    val taskMetrics = TaskContext.get().taskMetrics()
    val spilledBefore = taskMetrics.memoryBytesSpilled
    records.foreach { record =>
      val base = record.getBaseObject
      sorter.insertRecord(base, record.getBaseOffset, record.getSizeInBytes, prefix(record), false)
    }
    val sorted = sorter.getSortedIterator
    spillSize += taskMetrics.memoryBytesSpilled - spilledBefore
    reportPeak(sorter.getPeakMemoryUsedBytes, peakMemory)
    val record = new UnsafeRow(numKeys + numFields)
    val inOrder = new Iterator[UnsafeRow] {
      def hasNext: Boolean = sorted.hasNext
      def next(): UnsafeRow = {
        sorted.loadNext()
        record.pointTo(sorted.getBaseObject, sorted.getBaseOffset, sorted.getRecordLength)
        record
      }
    }
    new Cutter(inOrder, () => sorter.cleanupResources())
  }

  private def reportPeak(bytes: Long, peakMemory: SQLMetric): Unit = {
    peakMemory += bytes
    TaskMemory.reportPeak(TaskContext.get(), bytes)
  }

  private def columns(from: Int): Seq[Expression] = schema.zipWithIndex.map { case (a, i) =>
    BoundReference(from + i, a.dataType, a.nullable)
  }

  private def hasNullKey(record: UnsafeRow): Boolean = {
    var k = 0
    while (k < numKeys) {
      if (record.isNullAt(k)) return true
      k += 1
    }
    false
  }

  /** Key 0's code where it has one (consistent with [[RecordOrder]]); NULL keys lowest. */
  private def prefix(record: UnsafeRow): Long =
    if (hasNullKey(record)) Long.MinValue
    else
      encoders.head match {
        case LongKeyEncoder(code) => code(record, 0)
        case _: ValueKeyEncoder => 0L
      }

  /** The total order of records described above. */
  private final class RecordOrder extends RecordComparator {
    private val a = new UnsafeRow(numKeys + numFields)
    private val b = new UnsafeRow(numKeys + numFields)
    private val keyOrders: Array[(UnsafeRow, UnsafeRow) => Int] =
      encoders.zipWithIndex.map {
        case (LongKeyEncoder(code), k) =>
          (x: UnsafeRow, y: UnsafeRow) => java.lang.Long.compare(code(x, k), code(y, k))
        case (ValueKeyEncoder(dataType), k) =>
          val ordering = PhysicalDataType.ordering(dataType)
          (x: UnsafeRow, y: UnsafeRow) => ordering.compare(x.get(k, dataType), y.get(k, dataType))
      }.toArray

    override def compare(
        leftBase: Object,
        leftOffset: Long,
        leftLength: Int,
        rightBase: Object,
        rightOffset: Long,
        rightLength: Int
    ): Int = {
      a.pointTo(leftBase, leftOffset, leftLength)
      b.pointTo(rightBase, rightOffset, rightLength)
      val aNull = hasNullKey(a)
      if (aNull != hasNullKey(b)) return if (aNull) -1 else 1
      if (!aNull) {
        var k = 0
        while (k < keyOrders.length) {
          val c = keyOrders(k)(a, b)
          if (c != 0) return c
          k += 1
        }
      }
      StringOrders.compareBytes(
        UTF8String.fromAddress(leftBase, leftOffset, leftLength),
        UTF8String.fromAddress(rightBase, rightOffset, rightLength)
      )
    }
  }

  /**
   * Cuts the sorted records into blocks; calls `close` after the last one. Each record is read
   * before the next is asked for.
   */
  private final class Cutter(sorted: Iterator[UnsafeRow], close: () => Unit)
      extends Iterator[Block] {
    private var record: UnsafeRow = _
    private val toRow = UnsafeProjection.create(columns(from = numKeys))
    private var loaded = false // `record` holds a record not yet in a block
    // The last block's rows and bytes: blocks but the last hold blockRows rows, so the next
    // block's arrays are made that size up front instead of doubling into it.
    private var lastRows = 0
    private var lastBytes = 0

    def hasNext: Boolean = {
      val more = loaded || sorted.hasNext
      if (!more) close()
      more
    }

    def next(): Block = {
      if (!hasNext) throw new NoSuchElementException
      if (!loaded) loadNext()
      val nullKeys = hasNullKey(record)
      // At most blockRows rows; the block manager accounts for the block once it is cached.
      val rows = if (lastRows == 0) new PackedRows.Builder(numFields, HeapBudget.Unaccounted)
      else new PackedRows.Builder(numFields, HeapBudget.Unaccounted, lastRows, lastBytes + 64)
      val builders = encoders.map(_.newBuilder(HeapBudget.Unaccounted, lastRows)).toArray
      while (loaded && rows.size < blockRows && hasNullKey(record) == nullKeys) {
        rows += toRow(record)
        if (!nullKeys) {
          var k = 0
          while (k < numKeys) { builders(k).add(record, k); k += 1 }
        }
        loaded = false
        if (sorted.hasNext) loadNext()
      }
      if (!nullKeys) { lastRows = rows.size; lastBytes = rows.bytes }
      val empty = PackedRows.empty(numFields)
      val keys = builders.map(_.result())
      val key1Order = Block.key1Order(keys, ordersKey1, HeapBudget.Unaccounted)
      if (nullKeys) new Block(empty, keys, key1Order, rows.result())
      else new Block(rows.result(), keys, key1Order, empty)
    }

    private def loadNext(): Unit = {
      record = sorted.next()
      loaded = true
    }
  }
}

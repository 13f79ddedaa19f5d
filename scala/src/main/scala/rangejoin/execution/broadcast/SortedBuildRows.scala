package rangejoin.execution.broadcast

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter
import org.apache.spark.unsafe.Platform

import rangejoin.execution.blocks.{HeapBudget, PackedRows, RowKeys}
import rangejoin.local.RadixSort
import rangejoin.local.RadixSort.KeyRange

/**
 * The build input of a broadcast range join as it is broadcast: its rows whose leading keys are
 * all non-NULL, packed back to back in ascending order of the first key's code (equal codes in
 * the order the rows arrived, or in ascending order of the second key's code when packed so),
 * with the codes of the one or two leading keys in the same order.
 *
 * Rows with a NULL key are left out: a NULL never satisfies an inequality, and the build input's
 * rows are never output unmatched (the join types that broadcast it preserve the other input).
 *
 * It travels as one [[UnsafeRow]] (the "carrier", [[toCarrier]]) with six fields: the rows'
 * field count, the row count, the packed rows' bytes, their offsets (4 bytes each), the first
 * key's codes and the second key's (8 bytes each; NULL with one key, and both NULL in a carrier
 * of the rows alone, for readers that need only their order). Spark's broadcast exchange
 * ships only hashed relations or arrays of unsafe rows; an array of the build rows themselves is
 * Java-serialized one object at a time, a cost paid on every row, while one row of a
 * few large byte ranges is written and read as whole arrays.
 *
 * @param rows the kept rows, in ascending order of `x`
 * @param x the first leading key's code of each row, ascending
 * @param y the second leading key's code of each row, if the index has two keys
 */
final class SortedBuildRows(val rows: PackedRows, val x: Array[Long], val y: Option[Array[Long]]) {
  require(x.length == rows.size && y.forall(_.length == rows.size), "one code per row and key")

  /** This as one unsafe row, which the broadcast ships; without the codes unless `withCodes`. */
  def toCarrier(withCodes: Boolean): UnsafeRow = {
    import SortedBuildRows._
    val n = rows.size
    val dataBytes = rows.offsets(n)
    val codeBytes = if (withCodes) 8L * n * (1 + y.size) else 0L
    val payload = roundUp(dataBytes) + roundUp(4L * (n + 1)) + codeBytes
    require(
      payload <= PackedRows.MaxBytes - 128,
      s"A range join's broadcast input holds $payload bytes; at most " +
        s"${PackedRows.MaxBytes - 128} can be broadcast in one piece. Lower " +
        "spark.sql.autoBroadcastJoinThreshold (for a keyed interval join, " +
        "spark.rangejoin.keyedIntervalJoin.broadcastThreshold) or drop the BROADCAST hint to " +
        "shuffle it instead."
    )
    val writer = new UnsafeRowWriter(Fields, payload.toInt)
    writer.resetRowWriter()
    writer.write(NumFields, rows.numFields)
    writer.write(RowCount, n)
    writer.write(Data, rows.data, 0, dataBytes)
    writeArray(writer, Offsets, rows.offsets, Platform.INT_ARRAY_OFFSET, 4L * (n + 1))
    if (withCodes) writeArray(writer, XCodes, x, Platform.LONG_ARRAY_OFFSET, 8L * n)
    else writer.setNullAt(XCodes)
    y match {
      case Some(codes) if withCodes =>
        writeArray(writer, YCodes, codes, Platform.LONG_ARRAY_OFFSET, 8L * n)
      case _ => writer.setNullAt(YCodes)
    }
    writer.getRow
  }
}

object SortedBuildRows {

  private val NumFields = 0
  private val RowCount = 1
  private val Data = 2
  private val Offsets = 3
  private val XCodes = 4
  private val YCodes = 5
  private val Fields = 6

  /**
   * Sorts and packs the build rows (unsafe rows, as Spark's broadcast exchange collects them).
   *
   * @param keys the one or two leading keys, bound to the build input's columns; each has a
   *             64-bit code ([[BroadcastRangeIndex.indexable]])
   * @param expectedRows how many rows the input holds, if known (0 if not): the arrays' first size
   * @param thenBySecond whether rows with equal first codes are sorted on the second key's codes
   */
  def pack(
      input: Iterator[InternalRow],
      numFields: Int,
      keys: Seq[Expression],
      expectedRows: Int,
      thenBySecond: Boolean = false
  ): SortedBuildRows = {
    val rowKeys = new RowKeys(keys)
    val codes = keys.map(k => BroadcastRangeIndex.code(k.dataType)).toArray
    // Every row holds at least its fixed-width part: room for that many bytes is never too much,
    // and is exact for rows without variable-length values. More than a carrier can hold is
    // left to grow until it fails.
    val fixedBytes =
      expectedRows * (UnsafeRow.calculateBitSetWidthInBytes(numFields) + 8L * numFields)
    val kept = new PackedRows.Builder(
      numFields,
      HeapBudget.Unaccounted,
      initialRows = expectedRows,
      initialBytes =
        if (fixedBytes > PackedRows.MaxBytes) PackedRows.InitialBytes
        else math.max(PackedRows.InitialBytes, fixedBytes.toInt)
    )
    val columns = Array.fill(codes.length)(new Array[Long](math.max(expectedRows, 16)))
    var n = 0
    input.foreach { row =>
      val k = rowKeys.of(row)
      if (!rowKeys.anyNull(k)) {
        kept += row.asInstanceOf[UnsafeRow]
        if (n == columns(0).length) {
          var i = 0
          while (i < columns.length) {
            columns(i) = java.util.Arrays.copyOf(columns(i), 2 * n)
            i += 1
          }
        }
        var i = 0
        while (i < columns.length) { columns(i)(n) = codes(i)(k, rowKeys.ordinals(i)); i += 1 }
        n += 1
      }
    }
    val unsorted = kept.result(trim = false)
    def codesOf(column: Array[Long]) =
      if (column.length == n) column else java.util.Arrays.copyOf(column, n)
    val first = codesOf(columns(0))
    val second = columns.lift(1).map(codesOf)
    val (order, x, y) = second match {
      case Some(seconds) if thenBySecond => lexicographic(first, seconds)
      case _ =>
        val sorted = RadixSort.sort(first)
        (sorted.order, sorted.keys, second.map(RadixSort.gather(_, sorted.order)))
    }
    new SortedBuildRows(unsorted.permuted(order, HeapBudget.Unaccounted), x, y)
  }

  /**
   * The order of rows by `first`, then `second` (stable: rows equal on both keep their order), and
   * both codes in that order. When the two codes' ranges fit in 63 bits together, it is one sort
   * on `(first - min) << b | (second - min)`, whose sorted words give both codes back; otherwise
   * a sort on `second`, then a stable one on `first`.
   */
  private def lexicographic(first: Array[Long], second: Array[Long])
      : (Array[Int], Array[Long], Some[Array[Long]]) = {
    val (firstRange, secondRange) = (KeyRange.of(first), KeyRange.of(second))
    if (combinable(firstRange, secondRange)) {
      val (firstMin, secondMin, secondBits) = (firstRange.min, secondRange.min, secondRange.bits)
      val words = new Array[Long](first.length)
      var i = 0
      while (i < words.length) {
        words(i) = (first(i) - firstMin) << secondBits | (second(i) - secondMin)
        i += 1
      }
      val sorted = RadixSort.sort(words)
      val (x, y) = (new Array[Long](words.length), new Array[Long](words.length))
      val mask = (1L << secondBits) - 1
      i = 0
      while (i < words.length) {
        val word = sorted.keys(i)
        x(i) = (word >>> secondBits) + firstMin
        y(i) = (word & mask) + secondMin
        i += 1
      }
      (sorted.order, x, Some(y))
    } else {
      val bySecond = RadixSort.sortedIndices(second)
      val byFirst = RadixSort.sort(RadixSort.gather(first, bySecond))
      val order = byFirst.order
      var k = 0
      while (k < order.length) { order(k) = bySecond(order(k)); k += 1 }
      (order, byFirst.keys, Some(RadixSort.gather(second, order)))
    }
  }

  /** Whether codes of these ranges fit in 63 bits together, which one sort of words orders. */
  private[broadcast] def combinable(first: KeyRange, second: KeyRange): Boolean =
    first.bits + second.bits <= 63

  /** The rows a carrier made by [[SortedBuildRows#toCarrier]] holds. */
  def fromCarrier(carrier: UnsafeRow): SortedBuildRows = {
    require(!carrier.isNullAt(XCodes), "A carrier of the rows alone has no codes to read.")
    val n = carrier.getInt(RowCount)
    def longs(ordinal: Int) =
      readArray(carrier, ordinal, new Array[Long](n), Platform.LONG_ARRAY_OFFSET, 8L * n)
    new SortedBuildRows(
      carriedRows(carrier),
      longs(XCodes),
      if (carrier.isNullAt(YCodes)) None else Some(longs(YCodes))
    )
  }

  /** The rows of a carrier made by [[SortedBuildRows#toCarrier]], without their codes. */
  def carriedRows(carrier: UnsafeRow): PackedRows = {
    val n = carrier.getInt(RowCount)
    val offsets =
      readArray(carrier, Offsets, new Array[Int](n + 1), Platform.INT_ARRAY_OFFSET, 4L * (n + 1))
    new PackedRows(carrier.getInt(NumFields), carrier.getBinary(Data), offsets)
  }

  private def roundUp(bytes: Long): Long = (bytes + 7) & ~7L

  /** Writes `bytes` bytes of a primitive array as a variable-length field. */
  private def writeArray(
      writer: UnsafeRowWriter,
      ordinal: Int,
      array: AnyRef,
      arrayOffset: Long,
      bytes: Long
  ): Unit = {
    val start = writer.cursor()
    val rounded = roundUp(bytes).toInt
    writer.grow(rounded)
    Platform.copyMemory(array, arrayOffset, writer.getBuffer, start, bytes)
    // The padding after the array: the buffer may be reused memory.
    Platform.setMemory(writer.getBuffer, start + bytes, rounded - bytes, 0.toByte)
    writer.increaseCursor(rounded)
    writer.setOffsetAndSizeFromPreviousCursor(ordinal, start)
  }

  /** Copies the `bytes` bytes of a field written by [[writeArray]] into a primitive array. */
  private def readArray[A <: AnyRef](
      carrier: UnsafeRow,
      ordinal: Int,
      array: A,
      arrayOffset: Long,
      bytes: Long
  ): A = {
    val offset = carrier.getLong(ordinal) >>> 32
    Platform.copyMemory(
      carrier.getBaseObject,
      carrier.getBaseOffset + offset,
      array,
      arrayOffset,
      bytes
    )
    array
  }
}

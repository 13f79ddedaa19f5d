package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * Unsafe rows stored back to back in one byte array: row `i` is `data[offsets(i), offsets(i+1))`.
 *
 * Two objects per block instead of two per row keep the garbage collector out of the way, and
 * the form serializes as two arrays when Spark moves a cached block to disk.
 */
final class PackedRows(val numFields: Int, val data: Array[Byte], val offsets: Array[Int])
    extends Serializable {

  def size: Int = offsets.length - 1

  /** The bytes this object holds. */
  def sizeInBytes: Long = data.length + 4L * offsets.length

  /** Points `reuse` at row `i` and returns it; valid until `reuse` is pointed elsewhere. */
  def row(i: Int, reuse: UnsafeRow): UnsafeRow = {
    reuse.pointTo(data, Platform.BYTE_ARRAY_OFFSET + offsets(i), offsets(i + 1) - offsets(i))
    reuse
  }

  /** Rows `indices`, in that order, packed anew. */
  def select(indices: Array[Int]): PackedRows = {
    val builder = new PackedRows.Builder(numFields)
    val row = new UnsafeRow(numFields)
    indices.foreach(i => builder += this.row(i, row))
    builder.result()
  }
}

object PackedRows {

  /** The largest byte array the JVM reliably allocates. */
  val MaxBytes: Long = Int.MaxValue - 15L

  def empty(numFields: Int): PackedRows = new PackedRows(numFields, Array.emptyByteArray, Array(0))

  /** Appends copies of unsafe rows. */
  final class Builder(numFields: Int) {
    private var data = new Array[Byte](1 << 12)
    private var offsets = new Array[Int](1 << 8)
    private var count = 0
    private var end = 0

    def size: Int = count

    def +=(row: UnsafeRow): Unit = {
      val size = row.getSizeInBytes
      if (end + size > data.length) {
        val needed = end + size.toLong
        if (needed > PackedRows.MaxBytes) {
          throw new IllegalStateException(
            s"A partition of a range join holds more than ${PackedRows.MaxBytes} bytes of rows. " +
              "For a side that was range-partitioned, raise spark.sql.shuffle.partitions; for " +
              "one estimated small and so not shuffled, lower " +
              "spark.rangejoin.rangePartitionMinRows."
          )
        }
        data = java.util.Arrays.copyOf(
          data,
          math.min(math.max(data.length * 2L, needed), PackedRows.MaxBytes).toInt
        )
      }
      if (count + 2 > offsets.length) offsets = java.util.Arrays.copyOf(offsets, offsets.length * 2)
      Platform.copyMemory(
        row.getBaseObject,
        row.getBaseOffset,
        data,
        Platform.BYTE_ARRAY_OFFSET + end,
        size
      )
      end += size
      count += 1
      offsets(count) = end
    }

    def result(): PackedRows =
      new PackedRows(
        numFields,
        java.util.Arrays.copyOf(data, end),
        java.util.Arrays.copyOf(offsets, count + 1)
      )
  }
}

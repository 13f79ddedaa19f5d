package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.bitset.BitSetMethods

/**
 * Writes the rows of column batches straight into packed unsafe rows, a column at a time, for a
 * schema whose every column is stored in its unsafe row's 8-byte slot: Spark's conversion of a
 * columnar scan to rows writes each row field by field into a buffer that is then copied, and
 * this writes each column's values in one loop into rows that are already in place.
 *
 * The rows are the bytes Spark's own conversion writes: a NULL column sets its bit and leaves its
 * slot zero; a value narrower than 8 bytes is written at the start of its zeroed slot; floats and
 * doubles are written as they are (a NaN or -0.0 is not normalized, as Spark does not).
 *
 * @param types the columns' types, each one [[FixedWidthRows.supports]]
 */
final class FixedWidthRows private (types: Array[DataType]) extends Serializable {
  private val nullBytes = UnsafeRow.calculateBitSetWidthInBytes(types.length)
  private val puts = types.map(FixedWidthRows.putter)

  /** The bytes of every row. */
  val rowBytes: Int = nullBytes + 8 * types.length

  /** Appends every row of `batch` to `rows`, in order. */
  def append(batch: ColumnarBatch, rows: PackedRows.Builder): Unit =
    rows.appendFixedWidth(batch.numRows, rowBytes) { (data, first) =>
      var c = 0
      while (c < types.length) {
        write(batch.column(c), c, batch.numRows, data, first)
        c += 1
      }
    }

  /** Writes column `c` of `n` rows, the first at address `first` of `data`. */
  private def write(column: ColumnVector, c: Int, n: Int, data: Array[Byte], first: Long): Unit = {
    val slot = first + nullBytes + 8L * c
    val put = puts(c)
    if (!column.hasNull) {
      var i = 0
      while (i < n) { put(column, i, data, slot + i.toLong * rowBytes); i += 1 }
    } else {
      var i = 0
      while (i < n) {
        val row = first + i.toLong * rowBytes
        if (column.isNullAt(i)) BitSetMethods.set(data, row, c)
        else put(column, i, data, slot + i.toLong * rowBytes)
        i += 1
      }
    }
  }
}

object FixedWidthRows {

  /** Whether a column of type `dt` is stored in its unsafe row's slot, and written here. */
  def supports(dt: DataType): Boolean = putter.isDefinedAt(dt)

  /** The writer of rows of `types`, when every one is supported. */
  def of(types: Seq[DataType]): Option[FixedWidthRows] =
    if (types.nonEmpty && types.forall(supports)) Some(new FixedWidthRows(types.toArray))
    else None

  /** Copies the value at a row of a column to an address of a byte array. */
  private trait Put extends Serializable {
    def apply(column: ColumnVector, row: Int, data: Array[Byte], address: Long): Unit
  }

  /** The copy of each supported type's values: the list of supported types. */
  private val putter: PartialFunction[DataType, Put] = {
    case BooleanType => (v, i, d, a) => Platform.putBoolean(d, a, v.getBoolean(i))
    case ByteType => (v, i, d, a) => Platform.putByte(d, a, v.getByte(i))
    case ShortType => (v, i, d, a) => Platform.putShort(d, a, v.getShort(i))
    case IntegerType | DateType | _: YearMonthIntervalType =>
      (v, i, d, a) => Platform.putInt(d, a, v.getInt(i))
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType =>
      (v, i, d, a) => Platform.putLong(d, a, v.getLong(i))
    case FloatType => (v, i, d, a) => Platform.putFloat(d, a, v.getFloat(i))
    case DoubleType => (v, i, d, a) => Platform.putDouble(d, a, v.getDouble(i))
  }
}

package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Columns whose values are read as 64-bit integers in their own order: integers as they are,
 * dates as days, timestamps as microseconds. A column's width in bytes says how to read it.
 */
object IntegralColumn {

  /** The width of a value of type `t` (1, 2, 4 or 8), or 0 if it is not read as an integer. */
  def width(t: DataType): Int = t match {
    case ByteType => 1
    case ShortType => 2
    case IntegerType | DateType => 4
    case LongType | TimestampType | TimestampNTZType => 8
    case _ => 0
  }

  /** The value at `ordinal` of `row`, not NULL, of a type of `width` bytes. */
  def read(row: InternalRow, ordinal: Int, width: Int): Long = width match {
    case 4 => row.getInt(ordinal).toLong
    case 8 => row.getLong(ordinal)
    case 2 => row.getShort(ordinal).toLong
    case _ => row.getByte(ordinal).toLong
  }
}

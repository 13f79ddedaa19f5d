package rangejoin.execution.blocks

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types._
import org.apache.spark.util.SizeEstimator

import rangejoin.local.RadixSort

/**
 * The values of one inequality key over the rows of a block, in row order.
 *
 * Most types are stored as [[LongCodes]]: a `Long` per row whose signed order is exactly Spark's
 * order for the type, so the local join sorts primitives. Types with no such fixed-width code
 * (strings, binary, decimals wider than 18 digits) keep their values, and two blocks' values are
 * turned into dense ranks over both blocks when they are joined ([[KeyColumn.jointCodes]]).
 */
sealed trait KeyColumn extends Serializable {
  def length: Int

  /** The smallest value (or code); only for a non-empty column. */
  def min: Any

  /** The largest value (or code); only for a non-empty column. */
  def max: Any

  /** Row indices in ascending key order; ties keep row order. */
  def sortedIndices: Array[Int]

  /** The column of rows `indices`, in that order. */
  def select(indices: Array[Int]): KeyColumn

  /** The heap bytes this column holds (estimated for values that are objects). */
  def sizeInBytes: Long
}

final case class LongCodes(codes: Array[Long]) extends KeyColumn {
  def length: Int = codes.length
  def sizeInBytes: Long = 8L * codes.length
  def min: Any = { var m = Long.MaxValue; codes.foreach(c => if (c < m) m = c); m }
  def max: Any = { var m = Long.MinValue; codes.foreach(c => if (c > m) m = c); m }
  def sortedIndices: Array[Int] = RadixSort.sortedIndices(codes)
  def select(indices: Array[Int]): KeyColumn = {
    val out = new Array[Long](indices.length)
    var i = 0
    while (i < out.length) { out(i) = codes(indices(i)); i += 1 }
    LongCodes(out)
  }
}

final case class OrderedValues(values: Array[Any], dataType: DataType) extends KeyColumn {
  def length: Int = values.length
  def sizeInBytes: Long = SizeEstimator.estimate(values)
  def min: Any = values.min(ordering)
  def max: Any = values.max(ordering)
  def sortedIndices: Array[Int] =
    values.indices.sortWith((i, j) => ordering.lt(values(i), values(j))).toArray
  def select(indices: Array[Int]): KeyColumn = OrderedValues(indices.map(values), dataType)
  @transient lazy val ordering: Ordering[Any] = PhysicalDataType.ordering(dataType)
}

object KeyColumn {

  /**
   * Codes for the same key over two blocks whose order, across both arrays, is Spark's order of
   * the underlying values: equal values get equal codes.
   */
  def jointCodes(a: KeyColumn, b: KeyColumn): (Array[Long], Array[Long]) = (a, b) match {
    case (LongCodes(x), LongCodes(y)) => (x, y)
    case (a: OrderedValues, b: OrderedValues) =>
      val ranks = denseRanks(OrderedValues(a.values ++ b.values, a.dataType))
      (ranks.take(a.length), ranks.drop(a.length))
    case _ => throw new IllegalArgumentException(s"Key columns of different kinds: $a and $b")
  }

  /** How the [[KeyColumn.min]] and [[KeyColumn.max]] of columns built by `encoder` compare. */
  def ordering(encoder: KeyEncoder): Ordering[Any] = encoder match {
    case _: LongKeyEncoder => Ordering.Long.asInstanceOf[Ordering[Any]]
    case ValueKeyEncoder(dataType) => PhysicalDataType.ordering(dataType)
  }

  private def denseRanks(column: OrderedValues): Array[Long] = {
    val (values, ord) = (column.values, column.ordering)
    val order = column.sortedIndices
    val ranks = new Array[Long](values.length)
    var rank = 0L
    var k = 0
    while (k < order.length) {
      if (k > 0 && ord.compare(values(order(k - 1)), values(order(k))) != 0) rank += 1
      ranks(order(k)) = rank
      k += 1
    }
    ranks
  }
}

/**
 * Reads one key out of a projected key row into a [[KeyColumn]].
 *
 * Float and double follow Spark's ordering: `-0.0` equals `0.0`, and every NaN equals every other
 * NaN and is larger than `+Infinity`. The code flips the non-sign bits of negative numbers so that
 * the signed order of the IEEE bit patterns is numeric order.
 */
sealed abstract class KeyEncoder extends Serializable {
  def newBuilder(): KeyColumnBuilder
}

abstract class KeyColumnBuilder {

  /** Appends the non-NULL value at `ordinal` of `row`. */
  def add(row: InternalRow, ordinal: Int): Unit
  def result(): KeyColumn
}

object KeyEncoder {
  def forType(dt: DataType): KeyEncoder = dt match {
    case BooleanType => LongKeyEncoder((r, i) => if (r.getBoolean(i)) 1L else 0L)
    case ByteType => LongKeyEncoder((r, i) => r.getByte(i).toLong)
    case ShortType => LongKeyEncoder((r, i) => r.getShort(i).toLong)
    case IntegerType | DateType | _: YearMonthIntervalType =>
      LongKeyEncoder((r, i) => r.getInt(i).toLong)
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType =>
      LongKeyEncoder((r, i) => r.getLong(i))
    case FloatType => LongKeyEncoder((r, i) => floatCode(r.getFloat(i)))
    case DoubleType => LongKeyEncoder((r, i) => doubleCode(r.getDouble(i)))
    case d: DecimalType if d.precision <= Decimal.MAX_LONG_DIGITS =>
      LongKeyEncoder((r, i) => r.getDecimal(i, d.precision, d.scale).toUnscaledLong)
    case other => ValueKeyEncoder(other)
  }

  /** A signed-order-preserving code for a double under Spark's ordering. */
  def doubleCode(d: Double): Long = {
    val bits = java.lang.Double.doubleToLongBits(if (d == 0.0d) 0.0d else d) // canonical NaN
    bits ^ ((bits >> 63) & Long.MaxValue)
  }

  /** A signed-order-preserving code for a float under Spark's ordering. */
  def floatCode(f: Float): Long = {
    val bits = java.lang.Float.floatToIntBits(if (f == 0.0f) 0.0f else f)
    (bits ^ ((bits >> 31) & Int.MaxValue)).toLong
  }
}

final case class LongKeyEncoder(code: (InternalRow, Int) => Long) extends KeyEncoder {
  def newBuilder(): KeyColumnBuilder = new KeyColumnBuilder {
    private val codes = new mutable.ArrayBuilder.ofLong
    def add(row: InternalRow, ordinal: Int): Unit = codes += code(row, ordinal)
    def result(): KeyColumn = LongCodes(codes.result())
  }
}

final case class ValueKeyEncoder(dataType: DataType) extends KeyEncoder {
  def newBuilder(): KeyColumnBuilder = new KeyColumnBuilder {
    private val values = mutable.ArrayBuffer.empty[Any]
    def add(row: InternalRow, ordinal: Int): Unit =
      values += InternalRow.copyValue(row.get(ordinal, dataType))
    def result(): KeyColumn = OrderedValues(values.toArray, dataType)
  }
}

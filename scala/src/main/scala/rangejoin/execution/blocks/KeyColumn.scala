package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
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

  /**
   * At most the heap bytes [[sortedIndices]] allocates, its result included (estimated for
   * values that are objects).
   */
  def sortBytes: Long

  /**
   * The column of rows `indices(from)` to `indices(until - 1)`, in that order. Its array is
   * allocated from `budget` first; values that are objects are shared, not copied.
   */
  def select(indices: Array[Int], from: Int, until: Int, budget: HeapBudget): KeyColumn

  /**
   * The payload bytes of this column's array: its codes, or its references to values (counted at
   * 8 bytes). Values that are objects are accounted where they are read ([[KeyColumnBuilder]]).
   */
  def arrayBytes: Long = 8L * length
}

final case class LongCodes(codes: Array[Long]) extends KeyColumn {
  def length: Int = codes.length
  def min: Any = {
    var m = Long.MaxValue; var i = 0; while (i < length) { m = m.min(codes(i)); i += 1 }; m
  }
  def max: Any = {
    var m = Long.MinValue; var i = 0; while (i < length) { m = m.max(codes(i)); i += 1 }; m
  }
  def sortedIndices: Array[Int] = RadixSort.sortedIndices(codes)
  def sortBytes: Long = 24L * length // two copies of the codes and two of the indices
  def select(indices: Array[Int], from: Int, until: Int, budget: HeapBudget): KeyColumn = {
    budget.allocate(8L * (until - from))
    val out = new Array[Long](until - from)
    var i = 0
    while (i < out.length) { out(i) = codes(indices(from + i)); i += 1 }
    LongCodes(out)
  }
}

final case class OrderedValues(values: Array[Any], dataType: DataType) extends KeyColumn {
  def length: Int = values.length
  def min: Any = values.min(ordering)
  def max: Any = values.max(ordering)
  def sortedIndices: Array[Int] =
    values.indices.sortWith((i, j) => ordering.lt(values(i), values(j))).toArray
  def sortBytes: Long = 48L * length // boxed indices, the arrays the sort copies them through
  def select(indices: Array[Int], from: Int, until: Int, budget: HeapBudget): KeyColumn = {
    budget.allocate(8L * (until - from))
    OrderedValues(Array.tabulate[Any](until - from)(i => values(indices(from + i))), dataType)
  }
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

  /**
   * A builder whose arrays, and values that are objects, are allocated from `budget`; its array
   * starts with room for `initialRows` values.
   */
  def newBuilder(budget: HeapBudget, initialRows: Int = 0): KeyColumnBuilder
}

/**
 * Appends a key's values to a column. Its array starts small and doubles as values arrive; each
 * array is allocated from the builder's [[HeapBudget]] before it is made, and freed once it is
 * replaced by a larger copy or by [[result]]. A value that is an object is allocated (at an
 * estimate of its size) when it is read, and never freed: the columns selected from this one
 * share it.
 */
abstract class KeyColumnBuilder {

  /** Appends the non-NULL value at `ordinal` of `row`. */
  def add(row: InternalRow, ordinal: Int): Unit

  /** The column of the values appended; the builder is not usable after. */
  def result(): KeyColumn
}

object KeyColumnBuilder {
  private val InitialLength = 16

  /** A copy of the full `array` with twice the room, allocated from `budget`. */
  private[blocks] def grown[A](array: Array[A], elementBytes: Int, budget: HeapBudget)
      : Array[A] = {
    val length = math.max(array.length * 2, InitialLength)
    budget.replace(elementBytes.toLong * array.length, elementBytes.toLong * length) {
      copyOf(array, length)
    }
  }

  /** The first `length` elements of `array`, padded with zeros or nulls if it is shorter. */
  private[blocks] def copyOf[A](array: Array[A], length: Int): Array[A] = {
    val copy = java.lang.reflect.Array
      .newInstance(array.getClass.getComponentType, length)
      .asInstanceOf[Array[A]]
    System.arraycopy(array, 0, copy, 0, math.min(array.length, length))
    copy
  }
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

/**
 * A key's 64-bit code at an ordinal of a row. A type of its own rather than a Scala function,
 * whose generic `apply` would box the ordinal and the code on every call.
 */
trait KeyCode extends Serializable {
  def apply(row: InternalRow, ordinal: Int): Long
}

final case class LongKeyEncoder(code: KeyCode) extends KeyEncoder {
  def newBuilder(budget: HeapBudget, initialRows: Int): KeyColumnBuilder = new KeyColumnBuilder {
    budget.allocate(8L * initialRows)
    private var codes = new Array[Long](initialRows)
    private var count = 0
    def add(row: InternalRow, ordinal: Int): Unit = {
      if (count == codes.length) codes = KeyColumnBuilder.grown(codes, 8, budget)
      codes(count) = code(row, ordinal)
      count += 1
    }
    def result(): KeyColumn = {
      val column = budget.replace(8L * codes.length, 8L * count) {
        LongCodes(if (count == codes.length) codes else java.util.Arrays.copyOf(codes, count))
      }
      codes = null
      column
    }
  }
}

final case class ValueKeyEncoder(dataType: DataType) extends KeyEncoder {
  def newBuilder(budget: HeapBudget, initialRows: Int): KeyColumnBuilder = new KeyColumnBuilder {
    budget.allocate(8L * initialRows)
    private var values = new Array[Any](initialRows)
    private var count = 0
    def add(row: InternalRow, ordinal: Int): Unit = {
      if (count == values.length) values = KeyColumnBuilder.grown(values, 8, budget)
      val value = InternalRow.copyValue(row.get(ordinal, dataType))
      budget.allocate(ValueKeyEncoder.estimatedBytes(value))
      values(count) = value
      count += 1
    }
    def result(): KeyColumn = {
      val column = budget.replace(8L * values.length, 8L * count) {
        OrderedValues(
          if (count == values.length) values else KeyColumnBuilder.copyOf(values, count),
          dataType
        )
      }
      values = null
      column
    }
  }
}

object ValueKeyEncoder {

  /** The heap bytes of a key value, estimated cheaply for strings and binary, the common cases. */
  private def estimatedBytes(value: Any): Long = value match {
    case s: UTF8String => 48L + s.numBytes // the object, its byte array's header, the bytes
    case b: Array[Byte] => 16L + b.length
    case other => SizeEstimator.estimate(other.asInstanceOf[AnyRef])
  }
}

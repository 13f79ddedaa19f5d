package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  BoundReference,
  Expression,
  UnsafeProjection,
  UnsafeRow
}
import org.apache.spark.sql.types._

import rangejoin.execution.blocks.{HeapBudget, PackedRows}
import rangejoin.local.{GroupedOrder, RadixSort}

/** A 64-bit code read from a row, in the order the index keeps. */
trait RowCode {

  /** Reads `row`; false if it has no code (a NULL value), else [[code]] is its code. */
  def of(row: InternalRow): Boolean

  /** The code [[of]] last read, if it had one. */
  def code: Long

  /** Whether the code is a column of the row, so that reading it cannot fail. */
  def readsColumn: Boolean = false
}

/**
 * One input's as-of value as a 64-bit code in the value's own order ([[IntegralColumn]]: the
 * types `rangejoin.condition.AsOfCondition.codeRange` accepts). A value that is a column of the
 * rows is read in place; any other is evaluated into a row of its own first.
 *
 * @param value the as-of expression, bound to the input's columns
 */
final class AsOfValue(value: Expression) extends RowCode {
  private val width = IntegralColumn.width(value.dataType)
  require(width > 0, s"No as-of code for ${value.dataType}")
  private val (ordinal, projection) = value match {
    case column: BoundReference => (column.ordinal, null)
    case _ => (0, UnsafeProjection.create(Seq(value)))
  }
  // The row the value was last read from: the input's row itself, or the projected one.
  private var last: InternalRow = _

  /** Reads the value of `row`; false if it is NULL, else [[code]] is its code. */
  override def of(row: InternalRow): Boolean = {
    last = if (projection == null) row else projection(row)
    !last.isNullAt(ordinal)
  }

  /** The code of the value [[of]] last read, if not NULL, while its row is unchanged. */
  override def code: Long = IntegralColumn.read(last, ordinal, width)

  override def readsColumn: Boolean = projection == null
}

/**
 * The right input of an as-of join, grouped by its equality keys and, within each group, in
 * ascending order of as-of value (equal values in the order they arrived): group `g` is
 * positions `start(g)` until `end(g)` of `codes` and `rows`.
 *
 * Rows with a NULL key or a NULL as-of value are left out: `NULL = k` and every comparison with
 * a NULL as-of value are never true, and Spark's `min_by` ignores the NULL distance of the one
 * condition that accepts them (nearest, exact matches, no tolerance: `true`).
 *
 * @param sortedRows the rows the build put in order: 0 when they arrived in order
 */
final class AsOfIndex private (
    groups: GroupIds,
    starts: Array[Int],
    val codes: Array[Long],
    val rows: PackedRows,
    val sortedRows: Int
) {

  /** A reader of the keys `keys` (bound to the rows it reads) for lookups of their group. */
  def keys(keys: Seq[Expression]): GroupKey = groups.keys(keys)

  /** The group of a row of the equality keys' values, none NULL, or -1 if it has none. */
  def groupOfKeys(keys: UnsafeRow): Int = groups.get(keys)

  /**
   * The group of one integral key's value ([[IntegralColumn]]), or -1 if it has none: for an
   * index of one such key, without writing a key row.
   */
  def groupOfValue(value: Long): Int = groups match {
    case byValue: GroupIds.ByValue => byValue.getValue(value)
    case _ => throw new IllegalStateException("The index's keys are not one integral column")
  }

  def numGroups: Int = starts.length - 1

  def start(group: Int): Int = starts(group)
  def end(group: Int): Int = starts(group + 1)

  /** The bytes of the rows and their codes, which lookups read. */
  def sizeInBytes: Long = rows.sizeInBytes + 8L * codes.length

  /** This index with other rows, one per position: the same groups and codes. */
  def withRows(other: PackedRows): AsOfIndex = {
    require(other.size == rows.size, "one row per position")
    new AsOfIndex(groups, starts, codes, other, sortedRows)
  }
}

object AsOfIndex {

  /**
   * Indexes `rows`: copied into one packed array, then put in [[GroupedOrder]] (O(n) after the
   * hashing of the keys), unless they arrive in that order already ([[Scan]]).
   *
   * @param keys the rows' equality keys, bound to their columns (none: one group)
   * @param asOf the rows' as-of value (rows without one are left out)
   * @param types the rows' column types
   */
  def build(
      rows: Iterator[InternalRow],
      keys: Seq[Expression],
      asOf: RowCode,
      types: Seq[DataType],
      budget: HeapBudget
  ): AsOfIndex = {
    val scan = new Scan(keys, asOf)
    val packed = new PackedRows.Builder(types.size, budget)
    val toUnsafe = UnsafeProjection.create(types.toArray)
    rows.foreach { row =>
      if (scan.keeps(row)) packed += (row match {
        case unsafe: UnsafeRow => unsafe
        case other => toUnsafe(other)
      })
    }
    scan.index(packed.result(), owned = true, budget)
  }

  /**
   * Indexes packed `rows` as [[build]] does, without copying them when they are in order already
   * and none is left out (a broadcast sorted so on the driver): the index then holds `rows`.
   */
  def build(
      rows: PackedRows,
      keys: Seq[Expression],
      asOf: RowCode,
      budget: HeapBudget
  ): AsOfIndex = {
    val scan = new Scan(keys, asOf)
    scan.expect(rows)
    // The positions of the rows kept, made at the first row left out: until then, every row.
    var kept: Array[Int] = null
    val row = new UnsafeRow(rows.numFields)
    var i = 0
    while (i < rows.size) {
      if (scan.keeps(rows.row(i, row))) { if (kept != null) kept(scan.size - 1) = i }
      else if (kept == null) {
        budget.allocate(4L * rows.size)
        kept = Array.range(0, rows.size)
      }
      i += 1
    }
    if (kept == null) scan.index(rows, owned = false, budget)
    else {
      val selected = rows.select(kept, 0, scan.size, budget)
      budget.free(4L * rows.size)
      scan.index(selected, owned = true, budget)
    }
  }

  /**
   * The codes and key groups of the rows kept, read one row at a time, and whether they arrived
   * grouped and in order: each key's rows together and in ascending order of code (a broadcast
   * sorted so on the driver, a table stored so). Such rows are indexed as they arrived, neither
   * sorted nor copied again.
   */
  private final class Scan(keys: Seq[Expression], asOf: RowCode) {
    private val groups = GroupIds.forKeys(keys.map(_.dataType))
    private val key = groups.keys(keys)
    // Primitive arrays grown by hand: an ArrayBuilder[Long] or [Int] boxes every element.
    private var codes = new Array[Long](1024)
    private var groupOf = new Array[Int](1024)
    private var n = 0
    // Groups are numbered in order of first appearance, so the rows are grouped and in order
    // while each row's group is its predecessor's with a code at least as large, or a new one.
    private var inOrder = true

    /** The rows kept so far. */
    def size: Int = n

    /** Called before reading `rows`, when they are all there is to read. */
    def expect(rows: PackedRows): Unit = key.expect(rows)

    /** Reads `row`: whether it is kept (its keys are not NULL and it has a code). */
    def keeps(row: InternalRow): Boolean =
      key.read(row) && asOf.of(row) && {
        if (n == codes.length) {
          codes = java.util.Arrays.copyOf(codes, 2 * n)
          groupOf = java.util.Arrays.copyOf(groupOf, 2 * n)
        }
        codes(n) = asOf.code
        groupOf(n) = key.findOrAdd()
        inOrder &&= n == 0 || groupOf(n) > groupOf(n - 1) ||
          (groupOf(n) == groupOf(n - 1) && codes(n) >= codes(n - 1))
        n += 1
        true
      }

    /**
     * The index of `rows`, the rows kept in the order they were read; when they must be put in
     * order, they are freed from `budget` once copied if `owned` (allocated from it).
     */
    def index(rows: PackedRows, owned: Boolean, budget: HeapBudget): AsOfIndex = {
      groups.seal()
      val keptCodes = java.util.Arrays.copyOf(codes, n)
      if (inOrder) {
        budget.allocate(8L * n + 4L * (groups.size + 1))
        val starts = new Array[Int](groups.size + 1)
        var i = 0
        while (i < n) { starts(groupOf(i) + 1) = i + 1; i += 1 }
        new AsOfIndex(groups, starts, keptCodes, rows, sortedRows = 0)
      } else {
        budget.allocate(24L * n)
        val (order, starts) =
          GroupedOrder(keptCodes, java.util.Arrays.copyOf(groupOf, n), groups.size)
        val inGroups = rows.permuted(order, budget)
        if (owned) budget.free(rows.sizeInBytes)
        new AsOfIndex(groups, starts, RadixSort.gather(keptCodes, order), inGroups, sortedRows = n)
      }
    }
  }
}

package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}

import rangejoin.execution.blocks.PackedRows

/**
 * Reads one input's equality keys for lookups in a [[GroupIds]], as a [[RowCode]] reads codes:
 * [[read]] a row, then [[find]] or [[findOrAdd]] the group of its keys. [[GroupIds#keys]] makes
 * one for its table.
 */
sealed abstract class GroupKey {

  /** Reads `row`'s keys: false if one of them is NULL. */
  def read(row: InternalRow): Boolean

  /** The group of the keys [[read]] last, or -1 if no group has them. */
  def find(): Int

  /** The group of the keys [[read]] last, numbered next if it is new. */
  def findOrAdd(): Int

  /**
   * Called once, before the groups of the rows `rows` are added ([[findOrAdd]]) and of no others:
   * a table may size itself for them.
   */
  def expect(rows: PackedRows): Unit = ()

  /** The group of `row`'s keys, or -1 if one of them is NULL or no group has them. */
  final def groupOf(row: InternalRow): Int = if (read(row)) find() else -1

  /**
   * The [[groupOf]] of each of the first `n` rows of `rows`, into `groups`. `scratch` (at least
   * `n` values) is left with no meaning: keys that can look their groups up in a pass of their
   * own keep the keys there.
   */
  final def groupsOf(rows: PackedRows, n: Int, groups: Array[Int], scratch: Array[Long]): Unit = {
    val row = new UnsafeRow(rows.numFields)
    var i = 0
    while (i < n) { collect(rows.row(i, row), i, groups, scratch); i += 1 }
    findCollected(n, groups, scratch)
  }

  /**
   * Reads `row` as the `i`-th of a batch whose groups [[findCollected]] then finishes: sets
   * `groups(i)` to -1 if the row has no group (a NULL key; here, also a key no group has), else
   * to its group or to a mark, never negative, that its lookup is left for later, with what the
   * lookup needs in `scratch(i)`. Before [[findCollected]], a caller may set an entry to -1, to
   * drop the row, and change none otherwise. This one looks the group up at once.
   */
  def collect(row: InternalRow, i: Int, groups: Array[Int], scratch: Array[Long]): Unit =
    groups(i) = groupOf(row)

  /** Looks up the groups that [[collect]] left for later, of the first `n` rows. */
  def findCollected(n: Int, groups: Array[Int], scratch: Array[Long]): Unit = ()
}

object GroupKey {

  /** Keys projected into a key row, the row [[GroupIds]] looks up. */
  final class Projected(ids: GroupIds, keys: Seq[Expression]) extends GroupKey {
    private val projection = UnsafeProjection.create(keys)
    private var last: UnsafeRow = _

    def read(row: InternalRow): Boolean = {
      last = projection(row)
      !last.anyNull
    }

    def find(): Int = ids.get(last)
    def findOrAdd(): Int = ids.getOrAdd(last)
  }

  /** One integral key that is a column of the rows, read in place: no key row is written. */
  final class Column(ids: GroupIds.ByValue, ordinal: Int, width: Int) extends GroupKey {
    private var value = 0L

    def read(row: InternalRow): Boolean = !row.isNullAt(ordinal) && {
      value = IntegralColumn.read(row, ordinal, width)
      true
    }

    def find(): Int = ids.getValue(value)
    def findOrAdd(): Int = ids.getOrAddValue(value)

    /** Reads the range of the keys of `rows` for the table ([[GroupIds.ByValue#expect]]). */
    override def expect(rows: PackedRows): Unit = {
      var (lo, hi) = (Long.MaxValue, Long.MinValue)
      val row = new UnsafeRow(rows.numFields)
      var i = 0
      while (i < rows.size) {
        if (read(rows.row(i, row))) { lo = math.min(lo, value); hi = math.max(hi, value) }
        i += 1
      }
      ids.expect(lo, hi, rows.size)
    }

    /**
     * Reads every key first, then looks them all up in a loop of nothing else: one lookup does
     * not wait for the one before, so the cache misses of a table larger than the cache overlap
     * instead of stalling one row at a time. A lookup left for later is marked by group 0.
     */
    override def collect(row: InternalRow, i: Int, groups: Array[Int], scratch: Array[Long])
        : Unit = {
      groups(i) = if (read(row)) 0 else -1
      scratch(i) = value
    }

    override def findCollected(n: Int, groups: Array[Int], scratch: Array[Long]): Unit = {
      var i = 0
      while (i < n) {
        if (groups(i) == 0) groups(i) = ids.getValue(scratch(i))
        i += 1
      }
    }
  }
}

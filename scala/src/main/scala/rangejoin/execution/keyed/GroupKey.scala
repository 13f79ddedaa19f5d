package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}

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

  /** The group of `row`'s keys, or -1 if one of them is NULL or no group has them. */
  final def groupOf(row: InternalRow): Int = if (read(row)) find() else -1
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
  }
}

package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, UnsafeProjection}

/**
 * Reads the join keys of input rows. When every key is a column of the row (as in
 * `r.salary < s.salary`), keys are read where they are, which spares a projection per row;
 * otherwise (`s.v - 5`) they are projected into a row of their own first.
 *
 * For a row, [[of]] gives the row that holds its keys, valid until the next call; key `k` is at
 * `ordinals(k)` of it.
 *
 * @param keys the keys, bound to the rows' schema
 */
final class RowKeys(keys: Seq[Expression]) {
  private val projection =
    if (keys.forall(_.isInstanceOf[BoundReference])) null else UnsafeProjection.create(keys)

  /** Whether the keys are read where they are, as columns of the rows. */
  def inPlace: Boolean = projection == null

  /** Where each key is in the rows [[of]] gives. */
  val ordinals: Array[Int] =
    if (projection == null) keys.map(_.asInstanceOf[BoundReference].ordinal).toArray
    else Array.range(0, keys.length)

  /** The row holding `row`'s keys. */
  def of(row: InternalRow): InternalRow = if (projection == null) row else projection(row)

  /** Whether a key is NULL in `keys`, a row [[of]] gave. */
  def anyNull(keys: InternalRow): Boolean = {
    var k = 0
    while (k < ordinals.length) {
      if (keys.isNullAt(ordinals(k))) return true
      k += 1
    }
    false
  }
}

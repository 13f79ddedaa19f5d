package rangejoin.execution.blocks

import rangejoin.local.InequalityOp

/**
 * The range of every inequality key over the rows of one block that have no NULL key, as
 * [[KeyColumn.min]] / [[KeyColumn.max]] give them (codes or values, compared by
 * [[KeyColumn.ordering]]). `rows == 0` means the block cannot match anything, and then `min` and
 * `max` are empty.
 */
final case class BlockStats(rows: Long, min: Array[Any], max: Array[Any]) {

  /**
   * Whether some row of this (left) block and some row of `right` can satisfy every inequality:
   * for `<`/`<=` the smallest left value against the largest right value, for `>`/`>=` the
   * reverse.
   */
  def canMatch(right: BlockStats, ops: Seq[InequalityOp], orderings: Seq[Ordering[Any]])
      : Boolean =
    rows > 0 && right.rows > 0 && ops.indices.forall { k =>
      val op = ops(k)
      val cmp =
        if (op.leftSmaller) orderings(k).compare(min(k), right.max(k))
        else orderings(k).compare(max(k), right.min(k))
      op.holds(cmp)
    }

  /** These statistics with keys 0 and 1 swapped, for a self-join that reads the block so. */
  def keys01Swapped: BlockStats = {
    def swapped(values: Array[Any]) =
      if (values.length < 2) values else values(1) +: values(0) +: values.drop(2)
    BlockStats(rows, swapped(min), swapped(max))
  }
}

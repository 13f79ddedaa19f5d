package rangejoin.execution.blocks

/**
 * Rows of one input that can match (no NULL join key), with their join keys, sorted by key 0;
 * and rows that cannot match because a join key is NULL.
 *
 * `keys(k)` holds inequality key `k` for every row of `rows`, in the same order. `key1Order`
 * lists the rows in ascending order of key 1 (ties in any order) when the block's loader was asked
 * for it, for a local join on two keys ([[rangejoin.local.IEJoinInput]]): made once when the block
 * is cut, it spares every block pair the block meets a sort. Otherwise it is empty. Blocks hold at
 * most `blockRows` rows each (see [[BlockLoader]]), so a block's range of key 0 is narrow and
 * its size is bounded even when one key value is very frequent. Outer, anti and existence joins
 * output the `nullKeyRows` as unmatched.
 */
final class Block(
    val rows: PackedRows,
    val keys: Array[KeyColumn],
    val key1Order: Array[Int],
    val nullKeyRows: PackedRows
) extends Serializable {
  def size: Int = rows.size

  /** The min/max of each key, for pruning block pairs. */
  def stats: BlockStats =
    if (size == 0) BlockStats(0, Array.empty, Array.empty)
    else BlockStats(size, keys.map(_.min), keys.map(_.max))
}

object Block {

  /**
   * The [[Block.key1Order]] of a block with `keys`, or empty unless `wanted`; the sort's arrays
   * are allocated from `budget`, and all but the result freed after.
   */
  def key1Order(keys: Array[KeyColumn], wanted: Boolean, budget: HeapBudget): Array[Int] =
    if (!wanted || keys.length < 2 || keys(1).length == 0) Array.emptyIntArray
    else {
      budget.allocate(keys(1).sortBytes)
      val order = keys(1).sortedIndices
      budget.free(keys(1).sortBytes - 4L * order.length)
      order
    }
}

/** Where a block is: the partition of its input, and its index among that partition's blocks. */
final case class BlockRef(partition: Int, index: Int)

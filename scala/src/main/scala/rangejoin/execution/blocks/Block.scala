package rangejoin.execution.blocks

/**
 * Rows of one input that can match (no NULL join key), with their join keys, sorted by key 0;
 * and rows that cannot match because a join key is NULL.
 *
 * `keys(k)` holds inequality key `k` for every row of `rows`, in the same order. Blocks hold at
 * most `blockRows` rows each (see [[BlockLoader]]), so a block's range of key 0 is narrow and
 * its size is bounded even when one key value is very frequent. Outer, anti and existence joins
 * output the `nullKeyRows` as unmatched.
 */
final class Block(val rows: PackedRows, val keys: Array[KeyColumn], val nullKeyRows: PackedRows)
    extends Serializable {
  def size: Int = rows.size

  /** The min/max of each key, for pruning block pairs. */
  def stats: BlockStats =
    if (size == 0) BlockStats(0, Array.empty, Array.empty)
    else BlockStats(size, keys.map(_.min), keys.map(_.max))
}

/** Where a block is: the partition of its input, and its index among that partition's blocks. */
final case class BlockRef(partition: Int, index: Int)

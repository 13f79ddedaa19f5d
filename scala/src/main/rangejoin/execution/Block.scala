package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection

/**
 * The rows of one block that can match (no NULL join key), with their join keys and statistics.
 *
 * `keys(k)` holds inequality key `k` for every row, in the order of `rows`. A block is built
 * once per query from its shuffle partition and kept in Spark's block manager
 * ([[CachedBlocks]]), so that every block pair that needs it reads it without decoding again.
 */
final class Block(val rows: Array[InternalRow], val keys: Array[KeyColumn]) extends Serializable {
  def size: Int = rows.length

  /** The min/max of each key, for pruning block pairs. */
  def stats: BlockStats =
    if (size == 0) BlockStats(0, Array.empty, Array.empty)
    else BlockStats(size, keys.map(_.min), keys.map(_.max))
}

object Block {

  /**
   * Reads a block, copying each row whose keys are all non-NULL. A NULL never satisfies an
   * inequality, so the other rows cannot join.
   *
   * @param keyProjection projects a row of this side to its join keys
   */
  def load(rows: Iterator[InternalRow], keyProjection: UnsafeProjection, encoders: Seq[KeyEncoder])
      : Block = {
    val kept = Array.newBuilder[InternalRow]
    val builders = encoders.map(_.newBuilder()).toArray
    rows.foreach { row =>
      val keys = keyProjection(row)
      if (!keys.anyNull) {
        kept += row.copy()
        var k = 0
        while (k < builders.length) { builders(k).add(keys, k); k += 1 }
      }
    }
    new Block(kept.result(), builders.map(_.result()))
  }
}

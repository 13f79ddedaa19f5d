package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

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

  /** The heap bytes this block holds, estimated for key values that are objects. */
  def sizeInBytes: Long = rows.sizeInBytes + nullKeyRows.sizeInBytes + keys.map(_.sizeInBytes).sum
}

/** Where a block is: the partition of its input, and its index among that partition's blocks. */
final case class BlockRef(partition: Int, index: Int)

object Block {

  /**
   * Reads the rows of one key group, in memory, into blocks of at most `blockRows` rows in
   * ascending order of key 0; rows with a NULL key go with the first block. Partitions of a
   * whole input go through [[BlockLoader]] instead, which sorts through Spark's external sorter.
   *
   * @param keyProjection projects a row of this input to its join keys
   * @param toUnsafe turns a row of this input (`numFields` columns) into an unsafe row;
   *                 sorts already give unsafe rows
   */
  def loadSorted(
      rows: Iterator[InternalRow],
      numFields: Int,
      keyProjection: UnsafeProjection,
      toUnsafe: UnsafeProjection,
      encoders: Seq[KeyEncoder],
      blockRows: Int
  ): Array[Block] = {
    val kept = new PackedRows.Builder(numFields)
    val nullKeys = new PackedRows.Builder(numFields)
    val builders = encoders.map(_.newBuilder()).toArray
    rows.foreach { row =>
      val unsafe = row match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      val keys = keyProjection(row)
      if (keys.anyNull) nullKeys += unsafe
      else {
        kept += unsafe
        var k = 0
        while (k < builders.length) { builders(k).add(keys, k); k += 1 }
      }
    }
    val all = kept.result()
    val withNullKeys = nullKeys.result()
    if (all.size == 0 && withNullKeys.size == 0) return Array.empty
    val keys = builders.map(_.result())
    val order = keys(0).sortedIndices
    val starts = if (all.size == 0) Seq(0) else 0 until all.size by blockRows
    starts.map { from =>
      val slice = java.util.Arrays.copyOfRange(order, from, math.min(from + blockRows, all.size))
      val nulls = if (from == 0) withNullKeys else PackedRows.empty(numFields)
      new Block(all.select(slice), keys.map(_.select(slice)), nulls)
    }.toArray
  }
}

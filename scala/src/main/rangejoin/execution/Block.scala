package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

/**
 * Rows of one input that can match (no NULL join key), with their join keys, sorted by key 0.
 *
 * `keys(k)` holds inequality key `k` for every row, in the order of `rows`. A partition of the
 * range-partitioned input is cut into blocks of at most `blockRows` rows, so a block's range of
 * key 0 is narrow and its size is bounded even when one key value is very frequent.
 */
final class Block(val rows: PackedRows, val keys: Array[KeyColumn]) extends Serializable {
  def size: Int = rows.size

  /** The min/max of each key, for pruning block pairs. */
  def stats: BlockStats =
    if (size == 0) BlockStats(0, Array.empty, Array.empty)
    else BlockStats(size, keys.map(_.min), keys.map(_.max))
}

/** Where a block is: the partition of its input, and its index among that partition's blocks. */
final case class BlockRef(partition: Int, index: Int)

object Block {

  /**
   * Reads one partition into blocks of at most `blockRows` rows, in ascending order of key 0.
   * Each row whose keys are all non-NULL is copied; a NULL never satisfies an inequality, so the
   * other rows cannot join.
   *
   * @param keyProjection projects a row of this input to its join keys
   * @param toUnsafe turns a row of this input into an unsafe row (exchanges already give them)
   */
  def loadSorted(
      rows: Iterator[InternalRow],
      keyProjection: UnsafeProjection,
      toUnsafe: UnsafeProjection,
      encoders: Seq[KeyEncoder],
      blockRows: Int
  ): Array[Block] = {
    var kept: PackedRows.Builder = null
    val builders = encoders.map(_.newBuilder()).toArray
    rows.foreach { row =>
      val keys = keyProjection(row)
      if (!keys.anyNull) {
        val unsafe = row match {
          case u: UnsafeRow => u
          case other => toUnsafe(other)
        }
        if (kept == null) kept = new PackedRows.Builder(unsafe.numFields)
        kept += unsafe
        var k = 0
        while (k < builders.length) { builders(k).add(keys, k); k += 1 }
      }
    }
    if (kept == null) return Array.empty
    val all = kept.result()
    val keys = builders.map(_.result())
    val order = keys(0).sortedIndices
    (0 until all.size by blockRows).map { from =>
      val slice = java.util.Arrays.copyOfRange(order, from, math.min(from + blockRows, all.size))
      new Block(all.select(slice), keys.map(_.select(slice)))
    }.toArray
  }
}

package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

/**
 * Rows of one input that can match (no NULL join key), with their join keys, sorted by key 0;
 * and the rows that cannot match because a join key is NULL.
 *
 * `keys(k)` holds inequality key `k` for every row of `rows`, in the same order. A partition of
 * the input is cut into blocks of at most `blockRows` matchable rows, so a block's range of key 0
 * is narrow and its size is bounded even when one key value is very frequent. The NULL-key rows
 * of a partition go with its first block: outer, anti and existence joins still return them.
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

object Block {

  /**
   * Reads one partition into blocks of at most `blockRows` rows, in ascending order of key 0.
   * A NULL never satisfies an inequality, so rows with a NULL key are kept apart.
   *
   * @param keyProjection projects a row of this input to its join keys
   * @param toUnsafe turns a row of this input (`numFields` columns) into an unsafe row;
   *                 exchanges already give unsafe rows
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
    val order = deterministicOrder(keys, all)
    val starts = if (all.size == 0) Seq(0) else 0 until all.size by blockRows
    starts.map { from =>
      val slice = java.util.Arrays.copyOfRange(order, from, math.min(from + blockRows, all.size))
      val nulls = if (from == 0) withNullKeys else PackedRows.empty(numFields)
      new Block(all.select(slice), keys.map(_.select(slice)), nulls)
    }.toArray
  }

  /**
   * Row indices in ascending order of key 0; ties are broken by the other keys, then by the rows'
   * bytes. A partition whose rows arrive in another order (a shuffle read does not fix it) thus
   * always cuts into the same blocks, so the statistics taken from one load stay true of a block
   * rebuilt later. Only fully identical rows keep their arrival order, and they are
   * interchangeable.
   */
  private def deterministicOrder(keys: Array[KeyColumn], rows: PackedRows): Array[Int] = {
    val order = keys(0).sortedIndices
    def compare(i: Int, j: Int): Int = {
      var k = 1
      while (k < keys.length) {
        val c = keys(k).compare(i, j)
        if (c != 0) return c
        k += 1
      }
      rows.compareBytes(i, j)
    }
    var start = 0
    while (start < order.length) {
      var end = start + 1
      while (end < order.length && keys(0).compare(order(start), order(end)) == 0) end += 1
      if (end - start > 1) {
        val run = java.util.Arrays.copyOfRange(order, start, end).sortWith(compare(_, _) < 0)
        System.arraycopy(run, 0, order, start, run.length)
      }
      start = end
    }
    order
  }
}

package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection

/**
 * The rows of one sorted block that can match (no NULL join key), with their join keys.
 *
 * `keys(k)` holds key `k` for every row, in the order of `rows`.
 */
final class Block(val rows: Array[InternalRow], val keys: Array[KeyColumn]) {
  def size: Int = rows.length
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

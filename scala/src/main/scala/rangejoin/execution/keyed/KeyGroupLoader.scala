package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._

import rangejoin.execution.blocks.{Block, HeapBudget, KeyColumn, KeyEncoder, PackedRows}

/**
 * Reads the rows of one side of a key group, in memory, into blocks of at most `blockRows` rows
 * in ascending order of key 0 (ties in arrival order); rows with a NULL key go with the first
 * block. Partitions of a whole input go through [[rangejoin.execution.blocks.BlockLoader]]
 * instead, which falls back to Spark's external sorter when a partition does not fit.
 *
 * Every array the load makes is allocated from the `budget` before it is made, so a budget that
 * reserves memory ([[KeyGroupMemory]]) bounds the heap the load takes, and one that refuses stops
 * the load before the heap holds what it refused:
 *  1. as rows arrive: the rows' and keys' builders, each array as it grows (the array it
 *     replaces stays held while it is copied), and key values that are objects;
 *  1. before the sort: the sort's working arrays;
 *  1. before each block is cut: its rows and keys, the sorted copy, and the sort of its key 1
 *     (the sort's arrays freed, its result kept).
 * Once the blocks are cut, the unsorted copy and the sort's arrays are freed; what stays
 * allocated is the blocks' arrays and key values, until the caller releases the budget.
 *
 * Made once per partition on an executor: a partition may hold many small groups.
 *
 * @param keys the inequality keys, bound to `schema`
 * @param ordersKey1 give each block its [[Block.key1Order]]
 */
final class KeyGroupLoader(
    schema: Seq[Attribute],
    keys: Seq[Expression],
    encoders: Seq[KeyEncoder],
    blockRows: Int,
    ordersKey1: Boolean
) {
  private val numFields = schema.length
  private val keyProjection = UnsafeProjection.create(keys)
  private val toUnsafe = UnsafeProjection.create(schema, schema) // sorts already give unsafe rows

  /** The blocks of `rows`, in key order; none for no rows. */
  def load(rows: Iterator[InternalRow], budget: HeapBudget): Array[Block] = {
    val kept = new PackedRows.Builder(numFields, budget)
    val nullKeys = new PackedRows.Builder(numFields, budget)
    val builders = encoders.map(_.newBuilder(budget)).toArray
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
    val keyColumns = builders.map(_.result())
    val blocks =
      if (all.size == 0 && withNullKeys.size == 0) {
        budget.free(withNullKeys.sizeInBytes)
        Array.empty[Block]
      } else cut(all, keyColumns, withNullKeys, budget)
    budget.free(all.sizeInBytes + keyColumns.map(_.arrayBytes).sum)
    blocks
  }

  /** `all`, with its `keys`, sorted and cut into blocks; the first also holds `withNullKeys`. */
  private def cut(
      all: PackedRows,
      keys: Array[KeyColumn],
      withNullKeys: PackedRows,
      budget: HeapBudget
  ): Array[Block] = {
    budget.allocate(keys(0).sortBytes)
    val order = keys(0).sortedIndices
    val starts = if (all.size == 0) Seq(0) else 0 until all.size by blockRows
    val blocks = starts.map { from =>
      val until = math.min(from + blockRows, all.size)
      val nulls = if (from == 0) withNullKeys else PackedRows.empty(numFields)
      val blockKeys = keys.map(_.select(order, from, until, budget))
      new Block(
        all.select(order, from, until, budget),
        blockKeys,
        Block.key1Order(blockKeys, ordersKey1, budget),
        nulls
      )
    }.toArray
    budget.free(keys(0).sortBytes)
    blocks
  }
}

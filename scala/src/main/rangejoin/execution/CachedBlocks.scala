package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection}
import org.apache.spark.storage.StorageLevel

/**
 * Each partition of a join input (range-partitioned, or coalesced when small) loaded once as
 * sorted [[Block]]s and kept in Spark's block manager.
 *
 * One job reads the blocks' statistics, which loads and caches them; the block-pair tasks then
 * read cached blocks instead of reading and decoding the shuffle again for every pair. Storage is
 * `MEMORY_AND_DISK`: Spark's memory manager accounts for the blocks and writes them to local disk
 * when storage memory runs short. The cache lives as long as the join's output RDD can still be
 * read (a `toLocalIterator` reads it after the query's execution has ended); Spark's
 * ContextCleaner drops it once that RDD is garbage collected. A block rebuilt after a loss has
 * the same rows as before (see [[Block.loadSorted]]), so the statistics stay valid.
 */
object CachedBlocks {

  /** One element per partition of `rows`: its blocks (see [[Block.loadSorted]]). */
  def apply(
      rows: RDD[InternalRow],
      schema: Seq[Attribute],
      keys: Seq[Expression],
      encoders: Seq[KeyEncoder],
      blockRows: Int
  ): RDD[Array[Block]] = {
    val blocks = rows
      .mapPartitions { it =>
        val keyProjection = UnsafeProjection.create(keys)
        val toUnsafe = UnsafeProjection.create(schema, schema)
        Iterator.single(
          Block.loadSorted(it, schema.length, keyProjection, toUnsafe, encoders, blockRows)
        )
      }
      .setName("rangejoin sorted blocks")
      .persist(StorageLevel.MEMORY_AND_DISK)
    blocks
  }
}

package rangejoin.execution

import org.apache.spark.SparkContext
import org.apache.spark.rdd.RDD
import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection}
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd
import org.apache.spark.storage.StorageLevel

/**
 * Each partition of a join input (range-partitioned, or coalesced when small) loaded once as
 * sorted [[Block]]s and kept in Spark's block manager.
 *
 * One job reads the blocks' statistics, which loads and caches them; the block-pair tasks then
 * read cached blocks instead of reading and decoding the shuffle again for every pair. Storage is
 * `MEMORY_AND_DISK`: Spark's memory manager accounts for the blocks and writes them to local disk
 * when storage memory runs short. The cache is dropped when the SQL execution that created it
 * ends; outside SQL executions, Spark's ContextCleaner drops it once the RDD is garbage collected.
 * Reading the join's output after that (a `toLocalIterator` reads partitions after its execution
 * has ended) rebuilds blocks from the input: slower, but the same rows land in the same blocks
 * (see [[Block.loadSorted]]), so the statistics taken earlier stay true.
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
    unpersistWhenExecutionEnds(rows.sparkContext, blocks.id)
    blocks
  }

  /** Holds only the RDD's id, so that the RDD itself stays collectable by ContextCleaner. */
  private def unpersistWhenExecutionEnds(sc: SparkContext, rddId: Int): Unit =
    Option(sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).map(_.toLong).foreach { id =>
      sc.addSparkListener(new SparkListener {
        override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
          case end: SparkListenerSQLExecutionEnd if end.executionId == id =>
            sc.getPersistentRDDs.get(rddId).foreach(_.unpersist(blocking = false))
            sc.removeSparkListener(this)
          case _ =>
        }
      })
    }
}

package rangejoin.execution.blocks

import java.util.concurrent.ConcurrentHashMap

import scala.util.chaining._

import org.apache.spark.{FutureAction, SparkContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.rangejoin.RddStorage
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd
import org.apache.spark.storage.StorageLevel

/**
 * The sorted [[Block]]s of one join input, loaded once per partition and kept in Spark's block
 * manager, one element per block.
 *
 * Loading sorts each partition, in memory or through Spark's external sorter ([[BlockLoader]]).
 * Storage is `MEMORY_AND_DISK`: Spark's unified memory manager accounts for cached blocks, writes a
 * partition that does not fit straight to local disk (blocks arrive one at a time, so a whole
 * partition is never held to do so), and moves cached blocks to disk when execution memory needs
 * the room. The block-pair tasks then read blocks instead of reading and sorting the shuffle
 * again for every pair.
 *
 * The cache is dropped when the SQL execution that created it ends; outside SQL executions,
 * Spark's ContextCleaner drops it once the RDD is garbage collected. Reading the join's output
 * after that (a `toLocalIterator` reads partitions after its execution has ended) rebuilds blocks
 * from the input: slower, but the same rows land in the same blocks (see [[BlockLoader]]), so the
 * statistics taken earlier stay true.
 */
final class CachedBlocks private (val blocks: RDD[Block]) {

  /**
   * Starts the job that loads and caches every partition; it gives each partition's block
   * statistics, in partition order.
   */
  def load(): FutureAction[Seq[Array[BlockStats]]] =
    blocks.mapPartitions(it => Iterator.single(it.map(_.stats).toArray)).collectAsync()
}

object CachedBlocks {

  /**
   * The blocks of every partition of `input`, whose partitions `rows` turns into rows (an input
   * of rows, or of column batches); nothing runs until [[CachedBlocks.load]].
   */
  def apply[T](
      input: RDD[T],
      rows: Iterator[T] => Iterator[InternalRow],
      loader: BlockLoader,
      spillSize: SQLMetric,
      peakMemory: SQLMetric
  ): CachedBlocks = {
    val blocks = input
      .mapPartitions { partition =>
        InjectedFailures.failFirstAttempt()
        loader.load(rows(partition), spillSize, peakMemory)
      }
      .setName("rangejoin sorted blocks")
      .persist(StorageLevel.MEMORY_AND_DISK)
    unpersistWhenExecutionEnds(input.sparkContext, blocks.id)
    new CachedBlocks(blocks)
  }

  /** Bytes of the blocks of `inputs` (each counted once) that Spark holds on local disk now. */
  def bytesOnDisk(inputs: Seq[CachedBlocks]): Long =
    RddStorage.diskBytes(inputs.head.blocks.sparkContext, inputs.map(_.blocks.id).toSet)

  /**
   * Drops the RDD's blocks when the current SQL execution ends. One listener per SparkContext
   * serves every query; it holds only RDD ids, so the RDDs themselves stay collectable by
   * ContextCleaner.
   */
  private def unpersistWhenExecutionEnds(sc: SparkContext, rddId: Int): Unit =
    Option(sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).map(_.toLong).foreach { id =>
      val janitor = janitors.synchronized {
        janitors.computeIfAbsent(sc, _ => new Janitor(sc).tap(sc.addSparkListener))
      }
      janitor.add(id, rddId)
    }

  private val janitors = new java.util.WeakHashMap[SparkContext, Janitor]

  /**
   * Unpersists the RDDs registered for each SQL execution when it ends. It refers to its context
   * weakly, so that the map of janitors does not keep a stopped context alive.
   */
  private final class Janitor(context: SparkContext) extends SparkListener {
    private val sc = new java.lang.ref.WeakReference(context)
    private val rddsByExecution = new ConcurrentHashMap[Long, Set[Int]]

    def add(executionId: Long, rddId: Int): Unit =
      rddsByExecution.merge(executionId, Set(rddId), _ ++ _)

    override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
      case end: SparkListenerSQLExecutionEnd =>
        Option(rddsByExecution.remove(end.executionId)).foreach { ids =>
          for (sc <- Option(sc.get); id <- ids; rdd <- sc.getPersistentRDDs.get(id)) {
            rdd.unpersist(blocking = false)
          }
        }
      case _ =>
    }
  }
}

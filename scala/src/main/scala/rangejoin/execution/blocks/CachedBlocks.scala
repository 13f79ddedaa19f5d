package rangejoin.execution.blocks

import scala.collection.mutable
import scala.util.chaining._

import org.apache.spark.{FutureAction, SparkContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.scheduler._
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
 * The cache is dropped when the SQL execution that created it has ended and no task of its jobs
 * runs any more; outside SQL executions, Spark's ContextCleaner drops it once the RDD is garbage
 * collected. Reading the join's output after that (a `toLocalIterator` reads partitions after its
 * execution has ended) rebuilds blocks from the input: slower, but the same rows land in the same
 * blocks (see [[BlockLoader]]), so the statistics taken earlier stay true.
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
   * Drops the RDD's blocks once the current SQL execution has ended and its tasks are done. One
   * listener per SparkContext serves every query; it holds only RDD ids, so the RDDs themselves
   * stay collectable by ContextCleaner.
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
   * Unpersists the RDDs registered for each SQL execution once it has ended and no task of the
   * jobs it started runs. A job may outlive its execution: Spark does not cancel the jobs of a
   * thread that is interrupted while it waits for them, and a cancelled job's tasks end some
   * time after the job. Such a task still caches the blocks it computes, so blocks dropped at
   * the execution's end would be cached again, with no query left to drop them.
   *
   * The janitor refers to its context weakly, so that the map of janitors does not keep a
   * stopped context alive. Its state is guarded by the janitor itself: `add` runs on the thread
   * that prepares a join, the events on the listener bus.
   */
  private final class Janitor(context: SparkContext) extends SparkListener {
    private val sc = new java.lang.ref.WeakReference(context)

    /** An execution with cached blocks: their RDDs, its jobs' stages, its running tasks. */
    private final class Execution {
      var rdds = Set.empty[Int]
      var stages = Set.empty[Int]
      val running = mutable.Set.empty[Long]
      var ended = false
    }

    private val executions = mutable.Map.empty[Long, Execution]

    def add(executionId: Long, rddId: Int): Unit = synchronized {
      val execution = executions.getOrElseUpdate(executionId, new Execution)
      execution.rdds += rddId
    }

    /** A job of an execution with blocks: its stages' tasks are counted from now on. */
    override def onJobStart(event: SparkListenerJobStart): Unit =
      for {
        properties <- Option(event.properties)
        id <- Option(properties.getProperty(SQLExecution.EXECUTION_ID_KEY))
      } synchronized(executions.get(id.toLong).foreach(_.stages ++= event.stageIds))

    override def onTaskStart(event: SparkListenerTaskStart): Unit = synchronized {
      for (e <- executions.values if e.stages(event.stageId)) e.running += event.taskInfo.taskId
    }

    override def onTaskEnd(event: SparkListenerTaskEnd): Unit = synchronized {
      for ((id, e) <- executions.toSeq if e.running.remove(event.taskInfo.taskId)) dropIfDone(id)
    }

    override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
      case end: SparkListenerSQLExecutionEnd =>
        synchronized {
          executions.get(end.executionId).foreach { e =>
            e.ended = true
            dropIfDone(end.executionId)
          }
        }
      case _ =>
    }

    private def dropIfDone(executionId: Long): Unit =
      executions.get(executionId).filter(e => e.ended && e.running.isEmpty).foreach { e =>
        executions.remove(executionId)
        for (sc <- Option(sc.get); id <- e.rdds; rdd <- sc.getPersistentRDDs.get(id)) {
          rdd.unpersist(blocking = false)
        }
      }
  }
}

package rangejoin.execution.runtime

import org.apache.spark.TaskContext
import org.apache.spark.memory.{MemoryConsumer, MemoryMode}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.rangejoin.TaskMemory

/**
 * The execution memory one task's range join works in, reserved from Spark's task memory
 * manager: the local join's arrays (sort permutations, bit sets), each stream block's match
 * bitmap, and a key-grouped join's blocks of the current group (reserved as its rows are read,
 * see `rangejoin.execution.keyed.KeyGroupMemory`). All but the last are bounded by
 * `spark.rangejoin.blockRows`, and none can be written out while in use, so this consumer never
 * spills: under pressure the memory manager spills other consumers (and moves cached blocks to
 * disk) to grant it. A reservation that still cannot be granted fails the task with an error
 * naming the config to lower, instead of the JVM running out of heap.
 *
 * All memory is released when the task ends; its peak is added to `peakMemory` then.
 */
final class JoinMemory private (context: TaskContext, peakMemory: SQLMetric)
    extends MemoryConsumer(TaskMemory.manager(context), MemoryMode.ON_HEAP) {
  private var peak = 0L

  /** Reserves `bytes` until [[release]]; fails when the memory manager cannot grant them. */
  def reserve(bytes: Long): Unit = {
    val granted = grant(bytes)
    if (granted < bytes) {
      throw new IllegalStateException(
        s"A range join task needs $bytes more bytes of execution memory and got $granted. " +
          "Lower spark.rangejoin.blockRows or raise the executor memory; a join with equality " +
          "keys holds each key group in memory, so a single very frequent key needs more."
      )
    }
  }

  /**
   * Reserves `bytes` until [[release]] if the memory manager grants them all, and says whether
   * it did; otherwise reserves nothing.
   */
  def tryReserve(bytes: Long): Boolean = grant(bytes) == bytes

  /** Acquires `bytes`; keeps them if all were granted, else gives back the part that was. */
  private def grant(bytes: Long): Long = {
    val granted = acquireMemory(bytes)
    if (granted < bytes) freeMemory(granted)
    else peak = math.max(peak, getUsed)
    granted
  }

  def release(bytes: Long): Unit = freeMemory(bytes)

  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L

  private def finish(): Unit = {
    peakMemory += peak
    TaskMemory.reportPeak(context, peak)
    freeMemory(getUsed)
  }
}

object JoinMemory {

  /** The current task's join memory, released when the task completes. */
  def forTask(peakMemory: SQLMetric): JoinMemory = {
    val context = TaskContext.get()
    val memory = new JoinMemory(context, peakMemory)
    context.addTaskCompletionListener[Unit](_ => memory.finish())
    memory
  }
}

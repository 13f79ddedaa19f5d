package rangejoin.execution.blocks

import org.apache.spark.TaskContext
import org.apache.spark.memory.{MemoryConsumer, MemoryMode}
import org.apache.spark.sql.execution.rangejoin.TaskMemory

/**
 * The execution memory of a load that sorts a partition in memory ([[InMemorySort]]): a
 * [[HeapBudget]] that reserves from the task's memory manager before the heap holds an array.
 *
 * It reserves ahead, as much again as it holds (at least [[LoadMemory.MinChunk]]), so a load of
 * `n` bytes asks the manager O(log n) times. When the manager cannot grant even the shortfall
 * (after spilling the task's other consumers), `allocate` throws [[LoadMemory.Refused]] and the
 * load goes to Spark's external sorter instead, giving everything back ([[release]]) once what it
 * buffered is on disk. It cannot spill what it holds, so a request to spill frees nothing;
 * [[release]] gives everything back once the blocks are cut, and the task's end gives back what a
 * load still holds whose blocks were not all read (a block-pair task that rebuilds a partition
 * whose cache was dropped reads only the blocks its pairs need).
 *
 * Once every row is held ([[settle]]), allocations no longer throw: cutting the blocks works in
 * the room the rows reserved for the sort and a copy, and the arrays it replaces on the way are
 * allocated before the ones they replace are freed, for a moment above what was granted. Failing
 * the load there would throw away a sort that has all its rows for memory it holds anyway.
 */
final class LoadMemory(context: TaskContext)
    extends MemoryConsumer(TaskMemory.manager(context), MemoryMode.ON_HEAP)
    with HeapBudget {
  private var held = 0L
  private var peakHeld = 0L
  private var refuses = true
  context.addTaskCompletionListener[Unit](_ => release())

  def allocate(bytes: Long): Unit = {
    val shortfall = held + bytes - getUsed
    if (shortfall > 0) {
      val granted = acquireMemory(math.max(shortfall, math.max(getUsed, LoadMemory.MinChunk)))
      if (granted < shortfall && refuses) throw LoadMemory.Refused
    }
    held += bytes
    peakHeld = math.max(peakHeld, getUsed)
  }

  def free(bytes: Long): Unit = held -= bytes

  /** From now on an allocation the manager cannot grant is made anyway (see above). */
  def settle(): Unit = refuses = false

  /** The most bytes reserved at once. */
  def peak: Long = peakHeld

  /** Gives back every reserved byte. */
  def release(): Unit = {
    freeMemory(getUsed)
    held = 0
  }

  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L
}

object LoadMemory {

  /** The least reserved at a time. */
  val MinChunk: Long = 1L << 20

  /** The memory manager could not grant an allocation. */
  object Refused extends RuntimeException("execution memory refused", null, false, false)
}

package rangejoin.execution.keyed

import rangejoin.execution.blocks.HeapBudget
import rangejoin.execution.runtime.JoinMemory

/**
 * The heap one key group's blocks take while they are built and joined, reserved from the task's
 * [[JoinMemory]] before the heap holds it: a [[HeapBudget]] for a [[KeyGroupLoader]].
 *
 * Invariants:
 *  - `held` (the bytes allocated and not yet freed) never exceeds `reserved` (the bytes reserved
 *    from the task's memory): `allocate` reserves before it returns, and the builders allocate
 *    only after it returns;
 *  - when an allocation would exceed the reservation, the group reserves ahead: as much again as
 *    it has reserved (at least [[KeyGroupMemory.MinChunk]]), so a group of `n` bytes makes
 *    O(log n) reservations and a small group one. If the memory manager cannot grant that
 *    much (after spilling the task's other consumers), it reserves just the shortfall; if it
 *    cannot grant even that, [[JoinMemory.reserve]] fails the task with its error naming
 *    `spark.rangejoin.blockRows`, and the heap never holds the refused bytes;
 *  - `free` lowers `held` only: the reservation stays for the group's next allocations (the
 *    sorted copy of one side reuses the room of the other's unsorted copy) until
 *    [[releaseUnused]] or [[release]].
 */
final class KeyGroupMemory(memory: JoinMemory) extends HeapBudget {
  private var held = 0L
  private var reserved = 0L

  def allocate(bytes: Long): Unit = {
    if (held + bytes > reserved) {
      val shortfall = held + bytes - reserved
      val ahead = math.max(shortfall, math.max(reserved, KeyGroupMemory.MinChunk))
      if (memory.tryReserve(ahead)) reserved += ahead
      else {
        memory.reserve(shortfall)
        reserved += shortfall
      }
    }
    held += bytes
  }

  def free(bytes: Long): Unit = held -= bytes

  /**
   * Gives back the reservation beyond the bytes held, if more than a chunk: once the group's
   * blocks are built, so that the join's own working memory can use the room of the copies
   * that were freed.
   */
  def releaseUnused(): Unit = {
    val unused = reserved - held
    if (unused > KeyGroupMemory.MinChunk) {
      memory.release(unused)
      reserved = held
    }
  }

  /** Gives back the whole reservation: once the group's output has been read. */
  def release(): Unit = {
    memory.release(reserved)
    reserved = 0
    held = 0
  }
}

object KeyGroupMemory {

  /** The least a group reserves at a time: enough for a small group's builders and blocks. */
  val MinChunk: Long = 64L << 10
}

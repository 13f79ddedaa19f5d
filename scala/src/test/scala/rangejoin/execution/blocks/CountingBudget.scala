package rangejoin.execution.blocks

/**
 * A budget for tests: counts the bytes held and their peak; refuses (as JoinMemory does) past
 * `limit`.
 */
final class CountingBudget(limit: Long = Long.MaxValue) extends HeapBudget {
  var held = 0L
  var peak = 0L

  def allocate(bytes: Long): Unit = {
    if (held + bytes > limit) throw new IllegalStateException(s"refused $bytes bytes")
    held += bytes
    peak = math.max(peak, held)
  }

  def free(bytes: Long): Unit = held -= bytes
}

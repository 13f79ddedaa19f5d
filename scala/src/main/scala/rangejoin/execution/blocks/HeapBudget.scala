package rangejoin.execution.blocks

/**
 * Where the heap arrays of blocks being built are accounted, so that a caller can reserve memory
 * for them before the heap holds them.
 *
 * A builder calls `allocate(bytes)` before it allocates an array of `bytes` (payload bytes: the
 * elements, not the object header), and `free(bytes)` once it no longer holds one. `allocate`
 * may refuse by throwing; nothing has been allocated then. An array replaced by a larger copy
 * stays held while it is copied ([[replace]]).
 */
trait HeapBudget {
  def allocate(bytes: Long): Unit
  def free(bytes: Long): Unit

  /**
   * Makes an array of `newBytes` with `make` in place of one of `oldBytes` that `make` copies:
   * allocates the new one first, and frees the old one once the copy is made.
   */
  final def replace[A](oldBytes: Long, newBytes: Long)(make: => A): A = {
    allocate(newBytes)
    val replaced = make
    free(oldBytes)
    replaced
  }
}

object HeapBudget {

  /** Accounts nothing: for blocks that `blockRows` bounds, such as [[BlockLoader]] cuts. */
  object Unaccounted extends HeapBudget {
    def allocate(bytes: Long): Unit = ()
    def free(bytes: Long): Unit = ()
  }
}

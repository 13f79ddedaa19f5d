package rangejoin.execution.keyed

/**
 * An iterator that makes its elements by steps: [[step]] does a bounded amount of work and may
 * set [[pending]], the next element; it returns false once there is nothing left to do.
 */
abstract class PendingIterator[T >: Null] extends Iterator[T] {
  protected var pending: T = _

  /** One step of work; false when there is none left. */
  protected def step(): Boolean

  override def hasNext: Boolean = {
    while (pending == null && step()) {}
    pending != null
  }

  override def next(): T = {
    if (!hasNext) throw new NoSuchElementException
    val out = pending
    pending = null
    out
  }
}

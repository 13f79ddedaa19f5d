package rangejoin.faults

/** Polling for a condition that becomes true in the background (events, executors, tasks). */
object Waits {

  /** Waits until `condition` holds; fails naming `what` after `timeoutMillis`. */
  def until(what: String, timeoutMillis: Long = 60000)(condition: => Boolean): Unit = {
    val deadline = System.nanoTime() + timeoutMillis * 1000000L
    while (!condition) {
      if (System.nanoTime() > deadline)
        throw new AssertionError(s"Gave up after $timeoutMillis ms waiting for: $what")
      Thread.sleep(50)
    }
  }
}

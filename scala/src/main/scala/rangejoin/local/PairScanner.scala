package rangejoin.local

/**
 * A local join of one stream block with one build block that yields its matching pairs one by
 * one, in any order and each exactly once.
 *
 * Use: `while (scanner.advance()) emit(scanner.leftIndex, scanner.rightIndex)`. Here "left" is
 * the stream block and "right" the build block, whichever inputs of the join they come from.
 */
trait PairScanner {

  /** Moves to the next matching pair; false when there is none left. */
  def advance(): Boolean

  /** Stream row of the current pair; valid after `advance()` returned true. */
  def leftIndex: Int

  /** Build row of the current pair; valid after `advance()` returned true. */
  def rightIndex: Int

  /**
   * Skips the remaining pairs of the current stream row, for joins that only ask whether a row
   * matched (semi, anti, existence).
   */
  def skipLeftRow(): Unit
}

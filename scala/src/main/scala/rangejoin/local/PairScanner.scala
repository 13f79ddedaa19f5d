package rangejoin.local

/**
 * A local join of one stream block with one build block that yields its matching pairs in
 * batches, in any order and each exactly once.
 *
 * Use: `var k = scanner.fill(lefts, rights); while (k > 0) { emit k pairs; k = scanner.fill(...) }`.
 * Here "left" is the stream block and "right" the build block, whichever inputs of the join they
 * come from. Pairs come in batches so that the loop that finds them is one tight loop per
 * scanner, not a call per pair through this interface.
 */
trait PairScanner {

  /**
   * Writes the next matching pairs, at most `lefts.length` of them: pair `k` is stream row
   * `lefts(k)` with build row `rights(k)`. Returns how many it wrote; 0 once no pair is left.
   */
  def fill(lefts: Array[Int], rights: Array[Int]): Int

  /**
   * Skips the remaining pairs of the stream row of the last pair written, for joins that only
   * ask whether a row matched (semi, anti, existence; they fill one pair at a time).
   */
  def skipLeftRow(): Unit
}

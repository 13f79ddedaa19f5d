package rangejoin.local

/**
 * A scanner over inputs given to `inner` in another order: `inner`'s left row `i` is row
 * `leftOrder(i)` here, and its right row `j` is row `rightOrder(j)`. For a merge on a block's key
 * 1, whose rows are in key 0 order: `inner` merges the keys in key 1 order, and this reports the
 * blocks' own row indices.
 */
final class PermutedScanner(inner: PairScanner, leftOrder: Array[Int], rightOrder: Array[Int])
    extends PairScanner {

  def fill(lefts: Array[Int], rights: Array[Int]): Int = {
    val filled = inner.fill(lefts, rights)
    var k = 0
    while (k < filled) {
      lefts(k) = leftOrder(lefts(k))
      rights(k) = rightOrder(rights(k))
      k += 1
    }
    filled
  }

  def skipLeftRow(): Unit = inner.skipLeftRow()
}

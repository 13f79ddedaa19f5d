package rangejoin.local

/**
 * A scanner over inputs given to `inner` in another order: `inner`'s left row `i` is row
 * `leftOrder(i)` here, and its right row `j` is row `rightOrder(j)` (an order that is `null`
 * leaves its side's rows as they are). For a merge on a block's key 1, whose rows are in key 0
 * order: `inner` merges the keys in key 1 order, and this reports the blocks' own row indices.
 */
final class PermutedScanner(inner: PairScanner, leftOrder: Array[Int], rightOrder: Array[Int])
    extends PairScanner {

  def fill(lefts: Array[Int], rights: Array[Int]): Int = {
    val filled = inner.fill(lefts, rights)
    PermutedScanner.map(lefts, filled, leftOrder)
    PermutedScanner.map(rights, filled, rightOrder)
    filled
  }

  def skipLeftRow(): Unit = inner.skipLeftRow()
}

private object PermutedScanner {

  /** Replaces each of the first `count` indices by its row in `order`, unless `order` is null. */
  def map(indices: Array[Int], count: Int, order: Array[Int]): Unit =
    if (order != null) {
      var k = 0
      while (k < count) { indices(k) = order(indices(k)); k += 1 }
    }
}

package rangejoin.local

/**
 * The order of rows by group, then by code within a group, then by position: a stable radix sort
 * on the codes followed by a stable counting sort on the groups, O(n) for n rows.
 */
object GroupedOrder {

  /**
   * The permutation that sorts rows `i` by `(groups(i), codes(i), i)`, and where each group
   * starts in it: group `g` is `order(starts(g))` until `order(starts(g + 1))`.
   *
   * @param groups each row's group, from 0 until `numGroups`
   */
  def apply(codes: Array[Long], groups: Array[Int], numGroups: Int): (Array[Int], Array[Int]) = {
    val byCode = RadixSort.sortedIndices(codes)
    val starts = new Array[Int](numGroups + 1)
    var i = 0
    while (i < groups.length) { starts(groups(i) + 1) += 1; i += 1 }
    var g = 0
    while (g < numGroups) { starts(g + 1) += starts(g); g += 1 }
    val next = starts.clone()
    val order = new Array[Int](byCode.length)
    // Loops, not `foreach`: a closure over an Array[Int] boxes every element.
    var k = 0
    while (k < byCode.length) {
      val row = byCode(k)
      val gi = groups(row)
      order(next(gi)) = row
      next(gi) += 1
      k += 1
    }
    (order, starts)
  }
}

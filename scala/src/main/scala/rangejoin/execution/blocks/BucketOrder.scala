package rangejoin.execution.blocks

/**
 * The stable order of items by bucket, a counting sort: bucket 0's items first, then bucket 1's,
 * and so on, each bucket's items in their order. Two passes over the items' buckets, one to count
 * and one to place, and no comparison.
 */
object BucketOrder {

  /**
   * The place of each bucket's first item in that order.
   *
   * @param buckets each of the first `n` items' bucket, from 0 until `numBuckets`
   */
  def firsts(buckets: Array[Int], n: Int, numBuckets: Int): Array[Int] = {
    val first = new Array[Int](numBuckets)
    var i = 0
    while (i < n) { first(buckets(i)) += 1; i += 1 }
    countsToStarts(first)
    first
  }

  /**
   * Replaces each bucket's count (of items, of bytes) by the sum of the counts before it, where
   * the bucket starts in that order; returns the sum of all counts.
   */
  def countsToStarts(counts: Array[Int]): Int = {
    var b = 0
    var sum = 0
    while (b < counts.length) {
      val count = counts(b)
      counts(b) = sum
      sum += count
      b += 1
    }
    sum
  }

  /**
   * Sets `places(i)` to the place of item `i` in that order, for each of the first `n` items.
   * `places` may be `buckets` itself: an item's bucket is read before its place is written.
   */
  def place(buckets: Array[Int], n: Int, numBuckets: Int, places: Array[Int]): Unit = {
    val next = firsts(buckets, n, numBuckets)
    var i = 0
    while (i < n) {
      val b = buckets(i)
      places(i) = next(b)
      next(b) += 1
      i += 1
    }
  }
}

package rangejoin.local

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * SortedSearch.upperBound gives, for every slice of ascending codes and every key, the position a
 * linear scan finds: one past the last code at most the key.
 */
class SortedSearchSuite extends AnyFunSuite {

  private def scanned(codes: Array[Long], from: Int, until: Int, key: Long): Int = {
    var i = from
    while (i < until && codes(i) <= key) i += 1
    i
  }

  test("every slice of short runs with duplicates, every key around and between the codes") {
    val random = new Random(5)
    for (_ <- 0 until 300) {
      val n = random.nextInt(40)
      // Few distinct values: long runs of equal codes, as a key's versions starting on one day.
      val codes = Array.fill(n)(random.nextInt(12).toLong - 6).sorted
      for {
        from <- 0 to n
        until <- from to n
        key <- -8L to 8L
      } assert(SortedSearch.upperBound(codes, from, until, key) == scanned(codes, from, until, key))
    }
  }

  test("the ends of the long range and long slices") {
    val codes = Array(Long.MinValue, Long.MinValue, -1L, 0L, 0L, 7L, Long.MaxValue)
    for (key <- Seq(Long.MinValue, Long.MinValue + 1, -1L, 0L, 6L, 7L, Long.MaxValue))
      assert(SortedSearch.upperBound(codes, 0, codes.length, key) == scanned(codes, 0, 7, key))
    val random = new Random(6)
    val long = Array.fill(100000)(random.nextLong()).sorted
    for (_ <- 0 until 2000) {
      val key = if (random.nextBoolean()) long(random.nextInt(long.length)) else random.nextLong()
      val from = random.nextInt(long.length)
      val until = from + random.nextInt(long.length - from + 1)
      assert(SortedSearch.upperBound(long, from, until, key) == scanned(long, from, until, key))
    }
  }
}

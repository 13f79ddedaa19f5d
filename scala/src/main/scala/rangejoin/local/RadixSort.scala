package rangejoin.local

/**
 * Stable least-significant-digit radix sort of signed 64-bit keys.
 *
 * Stability is what the local IEJoin relies on to break ties between its two inputs: rows with
 * equal keys keep the order in which they were given. Keys already in ascending order cost one
 * pass that finds them so. Otherwise the keys are sorted as their distances above the smallest
 * key (unsigned: a distance may exceed `Long.MaxValue`), so only the bits that the key range
 * spans are sorted: a range of `b` bits takes `ceil(b / 11)` passes of at most 11 bits each (a
 * million salaries within 2^20 of each other: two passes of 10 bits, where eight digits of 8 bits
 * each cost a counting pass). All passes' digits are counted in one read of the keys, and a digit
 * on which every key agrees is not moved.
 */
object RadixSort {

  /** The permutation that sorts `keys` ascending: `result(k)` is the index of the k-th key. */
  def sortedIndices(keys: Array[Long]): Array[Int] = {
    val n = keys.length
    var srcIdx = new Array[Int](n)
    var i = 0
    while (i < n) { srcIdx(i) = i; i += 1 }
    if (ascending(keys)) return srcIdx
    var min = Long.MaxValue
    var max = Long.MinValue
    i = 0
    while (i < n) { min = math.min(min, keys(i)); max = math.max(max, keys(i)); i += 1 }
    val rangeBits = 64 - java.lang.Long.numberOfLeadingZeros(max - min)
    val passes = (rangeBits + MaxDigitBits - 1) / MaxDigitBits
    val digitBits = (rangeBits + passes - 1) / passes
    val buckets = 1 << digitBits
    val mask = buckets - 1L
    var srcKeys = new Array[Long](n)
    val counts = new Array[Int](passes * buckets)
    i = 0
    while (i < n) {
      val distance = keys(i) - min
      srcKeys(i) = distance
      var p = 0
      while (p < passes) {
        counts(p * buckets + ((distance >>> (p * digitBits)) & mask).toInt) += 1
        p += 1
      }
      i += 1
    }
    var dstKeys = new Array[Long](n)
    var dstIdx = new Array[Int](n)
    var p = 0
    while (p < passes) {
      val base = p * buckets
      val shift = p * digitBits
      if (counts(base + ((srcKeys(0) >>> shift) & mask).toInt) != n) {
        var sum = 0
        var d = base
        while (d < base + buckets) { val c = counts(d); counts(d) = sum; sum += c; d += 1 }
        i = 0
        while (i < n) {
          val key = srcKeys(i)
          val bucket = base + ((key >>> shift) & mask).toInt
          val pos = counts(bucket)
          counts(bucket) = pos + 1
          dstKeys(pos) = key
          dstIdx(pos) = srcIdx(i)
          i += 1
        }
        val tk = srcKeys; srcKeys = dstKeys; dstKeys = tk
        val ti = srcIdx; srcIdx = dstIdx; dstIdx = ti
      }
      p += 1
    }
    srcIdx
  }

  /** `values` in `order`: `result(k) = values(order(k))`. */
  def gather(values: Array[Long], order: Array[Int]): Array[Long] = {
    val out = new Array[Long](order.length)
    var k = 0
    while (k < order.length) { out(k) = values(order(k)); k += 1 }
    out
  }

  private def ascending(keys: Array[Long]): Boolean = {
    var i = 1
    while (i < keys.length && keys(i - 1) <= keys(i)) i += 1
    i >= keys.length
  }

  /** The widest digit a pass sorts on: 2,048 counters, which stay in the first-level cache. */
  private val MaxDigitBits = 11
}

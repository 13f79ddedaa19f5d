package rangejoin.local

/**
 * Stable least-significant-digit radix sort of signed 64-bit keys.
 *
 * Stability is what the local IEJoin relies on to break ties between its two inputs: rows with
 * equal keys keep the order in which they were given. Digits on which every key agrees are
 * skipped, so narrow key ranges (ints, dates) cost few passes, and keys already in ascending
 * order cost one pass that finds them so.
 */
object RadixSort {

  /** The permutation that sorts `keys` ascending: `result(k)` is the index of the k-th key. */
  def sortedIndices(keys: Array[Long]): Array[Int] = {
    val n = keys.length
    var srcIdx = new Array[Int](n)
    var i = 0
    while (i < n) { srcIdx(i) = i; i += 1 }
    if (ascending(keys)) return srcIdx
    var srcKeys = keys.clone()
    var dstKeys = new Array[Long](n)
    var dstIdx = new Array[Int](n)
    val counts = new Array[Int](256)
    var shift = 0
    while (shift < 64) {
      java.util.Arrays.fill(counts, 0)
      i = 0
      while (i < n) { counts(digit(srcKeys(i), shift)) += 1; i += 1 }
      if (n > 0 && counts(digit(srcKeys(0), shift)) != n) {
        var sum = 0
        var d = 0
        while (d < 256) { val c = counts(d); counts(d) = sum; sum += c; d += 1 }
        i = 0
        while (i < n) {
          val pos = counts(digit(srcKeys(i), shift))
          counts(digit(srcKeys(i), shift)) = pos + 1
          dstKeys(pos) = srcKeys(i)
          dstIdx(pos) = srcIdx(i)
          i += 1
        }
        val tk = srcKeys; srcKeys = dstKeys; dstKeys = tk
        val ti = srcIdx; srcIdx = dstIdx; dstIdx = ti
      }
      shift += 8
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

  /** The byte of `key` at `shift`, with the sign bit flipped so that negatives sort first. */
  @inline private def digit(key: Long, shift: Int): Int =
    (((key ^ Long.MinValue) >>> shift) & 0xff).toInt
}

package rangejoin.local

/**
 * Stable least-significant-digit radix sort of signed 64-bit keys.
 *
 * Stability is what the local IEJoin relies on to break ties between its two inputs: rows with
 * equal keys keep the order in which they were given. Digits on which every key agrees are
 * skipped, so narrow key ranges (ints, dates) cost few passes.
 */
object RadixSort {

  /** The permutation that sorts `keys` ascending: `result(k)` is the index of the k-th key. */
  def sortedIndices(keys: Array[Long]): Array[Int] = {
    val n = keys.length
    var srcKeys = keys.clone()
    var srcIdx = new Array[Int](n)
    var i = 0
    while (i < n) { srcIdx(i) = i; i += 1 }
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

  /** The byte of `key` at `shift`, with the sign bit flipped so that negatives sort first. */
  @inline private def digit(key: Long, shift: Int): Int =
    (((key ^ Long.MinValue) >>> shift) & 0xff).toInt
}

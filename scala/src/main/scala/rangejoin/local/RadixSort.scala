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
 *
 * When a distance and a row index fit in 64 bits together (a range of up to 2^44 for a million
 * rows), each key is sorted as the one word `distance << indexBits | index`: a pass moves one
 * array, 8 bytes a key, instead of a key array and an index array, 12 bytes a key through two
 * streams, and the index in the low bits keeps equal keys in the order given. Otherwise keys
 * and indices move side by side.
 */
object RadixSort {

  /**
   * The keys in ascending order, and the permutation that sorts them: `keys(k)` is the input's
   * key `order(k)`. When the input is in ascending order already, `keys` is the input array.
   */
  final case class Sorted(order: Array[Int], keys: Array[Long])

  /** The permutation that sorts `keys` ascending: `result(k)` is the index of the k-th key. */
  def sortedIndices(keys: Array[Long]): Array[Int] = sort(keys).order

  /** `keys` sorted ascending, with the permutation that sorts them. */
  def sort(keys: Array[Long]): Sorted = {
    val n = keys.length
    if (ascending(keys)) return Sorted(Array.range(0, n), keys)
    val range = KeyRange.of(keys)
    val indexBits = 32 - Integer.numberOfLeadingZeros(n - 1)
    if (range.bits + indexBits <= 64) packed(keys, range.min, range.bits, indexBits)
    else sideBySide(keys, range.min, range.bits)
  }

  /**
   * The smallest of some keys, and the bits that their distances above it span (unsigned: a
   * distance may exceed `Long.MaxValue`); 0 bits for no keys or equal keys.
   */
  final case class KeyRange(min: Long, bits: Int)

  object KeyRange {
    def of(keys: Array[Long]): KeyRange = {
      var min = Long.MaxValue
      var max = Long.MinValue
      var i = 0
      while (i < keys.length) { min = math.min(min, keys(i)); max = math.max(max, keys(i)); i += 1 }
      if (keys.isEmpty) KeyRange(0L, 0)
      else KeyRange(min, 64 - java.lang.Long.numberOfLeadingZeros(max - min))
    }
  }

  /** `values` in `order`: `result(k) = values(order(k))`. */
  def gather(values: Array[Long], order: Array[Int]): Array[Long] = {
    val out = new Array[Long](order.length)
    var k = 0
    while (k < order.length) { out(k) = values(order(k)); k += 1 }
    out
  }

  /** Digits of one sort: how many passes, of how many bits each. */
  private final class Digits(rangeBits: Int) {
    val passes: Int = (rangeBits + MaxDigitBits - 1) / MaxDigitBits
    val bits: Int = (rangeBits + passes - 1) / passes
    val buckets: Int = 1 << bits
    val mask: Long = buckets - 1L

    /** How many distances have each digit, pass `p`'s at `p * buckets` ([[count]]). */
    val counts = new Array[Int](passes * buckets)

    /** Counts the digit of every pass of one key's distance above the smallest key. */
    @inline def count(distance: Long): Unit = {
      var p = 0
      while (p < passes) {
        counts(p * buckets + ((distance >>> (p * bits)) & mask).toInt) += 1
        p += 1
      }
    }

    /**
     * Where the next key whose distance has pass `p`'s digit of `distance` goes, once
     * [[startPass]] started the pass.
     */
    @inline def nextPosition(p: Int, distance: Long): Int = {
      val digit = p * buckets + ((distance >>> (p * bits)) & mask).toInt
      val position = counts(digit)
      counts(digit) = position + 1
      position
    }

    /**
     * Turns pass `p`'s counts into the first position of each digit; false when every key has
     * the digit `firstDistance` has, so that the pass would not move anything.
     */
    def startPass(p: Int, firstDistance: Long, n: Int): Boolean = {
      val base = p * buckets
      if (counts(base + ((firstDistance >>> (p * bits)) & mask).toInt) == n) false
      else {
        var sum = 0
        var d = base
        while (d < base + buckets) { val c = counts(d); counts(d) = sum; sum += c; d += 1 }
        true
      }
    }
  }

  /** The sort on words `distance << indexBits | index`. */
  private def packed(keys: Array[Long], min: Long, rangeBits: Int, indexBits: Int): Sorted = {
    val n = keys.length
    val digits = new Digits(rangeBits)
    var src = new Array[Long](n)
    var i = 0
    while (i < n) {
      val distance = keys(i) - min
      src(i) = (distance << indexBits) | i
      digits.count(distance)
      i += 1
    }
    var dst = new Array[Long](n)
    var p = 0
    while (p < digits.passes) {
      if (digits.startPass(p, src(0) >>> indexBits, n)) {
        i = 0
        while (i < n) {
          val word = src(i)
          dst(digits.nextPosition(p, word >>> indexBits)) = word
          i += 1
        }
        val t = src; src = dst; dst = t
      }
      p += 1
    }
    dst = null
    val order = new Array[Int](n)
    val indexMask = (1L << indexBits) - 1
    i = 0
    while (i < n) {
      val word = src(i)
      order(i) = (word & indexMask).toInt
      src(i) = (word >>> indexBits) + min // the key, in place
      i += 1
    }
    Sorted(order, src)
  }

  /** The sort on distances and indices in arrays of their own. */
  private def sideBySide(keys: Array[Long], min: Long, rangeBits: Int): Sorted = {
    val n = keys.length
    val digits = new Digits(rangeBits)
    var srcKeys = new Array[Long](n)
    var srcIdx = Array.range(0, n)
    var i = 0
    while (i < n) {
      val distance = keys(i) - min
      srcKeys(i) = distance
      digits.count(distance)
      i += 1
    }
    var dstKeys = new Array[Long](n)
    var dstIdx = new Array[Int](n)
    var p = 0
    while (p < digits.passes) {
      if (digits.startPass(p, srcKeys(0), n)) {
        i = 0
        while (i < n) {
          val position = digits.nextPosition(p, srcKeys(i))
          dstKeys(position) = srcKeys(i)
          dstIdx(position) = srcIdx(i)
          i += 1
        }
        val tk = srcKeys; srcKeys = dstKeys; dstKeys = tk
        val ti = srcIdx; srcIdx = dstIdx; dstIdx = ti
      }
      p += 1
    }
    i = 0
    while (i < n) { srcKeys(i) += min; i += 1 } // distances back to keys (wrapping)
    Sorted(srcIdx, srcKeys)
  }

  private def ascending(keys: Array[Long]): Boolean = {
    var i = 1
    while (i < keys.length && keys(i - 1) <= keys(i)) i += 1
    i >= keys.length
  }

  /** The widest digit a pass sorts on: 2,048 counters, which stay in the first-level cache. */
  private val MaxDigitBits = 11
}

package rangejoin.local

/**
 * A fixed-size bit set that finds the next set bit in near-constant time however sparse it is.
 *
 * Level 0 holds the bits; bit `w` of level `k + 1` is set when word `w` of level `k` is non-zero.
 * The top level is a single word. `nextSetBit` climbs only as far as it must to skip empty words,
 * so scanning a mostly empty range (few matches in IEJoin) does not cost its length / 64; past
 * the highest bit set, it answers without reading the levels (in an IEJoin whose two keys rise
 * together, as a salary and its tax, most left rows are visited when every marked right row
 * lies before them).
 */
final class HierarchicalBitSet(val size: Int) {
  private val levels: Array[Array[Long]] = {
    val buf = Array.newBuilder[Array[Long]]
    var bits = math.max(size, 1)
    var done = false
    while (!done) {
      val words = (bits + 63) >>> 6
      buf += new Array[Long](words)
      done = words == 1
      bits = words
    }
    buf.result()
  }

  private var highest = -1 // the highest index set, or -1

  def set(index: Int): Unit = {
    if (index > highest) highest = index
    var i = index
    var level = 0
    while (level < levels.length) {
      val words = levels(level)
      val w = i >>> 6
      val before = words(w)
      words(w) = before | (1L << (i & 63))
      if (before != 0) return // the upper levels already record this word
      i = w
      level += 1
    }
  }

  /** Bits `64 * w` to `64 * w + 63`, the lowest first. */
  def word(w: Int): Long = levels(0)(w)

  /**
   * The smallest set index `>= from`, or -1 when there is none: climbs from level 0 to the
   * first level with a set bit at or after the position of `from` there, then descends to its
   * lowest set bit on each level below (a loop, not recursion, so that the JIT can inline it).
   */
  def nextSetBit(from: Int): Int = {
    if (from > highest) return -1
    var level = 0
    var position = from // a bit position at `level`
    var word = 0L
    var w = 0
    while (word == 0) {
      val words = levels(level)
      w = position >>> 6
      if (w >= words.length) return -1
      word = words(w) & (-1L << (position & 63))
      if (word == 0) {
        if (level + 1 == levels.length) return -1
        level += 1
        position = w + 1 // the next word of the level below, as a bit of this level
      }
    }
    var index = (w << 6) + java.lang.Long.numberOfTrailingZeros(word)
    while (level > 0) {
      level -= 1
      index = (index << 6) + java.lang.Long.numberOfTrailingZeros(levels(level)(index))
    }
    index
  }
}

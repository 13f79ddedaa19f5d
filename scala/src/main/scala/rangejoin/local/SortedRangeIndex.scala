package rangejoin.local

/**
 * An index over the rows of a small (broadcast) input for one or two inequalities
 * `s.x op1 b.x [AND s.y op2 b.y]`, probed by one stream row at a time: `s` is the stream row, `b`
 * an indexed row. Keys are codes whose signed order is Spark's order (see
 * [[rangejoin.execution.blocks.KeyColumn]]); no indexed key is NULL.
 *
 * Layout: the rows sorted ascending by x (ties in row order), with y in the same order, plus a
 * running extreme of y: from the front (`prefixBest(j)`, over positions `0..j`) and from the back
 * (`suffixBest(j)`, over `j..n-1`). The extreme is the maximum when `op2` is `<`/`<=` (it wants a
 * large `b.y`) and the minimum when `op2` is `>`/`>=`.
 *
 * Probe, for a stream row's codes `sx`, `sy`:
 *  1. the rows satisfying `op1` are one run of the sorted order, found by binary search: a suffix
 *     for `<`/`<=` (the first `b.x` above `sx`, or not below it for `<=`), a prefix for `>`/`>=`
 *     (up to the first `b.x` not below `sx`, or above it for `>=`). Ties decide `<` versus `<=`;
 *  1. without `op2` every row of the run matches;
 *  1. with `op2` the run is walked away from its boundary with `sx`: a prefix from its end down, a
 *     suffix from its start up. The walk stops at the first position whose running extreme
 *     fails `op2`: every row further on has a `b.y` no better than that extreme, so none can
 *     match. Rows passed before that are checked one by one.
 * Sorted by start with a running maximum of ends, this is the classic index for points in
 * intervals (`s.v >= b.lo AND s.v < b.hi`): with disjoint intervals a probe costs O(log n +
 * matches); nested or overlapping intervals add the rows the walk passes without matching.
 *
 * When the running extreme does not stop the walk early (two inequalities on unrelated columns,
 * `p.v > i.lo AND p.id % 100 < i.y`), the walk would pass every row of the run. So an index of
 * at most `bitsMaxRows` rows also keeps, for every `m`, the set of positions of the `m` rows with
 * the smallest y as a bitset ([[YPrefixSets]]): the rows satisfying `op2` are such a set or its
 * complement, found by one binary search. A walk that has passed `walkSteps` rows goes on
 * through that set, 64 positions a word, within what remains of the run: a probe then costs at
 * most O(log n + walkSteps + n / 64 + matches).
 *
 * The index is immutable, so one broadcast copy serves every task of an executor; each task
 * probes through a [[SortedRangeIndex#Cursor]] of its own: `val c = index.cursor()`, then per
 * stream row `c.probe(sx, sy)` and `while (c.next()) emit(c.row)`.
 *
 * @param x key x of each indexed row, in row order
 * @param y key y of each indexed row, in row order; None for a single inequality
 * @param bitsMaxRows the most rows for which the index keeps the bitsets of y
 * @param walkSteps how many rows a walk passes before it goes on through the bitsets
 */
final class SortedRangeIndex(
    x: Array[Long],
    y: Option[Array[Long]],
    op1: InequalityOp,
    op2: Option[InequalityOp],
    bitsMaxRows: Int = SortedRangeIndex.BitsMaxRows,
    walkSteps: Int = SortedRangeIndex.WalkSteps
) extends Serializable {
  require(y.isDefined == op2.isDefined, "key y and op2 come together")

  /** Row numbers (in the order the keys were given) in ascending order of x. */
  val order: Array[Int] = RadixSort.sortedIndices(x)
  private val n = x.length
  private val xs: Array[Long] = RadixSort.gather(x, order)
  private val ys: Array[Long] = y.map(RadixSort.gather(_, order)).getOrElse(Array.emptyLongArray)
  private val wantsLarge = op2.exists(_.leftSmaller)
  private val prefixBest: Array[Long] = running(0, 1)
  private val suffixBest: Array[Long] = running(ys.length - 1, -1)
  private val ySets: YPrefixSets =
    if (op2.isDefined && n > 0 && n <= bitsMaxRows) new YPrefixSets(ys) else null

  /** A cursor over the matches of one stream row at a time, for one task. */
  def cursor(): Cursor = new Cursor

  final class Cursor private[SortedRangeIndex] {
    private var sy = 0L
    private var position = 0 // the next position to look at
    private var step = 0 // +1 walking up (a suffix), -1 walking down (a prefix)
    private var stop = 0 // the position that ends the run (exclusive)

    private var walked = 0 // rows the walk has passed in this probe
    // Through the bitsets: the positions of `set` within [from, until), a word at a time.
    private var inSets = false
    private var set = 0 // which y set: YPrefixSets.set(op2, sy)
    private var complement = false
    private var from = 0
    private var until = 0
    private var word = 0
    private var bits = 0L

    /** The current row's number in the order the keys were given; valid after `next()` is true. */
    var row: Int = -1

    /** Starts a probe for a stream row whose keys have codes `sx` and `sy` (ignored without y). */
    def probe(sx: Long, sy: Long): Unit = {
      this.sy = sy
      walked = 0
      inSets = false
      if (op1.leftSmaller) {
        // b.x > sx (strict) or b.x >= sx: the suffix from the first key above / not below sx.
        position = firstAbove(sx, orEqual = !op1.strict)
        step = 1
        stop = n
      } else {
        // b.x < sx (strict) or b.x <= sx: the prefix before the first key not below / above sx.
        position = firstAbove(sx, orEqual = op1.strict) - 1
        step = -1
        stop = -1
      }
    }

    /** Moves to the next matching row; false when the probe has no more. */
    def next(): Boolean = op2 match {
      case None =>
        if (position == stop) false
        else { row = order(position); position += step; true }
      case Some(op) =>
        if (inSets) return nextInSets()
        val best = if (step > 0) suffixBest else prefixBest
        while (position != stop) {
          if (walked == walkSteps && ySets != null) {
            startSets(op)
            return nextInSets()
          }
          walked += 1
          val j = position
          if (!op.holds(java.lang.Long.compare(sy, best(j)))) { position = stop; return false }
          position += step
          if (op.holds(java.lang.Long.compare(sy, ys(j)))) { row = order(j); return true }
        }
        false
    }

    /** Goes on through the y set of `op`, within the positions the walk has not passed. */
    private def startSets(op: InequalityOp): Unit = {
      inSets = true
      // The run's rest, as ascending positions [from, until).
      if (step > 0) { from = position; until = stop }
      else { from = stop + 1; until = position + 1 }
      position = stop
      set = ySets.set(op, sy)
      complement = ySets.isComplement(op)
      word = (from >>> 6) - 1
      bits = 0L
    }

    private def nextInSets(): Boolean = {
      val lastWord = (until - 1) >>> 6
      while (bits == 0L) {
        if (from >= until || word >= lastWord) return false
        word += 1
        bits = ySets.word(set, word, complement) & SortedRangeIndex.mask(word, from, until)
      }
      val j = (word << 6) + java.lang.Long.numberOfTrailingZeros(bits)
      bits &= bits - 1
      row = order(j)
      true
    }
  }

  /** The first position whose key is above `key` (or equal to it, with `orEqual`); n if none. */
  private def firstAbove(key: Long, orEqual: Boolean): Int = {
    var lo = 0
    var hi = n
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      val k = xs(mid)
      if (k > key || (orEqual && k == key)) hi = mid else lo = mid + 1
    }
    lo
  }

  /**
   * For every `m` from 0 to n, the positions (in the x order) of the `m` rows with the smallest
   * y, as a bitset of `words` words, stored one after the other.
   */
  private final class YPrefixSets(ys: Array[Long]) extends Serializable {
    private val words = (ys.length + 63) >>> 6
    private val sorted = RadixSort.sort(ys)
    private val sets: Array[Long] = {
      val out = new Array[Long]((ys.length + 1) * words)
      var m = 1
      while (m <= ys.length) {
        System.arraycopy(out, (m - 1) * words, out, m * words, words)
        val p = sorted.order(m - 1)
        out(m * words + (p >>> 6)) |= 1L << (p & 63)
        m += 1
      }
      out
    }

    /**
     * The `m` whose set holds the rows satisfying `sy op b.y` (see [[isComplement]]): the rows
     * below `sy` (or at most it) for `>`/`>=`, else those at most `sy` (or below it), whose
     * complement then satisfies.
     */
    def set(op: InequalityOp, sy: Long): Int =
      if (op.leftSmaller) MatchCounts.countBelow(sorted.keys, sy, orEqual = op.strict)
      else MatchCounts.countBelow(sorted.keys, sy, orEqual = !op.strict)

    /** Whether the rows satisfying `op` are the complement of [[set]]'s rows. */
    def isComplement(op: InequalityOp): Boolean = op.leftSmaller

    /** Word `w` of set `m`, or of its complement. */
    def word(m: Int, w: Int, complement: Boolean): Long = {
      val bits = sets(m * words + w)
      if (complement) ~bits else bits
    }
  }

  /** The running extreme of y from position `from` on in steps of `step`, stored at each one. */
  private def running(from: Int, step: Int): Array[Long] = {
    val out = new Array[Long](ys.length)
    var best = if (wantsLarge) Long.MinValue else Long.MaxValue
    var j = from
    while (j >= 0 && j < ys.length) {
      best = if (wantsLarge) math.max(best, ys(j)) else math.min(best, ys(j))
      out(j) = best
      j += step
    }
    out
  }
}

object SortedRangeIndex {

  /** The most indexed rows for which the y bitsets are kept: 8 MiB of them at most. */
  val BitsMaxRows: Int = 8192

  /** How many rows a walk passes before it goes on through the y bitsets. */
  val WalkSteps: Int = 64

  /** The bits of word `w` that are positions within [from, until). */
  private def mask(w: Int, from: Int, until: Int): Long = {
    val low = w << 6
    val start = if (from > low) -1L << (from - low) else -1L
    val end = if (until - low < 64) (1L << (until - low)) - 1 else -1L
    start & end
  }
}

package rangejoin.local

/**
 * The bounds of a point-in-range condition `lower op P op upper`: which bounds there are and
 * whether each is strict (`lower < P`, `P < upper`) or loose (`<=`). At least one is present.
 */
final case class RangeBounds(lowerStrict: Option[Boolean], upperStrict: Option[Boolean]) {
  require(lowerStrict.isDefined || upperStrict.isDefined, "a range has at least one bound")

  /**
   * The positions `[start, end)` of `sorted` (ascending codes) that lie within the range from
   * `lower` to `upper` (ignored where the bound is absent); `start >= end` when none do.
   */
  def positions(sorted: Array[Long], lower: Long, upper: Long): (Int, Int) = {
    val start = lowerStrict match {
      case None => 0
      case Some(strict) => MatchCounts.countBelow(sorted, lower, orEqual = strict)
    }
    val end = upperStrict match {
      case None => sorted.length
      case Some(strict) => MatchCounts.countBelow(sorted, upper, orEqual = !strict)
    }
    (start, end)
  }
}

/**
 * Counting, for every row of one input, the rows of the other that satisfy `lower op P op upper`,
 * from sorted 64-bit codes (whose signed order is Spark's order, see
 * [[rangejoin.execution.blocks.KeyColumn]]) and never from the pairs. The point `P` comes from
 * one input and both bounds from the other; rows with a NULL key are left out before.
 *
 * Four ways, by which input holds the points and which one is indexed (sorted in memory); the
 * other is streamed row by row:
 *  - [[PointsInRanges]]: points indexed; per streamed range, two binary searches.
 *  - [[RangesOverPoints]]: ranges indexed; per streamed point `d`, the ranges containing it are
 *    `#(lower op d) - #(not (d op upper))`, two binary searches over the lower and the upper
 *    bounds sorted apart. This holds for every range in which `not (d op upper)` implies
 *    `lower op d`: those whose lower bound is at most the upper (below it when both bounds are
 *    strict). Every other range contains no point at all and is left out.
 *  - [[RangeHistogram]]: ranges indexed, points streamed and counted into slots between and on
 *    the ranges' distinct bound values; a range's count is a difference of prefix sums.
 *  - [[PointCoverage]]: points indexed, ranges streamed: each range covers a run of the sorted
 *    distinct points, added to a difference array; a point's count is a prefix sum.
 */
object MatchCounts {

  /** How many of `sorted` (ascending) are below `key`, or at most `key` when `orEqual`. */
  def countBelow(sorted: Array[Long], key: Long, orEqual: Boolean): Int = {
    var lo = 0
    var hi = sorted.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      val k = sorted(mid)
      if (k < key || (orEqual && k == key)) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** `codes` sorted ascending (`codes` itself when it is; it is never changed). */
  def sorted(codes: Array[Long]): Array[Long] = RadixSort.sort(codes).keys

  /** The distinct values of an ascending array, in order. */
  def distinct(sorted: Array[Long]): Array[Long] = {
    val out = new Array[Long](sorted.length)
    var n = 0
    var i = 0
    while (i < sorted.length) {
      if (n == 0 || out(n - 1) != sorted(i)) { out(n) = sorted(i); n += 1 }
      i += 1
    }
    java.util.Arrays.copyOf(out, n)
  }
}

/** Indexed points, ascending; counts the points within one streamed range at a time. */
final class PointsInRanges(points: Array[Long], bounds: RangeBounds) {

  /** How many points lie within the range from `lower` to `upper`. */
  def count(lower: Long, upper: Long): Long = {
    val (start, end) = bounds.positions(points, lower, upper)
    math.max(0, end - start).toLong
  }
}

/**
 * Indexed ranges; counts the ranges containing one streamed point at a time.
 *
 * @param lower each range's lower bound code, in row order
 * @param upper each range's upper bound code, in row order, as many; the codes of an absent bound
 *   are ignored
 */
final class RangesOverPoints(lower: Array[Long], upper: Array[Long], bounds: RangeBounds) {
  require(lower.length == upper.length, "one lower and one upper code per range")
  private val both = bounds.lowerStrict.isDefined && bounds.upperStrict.isDefined
  private val bothStrict = bounds.lowerStrict.contains(true) && bounds.upperStrict.contains(true)

  /** The rows that can contain a point: see [[MatchCounts]]. */
  private val kept: Array[Int] =
    if (!both) lower.indices.toArray
    else
      lower.indices.filter { i =>
        if (bothStrict) lower(i) < upper(i) else lower(i) <= upper(i)
      }.toArray
  private val lowers = MatchCounts.sorted(kept.map(lower))
  private val uppers = MatchCounts.sorted(kept.map(upper))

  /** How many ranges contain `point`. */
  def count(point: Long): Long = {
    val within = bounds.lowerStrict match {
      case None => kept.length
      case Some(strict) => MatchCounts.countBelow(lowers, point, orEqual = !strict)
    }
    // Ranges whose upper bound excludes the point: upper <= point when strict, else upper < point.
    val past = bounds.upperStrict match {
      case None => 0
      case Some(strict) => MatchCounts.countBelow(uppers, point, orEqual = strict)
    }
    (within - past).toLong
  }
}

/**
 * Indexed ranges; counts streamed points into slots, then gives each range its count.
 *
 * The ranges' distinct bound values `b(0) < ... < b(m-1)` cut the line into `2m + 1` slots: slot
 * `2k + 1` holds the points equal to `b(k)`, slot `2k` those strictly between `b(k-1)` and `b(k)`.
 * A range's points fill a run of slots, so its count is a difference of prefix sums.
 *
 * @param lower each range's lower bound code, in row order
 * @param upper each range's upper bound code, in row order, as many; the codes of an absent bound
 *   are ignored
 */
final class RangeHistogram(lower: Array[Long], upper: Array[Long], bounds: RangeBounds) {
  require(lower.length == upper.length, "one lower and one upper code per range")
  private val values: Array[Long] = MatchCounts.distinct(
    MatchCounts.sorted(
      (if (bounds.lowerStrict.isDefined) lower else Array.emptyLongArray) ++
        (if (bounds.upperStrict.isDefined) upper else Array.emptyLongArray)
    )
  )
  private val slots = new Array[Long](2 * values.length + 1)

  /** Counts one point. */
  def add(point: Long): Unit = {
    val k = MatchCounts.countBelow(values, point, orEqual = false)
    val onValue = k < values.length && values(k) == point
    slots(2 * k + (if (onValue) 1 else 0)) += 1
  }

  /** Each range's count of the points added, in row order. */
  def counts(): Array[Long] = {
    val prefix = new Array[Long](slots.length + 1)
    var s = 0
    while (s < slots.length) { prefix(s + 1) = prefix(s) + slots(s); s += 1 }
    def slotOf(value: Long) = 2 * MatchCounts.countBelow(values, value, orEqual = false) + 1
    Array.tabulate(lower.length) { i =>
      val start = bounds.lowerStrict match {
        case None => 0
        case Some(strict) => slotOf(lower(i)) + (if (strict) 1 else 0)
      }
      val end = bounds.upperStrict match {
        case None => slots.length
        case Some(strict) => slotOf(upper(i)) + (if (strict) 0 else 1)
      }
      math.max(0L, prefix(end) - prefix(start))
    }
  }
}

/**
 * Indexed points; streamed ranges each add one to the run of distinct points they cover, then
 * each point gets its count.
 *
 * @param points each indexed row's point code, in row order
 */
final class PointCoverage(points: Array[Long], bounds: RangeBounds) {
  private val values = MatchCounts.distinct(MatchCounts.sorted(points))
  private val difference = new Array[Long](values.length + 1)

  /** Counts one range (its absent bound ignored). */
  def add(lower: Long, upper: Long): Unit = {
    val (start, end) = bounds.positions(values, lower, upper)
    if (start < end) { difference(start) += 1; difference(end) -= 1 }
  }

  /** Each point's count of the ranges added, in row order. */
  def counts(): Array[Long] = {
    val covered = new Array[Long](values.length)
    var running = 0L
    var k = 0
    while (k < values.length) { running += difference(k); covered(k) = running; k += 1 }
    points.map(p => covered(MatchCounts.countBelow(values, p, orEqual = false)))
  }
}

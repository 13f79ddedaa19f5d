package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, Expression, JoinedRow, UnsafeRow}
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.condition.AsOfDirection
import rangejoin.local.SortedSearch

/**
 * Finds an as-of join's answer for one left row among the right rows of its key group in an
 * [[AsOfIndex]]: the row satisfying `asOf AND residual` with the least `distance`, as Spark's
 * `min_by` defines it (rows of equal distance: any one of them, as in Spark).
 *
 * The walk. Starting at the left row's as-of code `l`, it visits the group's rows in order of
 * distance: backward, the codes at or below `l` downwards; forward, those at or above `l`
 * upwards; nearest, both sides merged by distance (the lower side first on a tie). The first
 * visited row that satisfies `asOf` and `residual` is the answer. A row that fails `asOf` with a
 * code other than `l` ends the walk on its side: `rangejoin.condition.AsOfCondition` checked that
 * `asOf`'s window holds at `l` and, once false moving away from `l`, stays false. (At `l` itself
 * `asOf` fails only when exact matches are excluded, and the walk goes on.)
 *
 * That argument needs arithmetic that neither wraps nor overflows: `l - r` for every code `r` of
 * the group, and `l` plus or minus the tolerance, must lie within `range`. A left row for which
 * this cannot be shown from the group's least and greatest code is searched in full instead:
 * every row of the group, `asOf`, `residual` and `distance` evaluated exactly as Spark does.
 *
 * Where the as-of values alone decide `asOf` (`excludesEqual`), the walk compares codes instead
 * of evaluating `asOf` on each candidate's row: on the side it walks, every code satisfies the
 * direction's comparison, except the left row's own code when `asOf` excludes equal values. A
 * walk without a residual then reads no row until the answer's.
 *
 * @param asOf Spark's as-of condition, on (left row, right row)
 * @param residual the rest of the join condition, if any, on (left row, right row)
 * @param distance Spark's order expression, on (left row, right row); for the full search
 * @param excludesEqual when the as-of values alone decide `asOf`, whether it excludes a right
 *   value equal to the left one ([[rangejoin.condition.AsOfCondition#excludesEqualValues]])
 * @param tolerance the tolerance in codes, if any
 * @param range the values a difference of codes may take
 *   ([[rangejoin.condition.AsOfCondition.codeRange]])
 * @param fullSearches counts the left rows searched in full
 */
final class AsOfSearch(
    direction: AsOfDirection,
    asOf: BasePredicate,
    residual: Option[BasePredicate],
    distance: Expression,
    excludesEqual: Option[Boolean],
    tolerance: Option[Long],
    range: (Long, Long),
    numRightFields: Int,
    fullSearches: SQLMetric
) {
  private val joined = new JoinedRow
  private val right = new UnsafeRow(numRightFields)
  private val ordering = TypeUtils.getInterpretedOrdering(distance.dataType)
  private val byCodes = excludesEqual.isDefined
  private val equalFails = excludesEqual.contains(true)

  /**
   * The position in `index` of the answer for `left`, whose as-of code is `l`, among the rows of
   * group `g`; -1 if no row qualifies.
   */
  def nearest(left: InternalRow, l: Long, index: AsOfIndex, g: Int): Int = {
    val (start, end) = (index.start(g), index.end(g))
    val codes = index.codes
    joined.withLeft(left)
    if (!safe(l, codes(start), codes(end - 1))) {
      fullSearches += 1
      return searchAll(index, start, end)
    }
    val above = SortedSearch.upperBound(codes, start, end, l)
    direction match {
      case AsOfDirection.Backward => walk(index, l, above - 1, start - 1, -1)
      case AsOfDirection.Forward => walk(index, l, lowerBound(codes, start, above, l), end, 1)
      case AsOfDirection.Nearest => walkBoth(index, l, above - 1, start, above, end)
    }
  }

  /** Walks positions `from` towards `until` (exclusive) by `step`. */
  private def walk(index: AsOfIndex, l: Long, from: Int, until: Int, step: Int): Int = {
    var i = from
    while (i != until) {
      if (!walkedHolds(index, l, i)) {
        if (index.codes(i) != l) return -1
      } else if (residualHolds(index, i)) return i
      i += step
    }
    -1
  }

  /** The nearest walk: `down` descends to `start`, `up` ascends to `end`, closest first. */
  private def walkBoth(
      index: AsOfIndex,
      l: Long,
      down0: Int,
      start: Int,
      up0: Int,
      end: Int
  ): Int = {
    val codes = index.codes
    var (down, up) = (down0, up0)
    var downOpen = down >= start
    var upOpen = up < end
    while (downOpen || upOpen) {
      val takeDown = downOpen && (!upOpen || l - codes(down) <= codes(up) - l)
      val i = if (takeDown) down else up
      if (!walkedHolds(index, l, i)) {
        if (codes(i) != l) { if (takeDown) downOpen = false else upOpen = false }
      } else if (residualHolds(index, i)) return i
      if (takeDown) {
        down -= 1
        downOpen &&= down >= start
      } else {
        up += 1
        upOpen &&= up < end
      }
    }
    -1
  }

  /** Spark's answer by definition: the least `distance` among the rows that qualify. */
  private def searchAll(index: AsOfIndex, start: Int, end: Int): Int = {
    var best = -1
    var bestDistance: Any = null
    var i = start
    while (i < end) {
      if (holds(asOf, index, i) && residualHolds(index, i)) {
        val d = distance.eval(joined)
        if (d != null && (best < 0 || ordering.lt(d, bestDistance))) {
          best = i
          bestDistance = d
        }
      }
      i += 1
    }
    best
  }

  /** Whether `asOf` holds for the row at `i`, which a walk from the left code `l` reached. */
  private def walkedHolds(index: AsOfIndex, l: Long, i: Int): Boolean =
    if (byCodes) !(equalFails && index.codes(i) == l) else holds(asOf, index, i)

  private def holds(p: BasePredicate, index: AsOfIndex, i: Int): Boolean =
    p.eval(joined.withRight(index.rows.row(i, right)))

  private def residualHolds(index: AsOfIndex, i: Int): Boolean =
    residual.forall(holds(_, index, i))

  /**
   * Whether no difference of `l` with a code in `[min, max]`, or with the tolerance, leaves
   * `range`.
   */
  private def safe(l: Long, min: Long, max: Long): Boolean =
    within(l, min) && within(l, max) && within(min, l) && within(max, l) &&
      tolerance.forall(t => within(l, t) && within(l, -t))

  /** Whether `a - b`, computed exactly, lies in `range`. */
  private def within(a: Long, b: Long): Boolean = {
    val d = a - b
    ((a ^ b) & (a ^ d)) >= 0 && d >= range._1 && d <= range._2
  }

  /** The first position in `[from, until)` whose code is at least `l`. */
  private def lowerBound(codes: Array[Long], from: Int, until: Int, l: Long): Int = {
    var (lo, hi) = (from, until)
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (codes(mid) < l) lo = mid + 1 else hi = mid
    }
    lo
  }
}

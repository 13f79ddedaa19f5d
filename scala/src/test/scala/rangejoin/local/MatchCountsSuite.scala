package rangejoin.local

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The four ways of [[MatchCounts]] against brute force, for every kind of bound, on small random
 * inputs full of ties, empty ranges (upper below lower, or equal with a strict bound) and the
 * extreme codes.
 */
class MatchCountsSuite extends AnyFunSuite {

  private val kinds = Seq(None, Some(true), Some(false))
  private val allBounds = for {
    lower <- kinds
    upper <- kinds
    if lower.isDefined || upper.isDefined
  } yield RangeBounds(lower, upper)

  private def within(b: RangeBounds, lower: Long, point: Long, upper: Long): Boolean =
    b.lowerStrict.forall(strict => if (strict) lower < point else lower <= point) &&
      b.upperStrict.forall(strict => if (strict) point < upper else point <= upper)

  /** Random codes around 0, with the extremes now and then. */
  private def codes(rnd: Random, n: Int, domain: Int): Array[Long] = Array.fill(n) {
    rnd.nextInt(20) match {
      case 0 => Long.MinValue
      case 1 => Long.MaxValue
      case _ => (rnd.nextInt(domain) - domain / 2).toLong
    }
  }

  private def name(b: RangeBounds): String = {
    def op(strict: Option[Boolean]) = strict.map(s => if (s) "<" else "<=")
    (op(b.lowerStrict).map(o => s"lower $o ").getOrElse("") + "p" +
      op(b.upperStrict).map(o => s" $o upper").getOrElse(""))
  }

  for (bounds <- allBounds) {
    test(s"${name(bounds)}: every way counts what brute force counts") {
      val rnd = new Random(bounds.hashCode)
      for (_ <- 0 until 300) {
        val domain = 1 + rnd.nextInt(10)
        val points = codes(rnd, rnd.nextInt(25), domain)
        val ranges = rnd.nextInt(25)
        val lower = codes(rnd, ranges, domain)
        val upper = codes(rnd, ranges, domain)
        def expected(r: Int) = points.count(p => within(bounds, lower(r), p, upper(r))).toLong
        def containing(p: Long) =
          lower.indices.count(r => within(bounds, lower(r), p, upper(r))).toLong
        val clue = s"points ${points.toSeq}, lower ${lower.toSeq}, upper ${upper.toSeq}"

        val sortedPoints = new PointsInRanges(MatchCounts.sorted(points.clone()), bounds)
        for (r <- 0 until ranges)
          assert(sortedPoints.count(lower(r), upper(r)) == expected(r), s"range $r: $clue")

        val sortedRanges = new RangesOverPoints(lower, upper, bounds)
        for (p <- points) assert(sortedRanges.count(p) == containing(p), s"point $p: $clue")

        val histogram = new RangeHistogram(lower, upper, bounds)
        points.foreach(histogram.add)
        assert(histogram.counts().toSeq == (0 until ranges).map(expected), clue)

        val coverage = new PointCoverage(points, bounds)
        lower.indices.foreach(r => coverage.add(lower(r), upper(r)))
        assert(coverage.counts().toSeq == points.toSeq.map(containing), clue)
      }
    }
  }

  test("countBelow counts the codes below a key, or at most it") {
    val sorted = Array(Long.MinValue, -1L, 3L, 3L, 7L, Long.MaxValue)
    assert(MatchCounts.countBelow(sorted, 3L, orEqual = false) == 2)
    assert(MatchCounts.countBelow(sorted, 3L, orEqual = true) == 4)
    assert(MatchCounts.countBelow(sorted, Long.MinValue, orEqual = false) == 0)
    assert(MatchCounts.countBelow(sorted, Long.MaxValue, orEqual = true) == 6)
    assert(MatchCounts.countBelow(Array.emptyLongArray, 0L, orEqual = true) == 0)
  }
}

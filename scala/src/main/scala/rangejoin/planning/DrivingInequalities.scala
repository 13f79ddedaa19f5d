package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types._

import rangejoin.condition.{FloatingOffsetKey, Inequality, IntegralOffsetKey, NullAsBoundKey}

/**
 * Puts first the two inequalities that prune best. The operators drive with the first two
 * (IEJoin, KeyGroupIEJoin, the broadcast index) and partition on the first; the others are
 * checked on the pairs those emit. So with three or more, the order in `ON` would otherwise
 * decide how many pairs are built only to be dropped.
 *
 * Each inequality is read as `l + a op r + b` with `l` a left column, `r` a right one and `a`,
 * `b` constants (a column, a column plus or minus a constant, a date plus days, a candidate key;
 * see [[offsetColumn]]). Its selectivity is `P(l - r <= b - a)` (or `>=`) for `l` and `r`
 * uniform over the ranges Spark's column statistics give (`ANALYZE TABLE ... FOR COLUMNS`).
 * A pair's selectivity is the product of its two, except for a band, a lower and an upper bound
 * on the same column pair, whose selectivity is `P(lower <= l - r <= upper)`. Without
 * statistics a band still comes first, since it bounds the difference from both sides, and
 * other inequalities keep their order. Ties keep the order of the condition, and so does the
 * chosen pair.
 */
object DrivingInequalities {

  def order(inequalities: Seq[Inequality], left: LogicalPlan, right: LogicalPlan)
      : Seq[Inequality] =
    if (inequalities.size < 3) inequalities
    else {
      val linear = inequalities.map(linearForm(_, left, right))
      val pairs = for {
        i <- inequalities.indices
        j <- inequalities.indices if i < j
      } yield (i, j)
      val (i, j) = pairs.minBy { case (i, j) => pairSelectivity(linear(i), linear(j)) }
      Seq(inequalities(i), inequalities(j)) ++
        inequalities.indices.filterNot(k => k == i || k == j).map(inequalities)
    }

  /**
   * `l - r <= offset` (`leftSmaller`) or `>= offset`, with the value ranges of `l` and `r`
   * where Spark's statistics have them.
   */
  private final case class Linear(
      l: ExprId,
      r: ExprId,
      leftSmaller: Boolean,
      offset: Double,
      ranges: Option[((Double, Double), (Double, Double))]
  ) {
    def selectivity: Option[Double] = ranges.map { case (lr, rr) =>
      val below = differenceCdf(lr, rr, offset)
      if (leftSmaller) below else 1 - below
    }
  }

  private def linearForm(ineq: Inequality, left: LogicalPlan, right: LogicalPlan)
      : Option[Linear] =
    for {
      (l, a) <- offsetColumn(ineq.left)
      (r, b) <- offsetColumn(ineq.right)
    } yield {
      val ranges = for {
        lr <- SizeEstimates.valueRange(left, l)
        rr <- SizeEstimates.valueRange(right, r)
      } yield (lr, rr)
      Linear(l.exprId, r.exprId, ineq.op.leftSmaller, b - a, ranges)
    }

  /** Unknown selectivities: a band's is taken as the lowest, an inequality's as one half. */
  private def pairSelectivity(a: Option[Linear], b: Option[Linear]): Double =
    (a, b) match {
      case (Some(x), Some(y)) if x.l == y.l && x.r == y.r && x.leftSmaller != y.leftSmaller =>
        val (upper, lower) = if (x.leftSmaller) (x, y) else (y, x)
        upper.ranges.fold(0.0) { case (lr, rr) =>
          (differenceCdf(lr, rr, upper.offset) - differenceCdf(lr, rr, lower.offset)).max(0)
        }
      case _ =>
        a.flatMap(_.selectivity).getOrElse(0.5) * b.flatMap(_.selectivity).getOrElse(0.5)
    }

  /**
   * `P(l - r <= t)` for `l` uniform over `[l0, l1]` and `r` over `[r0, r1]` (a point when the
   * ends are equal), by the midpoint rule over `r`.
   */
  def differenceCdf(l: (Double, Double), r: (Double, Double), t: Double): Double = {
    val steps = 512
    val (l0, l1) = l
    val (r0, r1) = r
    (0 until steps).map { k =>
      val x = r0 + (r1 - r0) * (k + 0.5) / steps + t
      if (l1 <= l0) { if (x >= l0) 1.0 else 0.0 }
      else ((x - l0) / (l1 - l0)).max(0).min(1)
    }.sum / steps
  }

  /**
   * `e` as a numeric, date or timestamp column plus a constant (in the column's units: days for
   * dates, microseconds for timestamps), if it is one.
   */
  def offsetColumn(e: Expression): Option[(Attribute, Double)] = {
    def constant(c: Expression): Option[Double] =
      Option(c).filter(_.foldable).flatMap(c => Option(c.eval())).collect {
        case n: java.lang.Number => n.doubleValue
        case d: Decimal => d.toDouble
      }
    def plus(x: Expression, c: Option[Double]) =
      for { k <- c; (a, o) <- offsetColumn(x) } yield (a, o + k)
    e match {
      case a: Attribute if ordered(a.dataType) => Some((a, 0.0))
      case Add(x, c, _) if c.foldable => plus(x, constant(c))
      case Add(c, x, _) if c.foldable => plus(x, constant(c))
      case Subtract(x, c, _) if c.foldable => plus(x, constant(c).map(-_))
      case DateAdd(x, c) if c.foldable => plus(x, constant(c))
      case Cast(x, _, _, _) if ordered(x.dataType) => offsetColumn(x)
      case IntegralOffsetKey(x, offset, _) => plus(x, Some(offset.toDouble))
      case FloatingOffsetKey(x, offset, _, _) => plus(x, Some(offset))
      case NullAsBoundKey(x, _) => offsetColumn(x)
      case _ => None
    }
  }

  private def ordered(dt: DataType): Boolean = dt match {
    case _: NumericType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }
}

package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.types.DataType

/**
 * The inequalities of a keyed join that put one input's column between two columns of the other:
 * `lower op point op upper`, the type-2 slowly changing dimension lookup
 * (`f.k = d.k AND f.ts >= d.valid_from AND (f.ts < d.valid_to OR d.valid_to IS NULL)`) and other
 * point-in-period lookups per key.
 *
 * `lower` and `upper` are the bounds as the operator orders them: a column, or an open end's
 * [[NullAsBoundKey]] (a NULL end is the type's extreme, so it contains every point). At least one
 * bound is a plain column, so a NULL point meets no interval. The point and the bounds are
 * columns, not expressions, so evaluating them on every row fails no row that Spark's own join
 * would not evaluate; they share one type with a 64-bit code in its order (integers, dates,
 * timestamps), so that the interval decides a pair exactly on codes.
 *
 * @param pointIsLeft whether the point is a column of the join's left input
 * @param lowerStrict whether the point must be above `lower` (`>`), not only at least it
 * @param upperStrict whether the point must be below `upper` (`<`), not only at most it
 * @param decided the condition's residual conjuncts that the interval decides: the open ends'
 *   `x < e OR e IS NULL`, whose candidates are its bounds
 */
final case class PointInInterval(
    pointIsLeft: Boolean,
    point: Attribute,
    lower: Expression,
    upper: Expression,
    lowerStrict: Boolean,
    upperStrict: Boolean,
    decided: Seq[Expression]
) {

  /** The column of the lower bound (seen through an open end). */
  def lowerColumn: Attribute = PointInInterval.column(lower).get

  /** The column of the upper bound (seen through an open end). */
  def upperColumn: Attribute = PointInInterval.column(upper).get

  /** Whether a NULL lower bound is an open end (every point is above it). */
  def lowerOpen: Boolean = lower.isInstanceOf[NullAsBoundKey]

  /** Whether a NULL upper bound is an open end (every point is below it). */
  def upperOpen: Boolean = upper.isInstanceOf[NullAsBoundKey]

  override def toString: String = {
    def op(strict: Boolean) = if (strict) "<" else "<="
    s"${lower.sql} ${op(lowerStrict)} ${point.sql} ${op(upperStrict)} ${upper.sql}"
  }
}

object PointInInterval {

  /**
   * The reading of `inequalities` as a point in an interval: exactly two, the same point column
   * on one side of both, one bound below it and one above, not both open ends. An open end's
   * candidate must come from one of `residuals`, which gives its strictness.
   */
  def of(
      inequalities: Seq[Inequality],
      residuals: Seq[Expression],
      left: AttributeSet,
      right: AttributeSet
  ): Option[PointInInterval] =
    if (inequalities.size != 2) None
    else {
      val openEnds = residuals.flatMap(r => OpenEnds.withStrictness(r, left, right).map((r, _)))
      Seq(true, false).flatMap(reading(inequalities, openEnds, _)).headOption
    }

  /**
   * One of the two inequalities as seen from the point: `point < bound` or `point <= bound` when
   * `isUpper`, else `bound < point` or `bound <= point`; `strictness` is None for an open end's
   * candidate that no residual conjunct stands for.
   */
  private case class AsSeen(
      point: Expression,
      bound: Expression,
      isUpper: Boolean,
      strictness: Option[Strictness]
  )

  /** Whether a bound is strict, and the residual conjunct it stands for if an open end's. */
  private case class Strictness(strict: Boolean, conjunct: Option[Expression])

  private def reading(
      ineqs: Seq[Inequality],
      openEnds: Seq[(Expression, (Inequality, Boolean))],
      pointIsLeft: Boolean
  ): Option[PointInInterval] = {
    val seen = ineqs.map { i =>
      val (point, op, bound) =
        if (pointIsLeft) (i.left, i.op, i.right) else (i.right, i.op.flip, i.left)
      val strictness =
        if (!OpenEnds.isCandidate(i)) Some(Strictness(op.strict, None))
        else openEnds.collectFirst { case (c, (`i`, strict)) => Strictness(strict, Some(c)) }
      AsSeen(point, bound, op.leftSmaller, strictness)
    }
    val (uppers, lowers) = seen.partition(_.isUpper)
    seen.map(s => column(s.point)) match {
      case Seq(Some(p), Some(q)) if p.semanticEquals(q) && uppers.size == 1 && lowers.size == 1 =>
        val (lower, upper) = (lowers.head, uppers.head)
        val bounds = Seq(lower.bound, upper.bound)
        val sameType = (p +: bounds).forall(_.dataType == p.dataType)
        val onePlain = bounds.exists(!_.isInstanceOf[NullAsBoundKey])
        (lower.strictness, upper.strictness) match {
          case (Some(l), Some(u))
              if bounds.forall(column(_).isDefined) && sameType && onePlain &&
                codable(p.dataType) =>
            Some(PointInInterval(
              pointIsLeft,
              p,
              lower.bound,
              upper.bound,
              l.strict,
              u.strict,
              l.conjunct.toSeq ++ u.conjunct
            ))
          case _ => None
        }
      case _ => None
    }
  }

  /** The column `e` is, seen through an open end's [[NullAsBoundKey]]. */
  private def column(e: Expression): Option[Attribute] = e match {
    case a: Attribute => Some(a)
    case NullAsBoundKey(a: Attribute, _) => Some(a)
    case _ => None
  }

  /** Types whose values have a 64-bit code in their order: those of as-of values. */
  def codable(dt: DataType): Boolean = AsOfCondition.codeRange.isDefinedAt(dt)
}

package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
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
 * timestamps). The comparisons' strictness is not kept: the join's condition decides each
 * candidate.
 *
 * @param pointIsLeft whether the point is a column of the join's left input
 */
final case class PointInInterval(
    pointIsLeft: Boolean,
    point: Attribute,
    lower: Expression,
    upper: Expression
) {
  override def toString: String = s"${lower.sql} <= ${point.sql} <= ${upper.sql}"
}

object PointInInterval {

  /**
   * The reading of `inequalities` as a point in an interval: exactly two, the same point column
   * on one side of both, one bound below it and one above, not both open ends.
   */
  def of(inequalities: Seq[Inequality]): Option[PointInInterval] =
    if (inequalities.size != 2) None
    else Seq(true, false).flatMap(reading(inequalities, _)).headOption

  private def reading(ineqs: Seq[Inequality], pointIsLeft: Boolean): Option[PointInInterval] = {
    // As `point op bound`: the op as seen from the point.
    val asSeen = ineqs.map { i =>
      if (pointIsLeft) (i.left, i.op, i.right) else (i.right, i.op.flip, i.left)
    }
    val points = asSeen.map(s => column(s._1))
    val (uppers, lowers) = asSeen.partition(_._2.leftSmaller)
    points match {
      case Seq(Some(p), Some(q)) if p.semanticEquals(q) && uppers.size == 1 && lowers.size == 1 =>
        val (lower, upper) = (lowers.head._3, uppers.head._3)
        val bounds = Seq(lower, upper)
        val columns = bounds.map(column)
        val sameType = (p +: bounds).forall(_.dataType == p.dataType)
        val onePlain = bounds.exists(!_.isInstanceOf[NullAsBoundKey])
        if (columns.forall(_.isDefined) && sameType && onePlain && codable(p.dataType)) {
          Some(PointInInterval(pointIsLeft, p, lower, upper))
        } else None
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

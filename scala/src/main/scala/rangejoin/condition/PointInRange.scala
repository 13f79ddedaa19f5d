package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions.{AttributeSet, Expression}

import rangejoin.local.RangeBounds

/**
 * A join condition that is exactly `lower op point op upper`: `point` reads one input, the
 * bounds the other, and there is nothing else (no equality, no residual). `lower` or `upper` may
 * be absent, not both. `BETWEEN`, a band `l.v BETWEEN r.v - w AND r.v + w` and a single
 * inequality are such conditions; a condition whose inequalities each compare the same two
 * expressions can be read with either input as the point.
 *
 * @param pointIsLeft whether `point` reads the join's left input
 */
final case class PointInRange(
    pointIsLeft: Boolean,
    point: Expression,
    lower: Option[Expression],
    upper: Option[Expression],
    bounds: RangeBounds
) {

  /** The bound expressions that are present: lower first. */
  def boundKeys: Seq[Expression] = lower.toSeq ++ upper

  override def toString: String = PointInRange.sql(point, lower, upper, bounds)
}

object PointInRange {

  /** `lower op point op upper` in SQL, as EXPLAIN and messages show it. */
  def sql(
      point: Expression,
      lower: Option[Expression],
      upper: Option[Expression],
      bounds: RangeBounds
  ): String = {
    def op(strict: Option[Boolean]) = if (strict.contains(true)) "<" else "<="
    lower.map(l => s"${l.sql} ${op(bounds.lowerStrict)} ").getOrElse("") + point.sql +
      upper.map(u => s" ${op(bounds.upperStrict)} ${u.sql}").getOrElse("")
  }

  /**
   * The readings of `condition` as a point in a range between the `left` and `right` inputs:
   * none when it is not one, one per input whose side of every inequality is the same expression
   * and whose bounds are at most one lower and one upper.
   */
  def of(condition: Expression, left: AttributeSet, right: AttributeSet): Seq[PointInRange] = {
    val conjuncts = JoinConditionAnalysis.analyze(condition, left, right)
    if (conjuncts.equalities.nonEmpty || conjuncts.residuals.nonEmpty) Nil
    else {
      val ineqs = conjuncts.inequalities
      Seq(true, false).flatMap(pointIsLeft => reading(ineqs, pointIsLeft))
    }
  }

  private def reading(ineqs: Seq[Inequality], pointIsLeft: Boolean): Option[PointInRange] = {
    val points = ineqs.map(i => if (pointIsLeft) i.left else i.right)
    val single = points.nonEmpty && points.forall(_.semanticEquals(points.head))
    if (!single) None
    else {
      // As `point op bound`: the op as seen from the point.
      val asSeen = ineqs.map { i =>
        if (pointIsLeft) (i.op, i.right) else (i.op.flip, i.left)
      }
      val (uppers, lowers) = asSeen.partition(_._1.leftSmaller)
      if (uppers.size > 1 || lowers.size > 1) None
      else
        Some(
          PointInRange(
            pointIsLeft,
            points.head,
            lowers.headOption.map(_._2),
            uppers.headOption.map(_._2),
            RangeBounds(lowers.headOption.map(_._1.strict), uppers.headOption.map(_._1.strict))
          )
        )
    }
  }
}

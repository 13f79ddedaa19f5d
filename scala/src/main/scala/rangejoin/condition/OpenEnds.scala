package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions._

import rangejoin.local.InequalityOp.{Ge, Le}

/**
 * Candidate inequalities from open-ended bounds: `x < e OR e IS NULL` (either way round, any of
 * `< <= > >=`, the NULL test on either operand), the usual "current row" of a type-2 slowly
 * changing dimension, where a NULL end means "still valid". `x` and `e` read opposite inputs.
 *
 * The candidate is `x <= nvl(e, +inf)` ([[NullAsBoundKey]]; `>=` and `-inf` for a lower bound):
 * a NULL `e` meets every row. It is non-strict and ignores strictness because the conjunct stays
 * in the condition and decides. A NULL `x` gets the opposite extreme, since
 * `NULL < e OR e IS NULL` is true when `e` is NULL. `x < coalesce(e, c)` needs no rewrite: it is
 * already an inequality.
 *
 * Only types with extreme values in Spark's ordering qualify (integers, dates, timestamps,
 * floats and doubles, where NaN is the largest).
 */
object OpenEnds {

  def candidates(conjuncts: Seq[Expression], left: AttributeSet, right: AttributeSet)
      : Seq[Inequality] = conjuncts.flatMap(withStrictness(_, left, right).map(_._1))

  /**
   * The open end `conjunct` is: its candidate, and whether its comparison is strict (which the
   * candidate does not keep); None if `conjunct` is not an open end.
   */
  def withStrictness(conjunct: Expression, left: AttributeSet, right: AttributeSet)
      : Option[(Inequality, Boolean)] = conjunct match {
    case _ if !conjunct.deterministic => None
    case Or(Comparison(a, op, b), IsNull(n)) =>
      candidate(a, op, b, n, left, right).map((_, op.strict))
    case Or(IsNull(n), Comparison(a, op, b)) =>
      candidate(a, op, b, n, left, right).map((_, op.strict))
    case _ => None
  }

  /** Whether `ineq` is an open end's candidate, as [[candidates]] builds them. */
  def isCandidate(ineq: Inequality): Boolean =
    ineq.left.isInstanceOf[NullAsBoundKey] && ineq.right.isInstanceOf[NullAsBoundKey]

  private def candidate(
      a: Expression,
      op: rangejoin.local.InequalityOp,
      b: Expression,
      nulled: Expression,
      left: AttributeSet,
      right: AttributeSet
  ): Option[Inequality] = {
    // Orient as `x op e`, `e` the operand that may be NULL.
    val oriented =
      if (nulled.semanticEquals(b)) Some((a, op, b))
      else if (nulled.semanticEquals(a)) Some((b, op.flip, a))
      else None
    oriented.filter { case (x, _, e) =>
      NullAsBoundKey.supports(x.dataType) && x.dataType == e.dataType
    }.flatMap { case (x, op, e) =>
      val upper = op.leftSmaller // `x < e`: `e` bounds `x` from above
      val xKey = NullAsBoundKey(x, high = !upper)
      val eKey = NullAsBoundKey(e, high = upper)
      val candidateOp = if (upper) Le else Ge
      JoinConditionAnalysis.sides(x, e, left, right).map { xLeft =>
        if (xLeft) Inequality(xKey, candidateOp, eKey) else Inequality(eKey, candidateOp.flip, xKey)
      }
    }
  }
}

package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions._

import rangejoin.local.InequalityOp

/** `left op right`, where `left` reads only the join's left input and `right` only its right. */
final case class Inequality(left: Expression, op: InequalityOp, right: Expression) {
  def toExpression: Expression = Comparison(left, op, right)
  override def toString: String = s"${left.sql} $op ${right.sql}"
}

/**
 * Catalyst's `< <= > >=` predicates as a [[rangejoin.local.InequalityOp]] between two operands.
 */
object Comparison {

  /** The Catalyst predicate for `l op r`. */
  def apply(l: Expression, op: InequalityOp, r: Expression): Expression = op match {
    case InequalityOp.Lt => LessThan(l, r)
    case InequalityOp.Le => LessThanOrEqual(l, r)
    case InequalityOp.Gt => GreaterThan(l, r)
    case InequalityOp.Ge => GreaterThanOrEqual(l, r)
  }

  /** The op and operands of a `< <= > >=` comparison, or None for anything else. */
  def unapply(e: Expression): Option[(Expression, InequalityOp, Expression)] = e match {
    case LessThan(l, r) => Some((l, InequalityOp.Lt, r))
    case LessThanOrEqual(l, r) => Some((l, InequalityOp.Le, r))
    case GreaterThan(l, r) => Some((l, InequalityOp.Gt, r))
    case GreaterThanOrEqual(l, r) => Some((l, InequalityOp.Ge, r))
    case _ => None
  }
}

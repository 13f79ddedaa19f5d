package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions._

/**
 * A comparison `left op right` between an expression over the left input and one over the right.
 *
 * `leftSmaller` says which way the comparison points (`<`, `<=` are true); `strict` says whether
 * equal values fail it (`<`, `>` are strict).
 */
sealed abstract class InequalityOp(
    val symbol: String,
    val leftSmaller: Boolean,
    val strict: Boolean
) extends Serializable {

  /** Whether the op holds for two values whose comparison (left vs right) gave `cmp`. */
  def holds(cmp: Int): Boolean =
    if (leftSmaller) (if (strict) cmp < 0 else cmp <= 0)
    else (if (strict) cmp > 0 else cmp >= 0)

  /** The op with its operands swapped: `a < b` is `b > a`. */
  def flip: InequalityOp = this match {
    case InequalityOp.Lt => InequalityOp.Gt
    case InequalityOp.Le => InequalityOp.Ge
    case InequalityOp.Gt => InequalityOp.Lt
    case InequalityOp.Ge => InequalityOp.Le
  }

  /** The Catalyst predicate for `l op r`. */
  def toExpression(l: Expression, r: Expression): Expression = this match {
    case InequalityOp.Lt => LessThan(l, r)
    case InequalityOp.Le => LessThanOrEqual(l, r)
    case InequalityOp.Gt => GreaterThan(l, r)
    case InequalityOp.Ge => GreaterThanOrEqual(l, r)
  }

  override def toString: String = symbol
}

object InequalityOp {
  case object Lt extends InequalityOp("<", leftSmaller = true, strict = true)
  case object Le extends InequalityOp("<=", leftSmaller = true, strict = false)
  case object Gt extends InequalityOp(">", leftSmaller = false, strict = true)
  case object Ge extends InequalityOp(">=", leftSmaller = false, strict = false)

  /** The op and operands of a `< <= > >=` comparison, or None for anything else. */
  def unapply(e: Expression): Option[(Expression, InequalityOp, Expression)] = e match {
    case LessThan(l, r) => Some((l, Lt, r))
    case LessThanOrEqual(l, r) => Some((l, Le, r))
    case GreaterThan(l, r) => Some((l, Gt, r))
    case GreaterThanOrEqual(l, r) => Some((l, Ge, r))
    case _ => None
  }
}

/** `left op right`, where `left` reads only the join's left input and `right` only its right. */
final case class Inequality(left: Expression, op: InequalityOp, right: Expression) {
  def toExpression: Expression = op.toExpression(left, right)
  override def toString: String = s"${left.sql} $op ${right.sql}"
}

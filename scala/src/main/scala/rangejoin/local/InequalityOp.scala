package rangejoin.local

/**
 * A comparison `left op right` with `op` in `< <= > >=`, as the kernels see it: which way it
 * points and whether equal values fail it. The Catalyst side of the same comparison is
 * [[rangejoin.condition.Inequality]].
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

  /**
   * Whether the op holds for every left value in `[leftMin, leftMax]` against every right value
   * in `[rightMin, rightMax]` (codes): for `<`/`<=` the largest left value against the smallest
   * right value, for `>`/`>=` the reverse.
   */
  def holdsForAll(leftMin: Long, leftMax: Long, rightMin: Long, rightMax: Long): Boolean =
    if (leftSmaller) holds(java.lang.Long.compare(leftMax, rightMin))
    else holds(java.lang.Long.compare(leftMin, rightMax))

  /** The op with its operands swapped: `a < b` is `b > a`. */
  def flip: InequalityOp = this match {
    case InequalityOp.Lt => InequalityOp.Gt
    case InequalityOp.Le => InequalityOp.Ge
    case InequalityOp.Gt => InequalityOp.Lt
    case InequalityOp.Ge => InequalityOp.Le
  }

  override def toString: String = symbol
}

object InequalityOp {
  case object Lt extends InequalityOp("<", leftSmaller = true, strict = true)
  case object Le extends InequalityOp("<=", leftSmaller = true, strict = false)
  case object Gt extends InequalityOp(">", leftSmaller = false, strict = true)
  case object Ge extends InequalityOp(">=", leftSmaller = false, strict = false)
}

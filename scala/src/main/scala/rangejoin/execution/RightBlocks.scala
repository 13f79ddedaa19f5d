package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression}
import org.apache.spark.sql.catalyst.plans.QueryPlan

/**
 * Where the right input of a block join gets its blocks. A self-join loads its input once and
 * reads the same blocks on both sides: as they are when its right keys are its left keys
 * (`r.salary < s.salary AND r.tax > s.tax`), or with keys 0 and 1 swapped when its right keys
 * are the left's first two swapped and any others the same (`r.start <= s.end AND
 * r.end >= s.start`), which only an IEJoin can ([[rangejoin.execution.runtime.IEJoinLocal]]).
 */
sealed trait RightBlocks

object RightBlocks {

  /** The right input loads blocks of its own. */
  case object Own extends RightBlocks

  /** The right input reads the left's blocks. */
  case object LeftSame extends RightBlocks

  /** The right input reads the left's blocks with keys 0 and 1 swapped. */
  case object LeftKeysSwapped extends RightBlocks

  /**
   * How a join of `left` and `right` on `leftKeys(k) op(k) rightKeys(k)` gets its right blocks:
   * the inputs must give the same result, and the keys, bound to each input's columns, must
   * match; the keys' swap only when `swappable`. Logical or physical inputs alike.
   */
  def of[P <: QueryPlan[P]](
      left: P,
      right: P,
      leftKeys: Seq[Expression],
      rightKeys: Seq[Expression],
      swappable: Boolean
  ): RightBlocks = {
    // Keys that do not bind (those of a canonicalized join, numbered across both inputs) stay
    // unbound, and then match nothing.
    val boundLeft = leftKeys.map(BindReferences.bindReference(_, left.output, allowFailures = true))
    val boundRight =
      rightKeys.map(BindReferences.bindReference(_, right.output, allowFailures = true))
    val swappedLeft = boundLeft.take(2).reverse ++ boundLeft.drop(2)
    if (!left.sameResult(right)) Own
    else if (boundRight == boundLeft) LeftSame
    else if (swappable && boundLeft.size >= 2 && boundRight == swappedLeft) LeftKeysSwapped
    else Own
  }
}

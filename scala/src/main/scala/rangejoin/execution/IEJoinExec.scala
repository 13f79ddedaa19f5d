package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.execution.SparkPlan

import rangejoin.execution.runtime.{IEJoinLocal, LocalJoin}
import rangejoin.local.InequalityOp

/**
 * Joins on two or more inequalities: IEJoin ([[rangejoin.local.IEJoinScanner]]) on the first two,
 * per block pair (see [[BlockRangeJoinExec]]); further inequalities prune block pairs and are
 * checked on the pairs IEJoin emits.
 *
 * Inequality `k` is `leftKeys(k) ops(k) rightKeys(k)`; there are at least two.
 *
 * @param residual the rest of the join condition, checked on candidate pairs
 * @param blockRows the most rows in one block
 * @param sortSpillRows rows a load task sorts in memory before it spills them
 * @param leftInput how the left input reaches the block loader; `rightInput` likewise
 */
case class IEJoinExec(
    leftKeys: Seq[Expression],
    ops: Seq[InequalityOp],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    sortSpillRows: Int,
    leftInput: BlockInput,
    rightInput: BlockInput,
    left: SparkPlan,
    right: SparkPlan
) extends BlockRangeJoinExec {
  require(ops.size >= 2, "IEJoinExec needs at least two inequalities")

  override protected def localKeys: Int = 2

  override protected def localJoin(ops: Seq[InequalityOp]): LocalJoin = IEJoinLocal(ops(0), ops(1))

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : IEJoinExec = copy(left = newLeft, right = newRight)
}

package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.execution.SparkPlan

import rangejoin.execution.runtime.{LocalJoin, MergeLocal}
import rangejoin.local.InequalityOp

/**
 * Joins on exactly one inequality `leftKey op rightKey`, plus optional residual conditions: a
 * piecewise merge join ([[rangejoin.local.MergeScanner]]) per pair of sorted blocks (see
 * [[BlockRangeJoinExec]]): each stream row emits its run of matching build rows.
 *
 * @param residual the rest of the join condition, checked on candidate pairs
 * @param blockRows the most rows in one block
 * @param sortSpillRows rows a load task sorts in memory before it spills them
 * @param leftInput how the left input reaches the block loader; `rightInput` likewise
 */
case class PiecewiseMergeJoinExec(
    leftKey: Expression,
    op: InequalityOp,
    rightKey: Expression,
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    sortSpillRows: Int,
    leftInput: BlockInput,
    rightInput: BlockInput,
    left: SparkPlan,
    right: SparkPlan
) extends BlockRangeJoinExec {

  override def leftKeys: Seq[Expression] = Seq(leftKey)
  override def ops: Seq[InequalityOp] = Seq(op)
  override def rightKeys: Seq[Expression] = Seq(rightKey)

  override protected def localKeys: Int = 1

  override protected def localJoin(ops: Seq[InequalityOp]): LocalJoin = MergeLocal(ops.head)

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : PiecewiseMergeJoinExec = copy(left = newLeft, right = newRight)
}

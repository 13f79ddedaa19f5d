package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.SparkPlan

import rangejoin.execution.runtime.{ExistenceByBound, LocalJoin, MergeLocal}
import rangejoin.local.InequalityOp

/**
 * Joins on exactly one inequality, plus optional residual conditions.
 *
 *  - Semi, anti and existence joins with no residual reduce the right side to its min or max
 *    key and filter the left side ([[ExistenceByBound]]): linear, and neither side is shuffled.
 *  - Every other case runs a piecewise merge join ([[MergeScanner]]) per pair of sorted blocks
 *    (see [[BlockRangeJoinExec]]): each stream row emits its run of matching build rows.
 *
 * @param residual the rest of the join condition, checked on candidate pairs
 * @param blockRows the most rows in one block
 * @param sortSpillRows rows a load task sorts in memory before it spills them
 */
case class PiecewiseMergeJoinExec(
    leftKey: Expression,
    op: InequalityOp,
    rightKey: Expression,
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    sortSpillRows: Int,
    left: SparkPlan,
    right: SparkPlan
) extends BlockRangeJoinExec {

  override def leftKeys: Seq[Expression] = Seq(leftKey)
  override def ops: Seq[InequalityOp] = Seq(op)
  override def rightKeys: Seq[Expression] = Seq(rightKey)

  override protected def localKeys: Int = 1

  override protected def localJoin(ops: Seq[InequalityOp]): LocalJoin = MergeLocal(ops.head)

  private def byBound = PiecewiseMergeJoinExec.usesBound(joinType, residual)

  override protected def strategyDescription: String =
    if (byBound) {
      s"filter by ${if (op.leftSmaller) "max" else "min"}(${rightKey.sql})"
    } else super.strategyDescription

  override protected def doExecute(): RDD[InternalRow] =
    if (byBound) {
      ExistenceByBound.execute(
        left.execute(),
        right.execute(),
        bind(leftKeys, left.output).head,
        bind(rightKeys, right.output).head,
        op,
        joinType,
        left.output,
        output,
        metrics("numOutputRows")
      )
    } else super.doExecute()

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : PiecewiseMergeJoinExec = copy(left = newLeft, right = newRight)
}

object PiecewiseMergeJoinExec {

  /** Whether the join is answered by a min/max bound instead of block pairs. */
  def usesBound(joinType: JoinType, residual: Option[Expression]): Boolean =
    residual.isEmpty && (joinType match {
      case LeftSemi | LeftAnti | _: ExistenceJoin => true
      case _ => false
    })
}

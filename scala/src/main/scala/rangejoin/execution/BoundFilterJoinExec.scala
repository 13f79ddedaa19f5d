package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}

import rangejoin.execution.runtime.ExistenceByBound
import rangejoin.local.InequalityOp

/**
 * A left semi, left anti or existence join on one inequality `leftKey op rightKey` and nothing
 * else, answered as a filter of the left input against the right input's most favourable key
 * (its max for `<`/`<=`, its min for `>`/`>=`; see
 * [[rangejoin.execution.runtime.ExistenceByBound]]): linear, and neither input is shuffled or
 * sorted. The bound's job runs when an action first asks for the join's partitions
 * ([[DeferredRDD]]).
 */
case class BoundFilterJoinExec(
    leftKey: Expression,
    op: InequalityOp,
    rightKey: Expression,
    joinType: JoinType,
    left: SparkPlan,
    right: SparkPlan
) extends BinaryExecNode
    with JoinMetrics {
  require(BoundFilterJoinExec.supports(joinType), s"BoundFilterJoinExec does not run $joinType")

  override def output: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override protected def reportedMetrics: Seq[JoinMetric] = Seq(JoinMetric.NumOutputRows)

  override def simpleString(maxFields: Int): String =
    s"$nodeName $joinType, [${leftKey.sql} $op ${rightKey.sql}], " +
      s"filter by ${if (op.leftSmaller) "max" else "min"}(${rightKey.sql})"

  override protected def doExecute(): RDD[InternalRow] = {
    val leftRows = left.execute()
    val rightRows = right.execute()
    val boundLeftKey = BindReferences.bindReference(leftKey, left.output)
    val boundRightKey = BindReferences.bindReference(rightKey, right.output)
    val numOutputRows = metric(JoinMetric.NumOutputRows)
    val (leftOutput, joinOutput) = (left.output, output)
    new DeferredRDD(
      sparkContext,
      () =>
        ExistenceByBound.execute(
          leftRows,
          rightRows,
          boundLeftKey,
          boundRightKey,
          op,
          joinType,
          leftOutput,
          joinOutput,
          numOutputRows
        )
    )
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : BoundFilterJoinExec = copy(left = newLeft, right = newRight)
}

object BoundFilterJoinExec {

  /** The join types whose answer depends only on whether a left row has a match. */
  def supports(joinType: JoinType): Boolean = joinType match {
    case LeftSemi | LeftAnti | _: ExistenceJoin => true
    case _ => false
  }
}

package rangejoin.planning

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.{JoinType, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.{AsOfJoin, BinaryNode, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

import rangejoin.condition.{AsOfCondition, AsOfDirection}
import rangejoin.config.RangeJoinConf
import rangejoin.execution.AsOfJoinExec

/**
 * An as-of join this extension answers: Spark's `AsOfJoin` taken apart
 * ([[rangejoin.condition.AsOfCondition]]'s fields). Spark's optimizer rewrites an `AsOfJoin` into
 * a join of every distinct left as-of value with every right row (`RewriteAsOfJoin`); this node
 * replaces it before the optimizer runs, so the rewrite never sees it, and
 * [[AsOfJoinStrategy]] plans it. Its output is the `AsOfJoin`'s.
 */
final case class NearestMatchJoin(
    left: LogicalPlan,
    right: LogicalPlan,
    leftAsOf: Expression,
    rightAsOf: Expression,
    direction: AsOfDirection,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    asOfCondition: Expression,
    orderExpression: Expression,
    tolerance: Option[Long],
    joinType: JoinType
) extends BinaryNode {

  override def output: Seq[Attribute] = joinType match {
    case LeftOuter => left.output ++ right.output.map(_.withNullability(true))
    case _ => left.output ++ right.output
  }

  override protected def withNewChildrenInternal(
      newLeft: LogicalPlan,
      newRight: LogicalPlan
  ): NearestMatchJoin = copy(left = newLeft, right = newRight)
}

/**
 * Replaces each resolved batch `AsOfJoin` by a [[NearestMatchJoin]] at the end of analysis,
 * when `spark.rangejoin.enabled` and `spark.rangejoin.asOfJoin.enabled` are on (read then: a
 * DataFrame keeps the decision taken when it was analyzed). It leaves the join to Spark, and
 * says why at debug level, when:
 *  - the as-of columns are not integers, dates or timestamps, or the condition is not of the
 *    form `joinAsOf` builds ([[rangejoin.condition.AsOfCondition.of]]);
 *  - an input is a stream (Spark has no streaming as-of join; it fails as it would);
 *  - there are no equality keys and the right input is estimated above
 *    `spark.sql.autoBroadcastJoinThreshold`, so it cannot be broadcast.
 */
final case class AcceptAsOfJoins(session: SparkSession) extends Rule[LogicalPlan] with Logging {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val conf = session.sessionState.conf
    if (!RangeJoinConf.Enabled.get(conf) || !RangeJoinConf.AsOfJoinEnabled.get(conf)) plan
    else
      // An analyzer rule visits only what analysis has not marked analyzed (Spark's tests fail a
      // rule that transforms an analyzed subtree): a DataFrame keeps the decision taken for it.
      plan.resolveOperatorsUp {
        case j: AsOfJoin if j.resolved && !j.isStreaming =>
          accept(j) match {
            case Right(accepted) => accepted
            case Left(reason) =>
              logDebug(s"As-of join left to Spark: $reason")
              j
          }
      }
  }

  private def accept(j: AsOfJoin): Either[String, NearestMatchJoin] =
    AsOfCondition
      .of(
        j.left.outputSet,
        j.right.outputSet,
        j.asOfCondition,
        j.condition,
        j.orderExpression,
        j.toleranceAssertion
      )
      .filterOrElse(
        c => c.leftKeys.nonEmpty || AsOfJoinStrategy.broadcastable(j.right, session),
        "no equality keys, and the right input is too large to broadcast"
      )
      .map { c =>
        NearestMatchJoin(
          j.left,
          j.right,
          c.leftAsOf,
          c.rightAsOf,
          c.direction,
          c.leftKeys,
          c.rightKeys,
          c.residual,
          c.asOfCondition,
          c.orderExpression,
          c.tolerance,
          j.joinType
        )
      }
}

/**
 * Plans a [[NearestMatchJoin]] as [[rangejoin.execution.AsOfJoinExec]]: the right input
 * broadcast when there are no equality keys or it is estimated at most
 * `spark.sql.autoBroadcastJoinThreshold` (under adaptive execution, on its runtime size), else
 * both inputs hash-partitioned on the keys. A projection directly above that only keeps columns
 * ([[KeptColumns]]) is folded into the node, which then writes only those.
 */
final case class AsOfJoinStrategy(session: SparkSession) extends SparkStrategy {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case KeptColumns(columns, j: NearestMatchJoin) => exec(j, Some(columns)) :: Nil
    case j: NearestMatchJoin => exec(j, None) :: Nil
    case _ => Nil
  }

  private def exec(j: NearestMatchJoin, columns: Option[Seq[Attribute]]): AsOfJoinExec =
    AsOfJoinExec(
      j.leftAsOf,
      j.rightAsOf,
      j.direction,
      j.leftKeys,
      j.rightKeys,
      j.residual,
      j.asOfCondition,
      j.orderExpression,
      j.tolerance,
      j.joinType,
      j.leftKeys.isEmpty || AsOfJoinStrategy.broadcastable(j.right, session),
      columns,
      planLater(j.left),
      planLater(j.right)
    )
}

object AsOfJoinStrategy {

  /** Whether `plan` is estimated small enough for Spark to broadcast. */
  def broadcastable(plan: LogicalPlan, session: SparkSession): Boolean = {
    val threshold = session.sessionState.conf.autoBroadcastJoinThreshold
    threshold >= 0 && plan.stats.sizeInBytes <= threshold
  }
}

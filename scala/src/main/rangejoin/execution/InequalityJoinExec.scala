package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.{And, Expression}
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.execution.BinaryExecNode

import rangejoin.planning.{Inequality, InequalityOp}

/**
 * A join operator that runs a local join ([[LocalJoin]]) on the leading inequalities of its
 * condition over pairs of sorted blocks, through [[BlockJoinRuntime]].
 */
trait InequalityJoinExec extends BinaryExecNode {

  /** Inequality `k` is `leftKeys(k) ops(k) rightKeys(k)`. */
  def leftKeys: Seq[Expression]
  def ops: Seq[InequalityOp]
  def rightKeys: Seq[Expression]
  def residual: Option[Expression]
  def joinType: JoinType

  // The keys are constructor fields of their own (not inside Inequality) so that Spark's plan
  // rules see them as this node's expressions: subqueries in them get planned, and the node
  // canonicalizes.
  def inequalities: Seq[Inequality] = leftKeys.indices.map { k =>
    Inequality(leftKeys(k), ops(k), rightKeys(k))
  }

  /** How many leading inequalities the local join uses; the others are checked on its pairs. */
  protected def localKeys: Int

  /**
   * The runtime of one pass, for a local join oriented stream-versus-build; it checks the
   * inequalities the local join does not use and the residual on every pair it emits.
   */
  protected def blockJoinRuntime(
      local: LocalJoin,
      emit: StreamEmit,
      streamIsLeft: Boolean,
      padUnmatched: Boolean
  ): BlockJoinRuntime = new BlockJoinRuntime(
    local,
    emit,
    streamIsLeft,
    padUnmatched,
    (inequalities.drop(localKeys).map(_.toExpression) ++ residual).reduceOption(And),
    left.output,
    right.output,
    output,
    longMetric("numOutputRows"),
    longMetric("localJoinTime")
  )
}

package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.{And, Expression}
import org.apache.spark.sql.catalyst.plans.{FullOuter, JoinType, RightOuter}
import org.apache.spark.sql.execution.BinaryExecNode

import rangejoin.condition.Inequality
import rangejoin.execution.runtime.{
  BlockJoinMetrics,
  BlockJoinRuntime,
  IEJoinLocal,
  JoinColumns,
  JoinPass,
  LocalJoin,
  StreamEmit
}
import rangejoin.local.InequalityOp

/**
 * A join operator that runs a local join ([[rangejoin.execution.runtime.LocalJoin]]) on the leading
 * inequalities of its condition over pairs of sorted blocks, through
 * [[rangejoin.execution.runtime.BlockJoinRuntime]].
 */
trait InequalityJoinExec extends BinaryExecNode with JoinMetrics {

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

  override protected def reportedMetrics: Seq[JoinMetric] =
    Seq(JoinMetric.NumOutputRows, JoinMetric.LocalJoinTime, JoinMetric.PeakMemory)

  /** How many leading inequalities the local join uses; the others are checked on its pairs. */
  protected def localKeys: Int

  /** Whether blocks carry their key 1 order ([[rangejoin.execution.blocks.Block.key1Order]]). */
  protected def ordersKey1: Boolean = localKeys >= 2

  /** The local join for the leading inequalities' ops, as seen from the stream side. */
  protected def localJoin(ops: Seq[InequalityOp]): LocalJoin

  /**
   * The passes this join type needs. The stream side is the left input, except for a right
   * outer join; a full outer join adds a pass that streams the right input and outputs its rows
   * that matched nothing, NULL-padded.
   */
  protected def passes: Seq[JoinPass] = joinType match {
    case RightOuter => Seq(JoinPass(streamIsLeft = false, StreamEmit.PairsAndUnmatched, false))
    case FullOuter =>
      Seq(
        JoinPass(streamIsLeft = true, StreamEmit.PairsAndUnmatched, padUnmatched = false),
        JoinPass(streamIsLeft = false, StreamEmit.Unmatched, padUnmatched = true)
      )
    case other => Seq(JoinPass(streamIsLeft = true, StreamEmit.of(other), padUnmatched = false))
  }

  /** The inequalities' ops as seen from the stream side of `pass`. */
  protected def streamOps(pass: JoinPass): Seq[InequalityOp] =
    if (pass.streamIsLeft) ops else ops.map(_.flip)

  /**
   * The runtime of `pass`; it checks the inequalities the local join does not use and the
   * residual on every pair the local join emits. Its output rows are unsafe rows, or with
   * `projected` false views of the pairs ([[rangejoin.execution.runtime.StreamBuildRows]]). With
   * `rightKeysSwapped` the right input's blocks are the left's, read with keys 0 and 1 swapped
   * ([[rangejoin.execution.runtime.IEJoinLocal]]).
   */
  protected def blockJoinRuntime(
      pass: JoinPass,
      projected: Boolean = true,
      rightKeysSwapped: Boolean = false
  ): BlockJoinRuntime =
    new BlockJoinRuntime(
      localJoin(streamOps(pass).take(localKeys)) match {
        case ieJoin: IEJoinLocal if rightKeysSwapped =>
          ieJoin.copy(streamSwapped = !pass.streamIsLeft, buildSwapped = pass.streamIsLeft)
        case local =>
          require(!rightKeysSwapped, s"$local cannot read blocks with swapped keys")
          local
      },
      pass,
      (inequalities.drop(localKeys).map(_.toExpression) ++ residual).reduceOption(And),
      JoinColumns(left.output, right.output, output),
      BlockJoinMetrics(
        metric(JoinMetric.NumOutputRows),
        metric(JoinMetric.LocalJoinTime),
        metric(JoinMetric.PeakMemory)
      ),
      projected
    )

}

package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight, BuildSide}
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{ExplainUtils, SparkPlan}

import rangejoin.condition.Inequality
import rangejoin.execution.broadcast.{
  BroadcastRangeCodegen,
  BroadcastRangeIndexSource,
  BroadcastRangeProbe,
  SortedRowsBroadcastMode,
  StableBroadcastExchangeExec
}
import rangejoin.execution.runtime.{JoinColumns, JoinPass, StreamEmit}
import rangejoin.local.InequalityOp

/**
 * A join on inequalities whose `buildSide` input is small enough to broadcast: Spark's broadcast
 * exchange collects it once and the driver sorts it on the first leading key
 * ([[rangejoin.execution.broadcast.SortedRowsBroadcastMode]]), the first task of each executor
 * turns it into an index on the leading one or two inequalities that the executor's other tasks
 * share ([[rangejoin.execution.broadcast.BroadcastRangeIndex]]), and every row of the
 * other input probes that index where it is, with no shuffle and no sort
 * ([[rangejoin.execution.broadcast.BroadcastRangeProbe]]). Further inequalities and the residual
 * are checked on the rows a probe yields. A build input that reads only cached data is broadcast
 * once for every run of the plan, each micro-batch of a stream for one
 * ([[rangejoin.execution.broadcast.StableBroadcastExchangeExec]]), and so indexed once.
 *
 * The streamed input is the one whose rows the join type preserves or filters, so every row's
 * answer is known within its task: the left input for left outer, semi, anti and existence
 * joins, the right input for a right outer join, either for an inner join. Full outer joins,
 * which need the unmatched rows of both inputs, do not run here.
 *
 * Inequality `k` is `leftKeys(k) ops(k) rightKeys(k)`; the leading keys have fixed-width codes
 * ([[rangejoin.execution.broadcast.BroadcastRangeIndex.indexable]]).
 *
 * With whole-stage codegen the probe is generated code in the streamed input's stage
 * ([[rangejoin.execution.broadcast.BroadcastRangeCodegen]]); `doExecute` runs it interpreted
 * (`spark.sql.codegen.wholeStage=false`, or when the stage's code falls back).
 */
case class BroadcastRangeJoinExec(
    leftKeys: Seq[Expression],
    ops: Seq[InequalityOp],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    joinType: JoinType,
    buildSide: BuildSide,
    left: SparkPlan,
    right: SparkPlan
) extends BroadcastRangeCodegen
    with JoinMetrics {
  require(
    BroadcastRangeJoinExec.buildSides(joinType).contains(buildSide),
    s"BroadcastRangeJoinExec cannot build the $buildSide input of a $joinType join"
  )

  override protected def streamIsLeft: Boolean = buildSide == BuildRight

  /** How many leading inequalities the index uses. */
  private def indexed: Int = math.min(2, ops.size)

  override protected def streamedPlan: SparkPlan = if (streamIsLeft) left else right
  override protected def buildPlan: SparkPlan = if (streamIsLeft) right else left

  def inequalities: Seq[Inequality] =
    leftKeys.indices.map(k => Inequality(leftKeys(k), ops(k), rightKeys(k)))

  /** What is checked on the rows a probe yields: the further inequalities and the residual. */
  override def condition: Option[Expression] =
    (inequalities.drop(indexed).map(_.toExpression) ++ residual).reduceOption(And)

  override protected def streamedIndexKeys: Seq[Expression] =
    (if (streamIsLeft) leftKeys else rightKeys).take(indexed)

  override protected def streamEmit: StreamEmit = StreamEmit.of(joinType)

  override protected def numOutputRowsKey: String = JoinMetric.NumOutputRows.key

  override protected def indexSource(): BroadcastRangeIndexSource = {
    val streamOps = if (streamIsLeft) ops else ops.map(_.flip)
    BroadcastRangeIndexSource(
      buildPlan.executeBroadcast[Array[InternalRow]](),
      streamOps.take(indexed),
      metric(JoinMetric.IndexBuilds)
    )
  }

  /** How the broadcast exchange below packs the build input: sorted on the indexed keys. */
  private def broadcastMode: SortedRowsBroadcastMode =
    SortedRowsBroadcastMode.of(buildIndexKeys, buildPlan.output)

  /** The build input's sides of the indexed (leading) inequalities, not bound. */
  private def buildIndexKeys: Seq[Expression] =
    (if (streamIsLeft) rightKeys else leftKeys).take(indexed)

  /**
   * This join with its build input broadcast by a [[StableBroadcastExchangeExec]], which later
   * runs over the same cached rows reuse.
   */
  def withStableBroadcast: BroadcastRangeJoinExec = {
    val exchange = StableBroadcastExchangeExec(buildIndexKeys, buildPlan)
    if (streamIsLeft) copy(right = exchange) else copy(left = exchange)
  }

  override def output: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def outputPartitioning: Partitioning = streamedPlan.outputPartitioning

  override def requiredChildDistribution: Seq[Distribution] =
    if (streamIsLeft) UnspecifiedDistribution :: BroadcastDistribution(broadcastMode) :: Nil
    else BroadcastDistribution(broadcastMode) :: UnspecifiedDistribution :: Nil

  override protected def reportedMetrics: Seq[JoinMetric] =
    Seq(JoinMetric.NumOutputRows, JoinMetric.IndexBuilds)

  override def simpleString(maxFields: Int): String = {
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, ${inequalities.mkString("[", ", ", "]")}$rest, " +
      s"index on ${inequalities.take(indexed).mkString(" AND ")}, build " +
      BroadcastRangeJoinExec.inputName(buildSide)
  }

  override def verboseStringWithOperatorId(): String = {
    def field(name: String, value: Any) = ExplainUtils.generateFieldString(name, value.toString)
    s"""
       |$formattedNodeName
       |${field("Join type", joinType)}
       |${field("Inequalities", inequalities.mkString("[", ", ", "]"))}
       |${field("Index on", inequalities.take(indexed).mkString(" AND "))}
       |${field("Residual", residual.map(_.sql).getOrElse("None"))}
       |${field("Build side", buildSide)}
       |""".stripMargin
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val source = indexSource()
    val probe = new BroadcastRangeProbe(
      JoinPass(streamIsLeft, streamEmit, padUnmatched = false),
      streamedIndexKeys.map(BindReferences.bindReference(_, streamedPlan.output)),
      condition,
      JoinColumns(left.output, right.output, output),
      metric(JoinMetric.NumOutputRows)
    )
    streamedPlan.execute().mapPartitions(rows => probe.join(rows, source.build()))
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : BroadcastRangeJoinExec = copy(left = newLeft, right = newRight)
}

object BroadcastRangeJoinExec {

  /** `left` or `right`: the input a build side names, as EXPLAIN and messages say it. */
  def inputName(side: BuildSide): String = side.toString.stripPrefix("Build").toLowerCase

  /** The inputs that may be broadcast for a join type: never a preserved one. */
  def buildSides(joinType: JoinType): Seq[BuildSide] = joinType match {
    case _: InnerLike => Seq(BuildRight, BuildLeft)
    case LeftOuter | LeftSemi | LeftAnti | _: ExistenceJoin => Seq(BuildRight)
    case RightOuter => Seq(BuildLeft)
    case _ => Nil
  }
}

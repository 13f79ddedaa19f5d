package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{InnerLike, JoinType}
import org.apache.spark.sql.catalyst.plans.physical.{
  Partitioning,
  RangePartitioning,
  UnknownPartitioning
}
import org.apache.spark.sql.execution.{BinaryExecNode, SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import rangejoin.planning.Inequality

/**
 * Joins on two or more inequalities with IEJoin over pairs of sorted blocks.
 *
 * A large child is range-partitioned on the first inequality's key (the strategy puts the
 * exchange below this node); a small one is coalesced. Execution:
 *  1. one job per side loads each block with its keys into Spark's block manager
 *     ([[CachedBlocks]]) and returns every block's min/max of every inequality key
 *     ([[BlockStats]]); a self-join does this once;
 *  1. block pairs that cannot satisfy all inequalities are pruned ([[BlockPairPlanner]]);
 *  1. each task takes whole left blocks, each with all of its remaining right blocks, and runs
 *     an [[IEJoinScanner]] on the first two inequalities per block pair; further inequalities
 *     and the other conjuncts (`residual`) are checked on the pairs it emits.
 *
 * @param inequalities at least two, each `leftExpr op rightExpr`
 * @param residual the rest of the join condition, checked on candidate pairs
 * @param blockRows the most rows in one block
 */
case class IEJoinExec(
    inequalities: Seq[Inequality],
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    left: SparkPlan,
    right: SparkPlan
) extends BinaryExecNode {
  require(inequalities.size >= 2, "IEJoinExec needs at least two inequalities")

  override def output: Seq[Attribute] = joinType match {
    case _: InnerLike => left.output ++ right.output
    case x => throw new IllegalArgumentException(s"IEJoinExec should not take $x as the JoinType")
  }

  override def outputPartitioning: Partitioning = UnknownPartitioning(0)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "blockPairs" -> SQLMetrics.createMetric(sparkContext, "block pairs joined"),
    "prunedBlockPairs" -> SQLMetrics.createMetric(sparkContext, "block pairs pruned"),
    "localJoinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "local IEJoin time")
  )

  override def simpleString(maxFields: Int): String = {
    val conds = inequalities.mkString("[", ", ", "]")
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, $conds$rest, blockRows=$blockRows"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val leftKeys = bind(inequalities.map(_.left), left.output)
    val rightKeys = bind(inequalities.map(_.right), right.output)
    val encoders = leftKeys.map(k => KeyEncoder.forType(k.dataType))
    val leftBlocks = CachedBlocks(blockInput(left), left.output, leftKeys, encoders, blockRows)
    // A self-join on the same keys reads and caches its (reused) input once.
    val selfJoin = left.sameResult(right) && leftKeys == rightKeys
    val rightBlocks =
      if (selfJoin) leftBlocks
      else CachedBlocks(blockInput(right), right.output, rightKeys, encoders, blockRows)
    val leftStats = leftBlocks.map(_.map(_.stats)).collect()
    val rightStats = if (selfJoin) leftStats else rightBlocks.map(_.map(_.stats)).collect()

    val ops = inequalities.map(_.op)
    val orderings = encoders.map(KeyColumn.ordering)
    val pairs = BlockPairPlanner.plan(
      leftStats,
      rightStats,
      (l, r) => l.canMatch(r, ops, orderings),
      sparkContext.defaultParallelism
    )
    metrics("blockPairs").add(pairs.joinedPairs)
    metrics("prunedBlockPairs").add(pairs.prunedPairs)
    SQLMetrics.postDriverMetricUpdates(
      sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY),
      Seq(metrics("blockPairs"), metrics("prunedBlockPairs"))
    )

    val runtime = new IEJoinRuntime(
      ops(0),
      ops(1),
      (inequalities.drop(2).map(_.toExpression) ++ residual).reduceOption(And),
      left.output,
      right.output,
      metrics("numOutputRows"),
      metrics("localJoinTime")
    )
    new BlockPairRDD(leftBlocks, rightBlocks, pairs.tasks, runtime.join)
  }

  /**
   * The rows of `child` in the partitions to cut into blocks: as they are when the strategy
   * range-partitioned the side, else coalesced (without a shuffle) to at most the default
   * parallelism, which bounds the number of block pairs of a small side.
   */
  private def blockInput(child: SparkPlan): RDD[InternalRow] = child.outputPartitioning match {
    case _: RangePartitioning => child.execute()
    case _ => child.execute().coalesce(sparkContext.defaultParallelism)
  }

  private def bind(keys: Seq[Expression], input: Seq[Attribute]): Seq[Expression] =
    keys.map(BindReferences.bindReference(_, input))

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : IEJoinExec = copy(left = newLeft, right = newRight)
}

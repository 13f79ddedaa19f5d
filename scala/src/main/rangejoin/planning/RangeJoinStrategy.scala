package rangejoin.planning

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, Ascending, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.InnerLike
import org.apache.spark.sql.catalyst.plans.logical.{Join, JoinHint, LogicalPlan}
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.catalyst.plans.logical.statsEstimation.EstimationUtils
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.exchange.{REPARTITION_BY_NUM, ShuffleExchangeExec}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.RangeJoinConf
import rangejoin.execution.IEJoinExec

/**
 * Plans joins whose condition has inequalities with a range-join operator, or declines (`Nil`)
 * so that Spark's own strategies plan the join.
 *
 * The decision ladder, in order; the first rung that applies decides:
 *  1. `spark.rangejoin.enabled` is false: Spark.
 *  1. The join has no condition, carries a join hint, or its type is not inner: Spark.
 *  1. The condition has an equality between the two sides: Spark, whose hash and sort-merge
 *     joins use the equality keys.
 *  1. Two or more inequalities and `spark.rangejoin.iejoin.enabled`: [[IEJoinExec]]. Each side
 *     larger than `spark.rangejoin.blockRows` x default parallelism (estimated) is
 *     range-partitioned on the first inequality's key; a smaller one is not shuffled.
 *  1. Otherwise: Spark.
 *
 * Each decline is logged at debug level with its reason.
 */
case class RangeJoinStrategy(session: SparkSession) extends SparkStrategy with Logging {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case join: Join =>
      decide(join) match {
        case Right(planned) => planned :: Nil
        case Left(reason) =>
          logDebug(s"spark-rangejoin leaves the join to Spark: $reason")
          Nil
      }
    case _ => Nil
  }

  /** The operator for `join`, or why Spark should plan it: the ladder above, rung by rung. */
  private def decide(join: Join): Either[String, SparkPlan] = {
    val conf = SQLConf.get
    for {
      _ <- require(RangeJoinConf.Enabled.get(conf), s"${RangeJoinConf.Enabled.key} is false")
      condition <- join.condition.toRight("the join has no condition")
      _ <- require(join.hint == JoinHint.NONE, s"the join has a hint: ${join.hint}")
      _ <- require(
        join.joinType.isInstanceOf[InnerLike],
        s"join type ${join.joinType} is not supported yet"
      )
      conjuncts = JoinConditionAnalysis.analyze(
        condition,
        join.left.outputSet,
        join.right.outputSet
      )
      _ <- require(
        conjuncts.equalities.isEmpty,
        s"equality keys ${conjuncts.equalities.map(_.sql).mkString(", ")}"
      )
      _ <- require(
        conjuncts.inequalities.size >= 2 && RangeJoinConf.IEJoinEnabled.get(conf),
        s"${conjuncts.inequalities.size} inequality conjunct(s) and no enabled operator for that"
      )
    } yield planIEJoin(join, conjuncts)
  }

  private def require(holds: Boolean, reason: => String): Either[String, Unit] =
    if (holds) Right(()) else Left(reason)

  private def planIEJoin(join: Join, conjuncts: JoinConjuncts): SparkPlan = {
    val first = conjuncts.inequalities.head
    IEJoinExec(
      conjuncts.inequalities,
      conjuncts.residuals.reduceOption(And),
      join.joinType,
      RangeJoinConf.BlockRows.get(SQLConf.get),
      sortedBlocks(first.left, join.left),
      sortedBlocks(first.right, join.right)
    )
  }

  /**
   * `child` prepared for cutting into sorted blocks. A side estimated at more rows than
   * `spark.rangejoin.blockRows` x default parallelism is range-partitioned on `key` into
   * max(default parallelism, estimated rows / blockRows) partitions, at most
   * `spark.sql.shuffle.partitions` (the origin keeps adaptive execution from coalescing them), so
   * that blocks of different partitions cover disjoint key ranges. A smaller side skips that
   * shuffle: [[IEJoinExec]] coalesces its partitions instead.
   */
  private def sortedBlocks(key: Expression, child: LogicalPlan): SparkPlan = {
    val conf = SQLConf.get
    val stats = child.stats
    val rows =
      stats.rowCount.getOrElse(stats.sizeInBytes / EstimationUtils.getSizePerRow(child.output))
    val blockRows = RangeJoinConf.BlockRows.get(conf)
    val parallelism = session.sparkContext.defaultParallelism
    if (rows <= BigInt(blockRows) * parallelism) {
      planLater(child)
    } else {
      val wanted = (rows / blockRows + 1).min(Int.MaxValue).toInt
      ShuffleExchangeExec(
        RangePartitioning(
          Seq(SortOrder(key, Ascending)),
          wanted.max(parallelism).min(conf.numShufflePartitions)
        ),
        planLater(child),
        REPARTITION_BY_NUM
      )
    }
  }
}

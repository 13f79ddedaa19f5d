package rangejoin.planning

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{
  And,
  Ascending,
  Attribute,
  Expression,
  Murmur3Hash,
  SortOrder
}
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.plans.logical.{
  BROADCAST,
  Join,
  JoinHint,
  LogicalPlan,
  SHUFFLE_HASH,
  SHUFFLE_MERGE,
  SHUFFLE_REPLICATE_NL
}
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.catalyst.plans.logical.statsEstimation.EstimationUtils
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage
import org.apache.spark.sql.execution.exchange.{REPARTITION_BY_NUM, ShuffleExchangeExec}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.condition.{Equality, JoinConditionAnalysis, JoinConjuncts, SlidingWindow}
import rangejoin.config.RangeJoinConf
import rangejoin.execution.{
  IEJoinExec,
  KeyGroupIEJoinExec,
  PiecewiseMergeJoinExec,
  SlidingWindowJoinExec
}

/**
 * Plans joins whose condition has inequalities with a range-join operator, or declines (`Nil`)
 * so that Spark's own strategies plan the join.
 *
 * The decision ladder, in order; the first rung that applies decides:
 *  1. `spark.rangejoin.enabled` is false: Spark.
 *  1. The join has no condition, carries a join strategy hint (`BROADCAST`, `MERGE`,
 *     `SHUFFLE_HASH`, `SHUFFLE_REPLICATE_NL`; not the hints adaptive execution adds), or is of a
 *     type other than inner, cross,
 *     left/right/full outer, left semi, left anti or existence: Spark.
 *  1. Few candidate pairs: Spark, which is faster on so few. Without equality keys, an inner join
 *     whose estimated left rows x right rows is at most `spark.rangejoin.minCandidatePairs`
 *     (Spark's broadcast nested loop join). With them, a join of any type whose estimated left
 *     rows x right rows / key values is at most `spark.rangejoin.keyed.minCandidatePairs`, where
 *     Spark's statistics have distinct counts for the keys (its hash and sort-merge joins).
 *  1. The condition has equality keys (`l.k = r.k`):
 *     a. a null-safe equality (`<=>`), a key of another type than the inequality keys (see
 *        [[JoinConditionAnalysis.isSortableKeyType]]), or no inequality: Spark's hash and
 *        sort-merge joins;
 *     a. two inequalities bound one column pair from below and above (a window, `BETWEEN` too)
 *        and `spark.rangejoin.swhj.enabled`: [[SlidingWindowJoinExec]];
 *     a. two or more inequalities and `spark.rangejoin.iejoin.enabled`: [[KeyGroupIEJoinExec]];
 *     a. otherwise: Spark.
 *  1. Two or more inequalities and `spark.rangejoin.iejoin.enabled`: [[IEJoinExec]]. Each side
 *     estimated at `spark.rangejoin.rangePartitionMinRows` rows or more is range-partitioned on
 *     the first inequality's key; a smaller one is not shuffled.
 *  1. Exactly one inequality and `spark.rangejoin.pwmj.enabled`: [[PiecewiseMergeJoinExec]].
 *     A semi, anti or existence join with no residual becomes a filter against the other
 *     side's min or max key, with no shuffle; anything else runs over sorted blocks as above.
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
      _ <- require(!hasStrategyHint(join.hint), s"the join has a strategy hint: ${join.hint}")
      _ <- require(supported(join.joinType), s"join type ${join.joinType} is not supported")
      conjuncts = JoinConditionAnalysis.analyze(
        condition,
        join.left.outputSet,
        join.right.outputSet
      )
      _ <- fewCandidatePairs(join, conjuncts.equalities, conf).toLeft(())
      planned <-
        if (conjuncts.equalities.isEmpty) chooseOperator(join, conjuncts, conf)
        else chooseKeyedOperator(join, conjuncts, conf)
    } yield planned
  }

  /**
   * Whether a side carries a join strategy hint from the user. Adaptive execution adds hints of
   * its own when it re-plans a join (`NO_BROADCAST_HASH`, `PREFER_SHUFFLE_HASH`, ...); they only
   * steer Spark's choice among its own joins and must not turn the range join off mid-query.
   */
  private def hasStrategyHint(hint: JoinHint): Boolean =
    (hint.leftHint ++ hint.rightHint).flatMap(_.strategy).exists {
      case BROADCAST | SHUFFLE_MERGE | SHUFFLE_HASH | SHUFFLE_REPLICATE_NL => true
      case _ => false
    }

  /**
   * Rung 3: a join small enough for Spark to win. Without equality keys, an inner join (Spark's
   * broadcast nested loop join); with them, a join of any type whose key groups Spark's
   * statistics show to be small (its hash and sort-merge joins).
   */
  private def fewCandidatePairs(join: Join, eqs: Seq[Equality], conf: SQLConf)
      : Option[String] =
    if (eqs.isEmpty) {
      val pairs = estimatedRows(join.left) * estimatedRows(join.right)
      val limit = RangeJoinConf.MinCandidatePairs
      Option.when(join.joinType.isInstanceOf[InnerLike] && pairs <= BigInt(limit.get(conf))) {
        s"an inner join of about $pairs candidate pairs, at most ${limit.key}"
      }
    } else {
      val limit = RangeJoinConf.KeyedMinCandidatePairs
      keyedCandidatePairs(join, eqs).filter(_ <= BigInt(limit.get(conf))).map { pairs =>
        s"about $pairs candidate pairs sharing a key, at most ${limit.key}"
      }
    }

  /**
   * Estimated pairs that share a key: left rows x right rows / key values, when Spark's
   * statistics have a distinct count for every key column of a side (`ANALYZE TABLE ... FOR
   * COLUMNS` with `spark.sql.cbo.enabled`); the larger side's count is taken.
   */
  private def keyedCandidatePairs(join: Join, eqs: Seq[Equality]): Option[BigInt] = {
    def distinctKeys(plan: LogicalPlan, keys: Seq[Expression]): Option[BigInt] = {
      val counts = keys.map {
        case a: Attribute => distinctCount(plan, a)
        case _ => None
      }
      if (counts.forall(_.isDefined)) Some(counts.flatten.product.min(estimatedRows(plan)))
      else None
    }
    (distinctKeys(join.left, eqs.map(_.left)) ++ distinctKeys(join.right, eqs.map(_.right)))
      .reduceOption(_ max _)
      .map(keys => estimatedRows(join.left) * estimatedRows(join.right) / keys.max(1))
  }

  /** The row count Spark estimates, else its size estimate divided by the row width. */
  private def estimatedRows(plan: LogicalPlan): BigInt = {
    val stats = plan.stats
    stats.rowCount.getOrElse(stats.sizeInBytes / EstimationUtils.getSizePerRow(plan.output))
  }

  private def supported(joinType: JoinType): Boolean = joinType match {
    case _: InnerLike | LeftOuter | RightOuter | FullOuter | LeftSemi | LeftAnti => true
    case _: ExistenceJoin => true
    case _ => false
  }

  /** Rung 4: the operator for equality keys plus inequalities. */
  private def chooseKeyedOperator(join: Join, conjuncts: JoinConjuncts, conf: SQLConf)
      : Either[String, SparkPlan] = {
    val eqs = conjuncts.equalities
    val ineqs = conjuncts.inequalities
    lazy val window = SlidingWindow.find(ineqs)
    for {
      _ <- require(!eqs.exists(_.nullSafe), s"a null-safe equality in ${eqs.mkString(", ")}")
      _ <- require(
        eqs.forall(e => JoinConditionAnalysis.isSortableKeyType(e.left.dataType)),
        s"an equality key of a type other than numbers, dates, times, intervals, binary, " +
          s"and strings in the default collation: ${eqs.mkString(", ")}"
      )
      _ <- require(ineqs.nonEmpty, s"an equi-join on ${eqs.mkString(", ")}")
      planned <- window match {
        case Some((w, others)) if RangeJoinConf.SwhjEnabled.get(conf) =>
          val residual = (others.map(_.toExpression) ++ conjuncts.residuals).reduceOption(And)
          Right(
            SlidingWindowJoinExec(
              eqs.map(_.left),
              eqs.map(_.right),
              w.leftColumn,
              w.rightColumn,
              w.lower.toExpression,
              w.upper.toExpression,
              residual,
              join.joinType,
              planLater(join.left),
              planLater(join.right)
            )
          )
        case _ if ineqs.size >= 2 && RangeJoinConf.IEJoinEnabled.get(conf) =>
          Right(
            KeyGroupIEJoinExec(
              eqs.map(_.left),
              eqs.map(_.right),
              ineqs.map(_.left),
              ineqs.map(_.op),
              ineqs.map(_.right),
              conjuncts.residuals.reduceOption(And),
              join.joinType,
              RangeJoinConf.BlockRows.get(conf),
              planLater(join.left),
              planLater(join.right)
            )
          )
        case _ =>
          Left(s"equality keys with ${ineqs.size} inequalities and no enabled operator for that")
      }
    } yield planned
  }

  /**
   * The distinct count of column `a` in `plan`'s statistics. When adaptive execution re-plans a
   * join, the finished stages below it carry runtime row counts but no column statistics, so
   * the count is then read from the stage's logical plan, as the first planning saw it.
   */
  private def distinctCount(plan: LogicalPlan, a: Attribute): Option[BigInt] =
    plan.stats.attributeStats.get(a).flatMap(_.distinctCount).orElse {
      plan.collectFirst {
        case stage: LogicalQueryStage if stage.logicalPlan.outputSet.contains(a) =>
          stage.logicalPlan.stats.attributeStats.get(a).flatMap(_.distinctCount)
      }.flatten
    }

  /** Rungs 5 and 6: the operator for the number of inequalities. */
  private def chooseOperator(join: Join, conjuncts: JoinConjuncts, conf: SQLConf)
      : Either[String, SparkPlan] = {
    val ineqs = conjuncts.inequalities
    val residual = conjuncts.residuals.reduceOption(And)
    val blockRows = RangeJoinConf.BlockRows.get(conf)
    val sortSpillRows = RangeJoinConf.SortSpillRows.get(conf)
    if (ineqs.size >= 2 && RangeJoinConf.IEJoinEnabled.get(conf)) {
      Right(
        IEJoinExec(
          ineqs.map(_.left),
          ineqs.map(_.op),
          ineqs.map(_.right),
          residual,
          join.joinType,
          blockRows,
          sortSpillRows,
          sortedBlocks(ineqs.head.left, join.left),
          sortedBlocks(ineqs.head.right, join.right)
        )
      )
    } else if (ineqs.size == 1 && RangeJoinConf.PwmjEnabled.get(conf)) {
      val byBound = PiecewiseMergeJoinExec.usesBound(join.joinType, residual)
      def child(key: Expression, plan: LogicalPlan) =
        if (byBound) planLater(plan) else sortedBlocks(key, plan)
      Right(
        PiecewiseMergeJoinExec(
          ineqs.head.left,
          ineqs.head.op,
          ineqs.head.right,
          residual,
          join.joinType,
          blockRows,
          sortSpillRows,
          child(ineqs.head.left, join.left),
          child(ineqs.head.right, join.right)
        )
      )
    } else {
      Left(s"${ineqs.size} inequality conjunct(s) and no enabled operator for that")
    }
  }

  private def require(holds: Boolean, reason: => String): Either[String, Unit] =
    if (holds) Right(()) else Left(reason)

  /**
   * `child` prepared for cutting into sorted blocks. A side estimated at fewer than
   * `spark.rangejoin.rangePartitionMinRows` rows is not shuffled ([[BlockRangeJoinExec]]
   * coalesces it). A larger one is range-partitioned on `key` into max(default parallelism,
   * estimated rows / `blockRows`) partitions, at most `spark.sql.shuffle.partitions`, so that
   * blocks of different partitions cover key ranges that overlap at most at their ends; the
   * shuffle origin keeps adaptive execution from coalescing them.
   */
  private def sortedBlocks(key: Expression, child: LogicalPlan): SparkPlan = {
    val conf = SQLConf.get
    val rows = estimatedRows(child)
    if (rows < RangeJoinConf.RangePartitionMinRows.get(conf)) {
      planLater(child)
    } else {
      val wanted = (rows / RangeJoinConf.BlockRows.get(conf) + 1).min(Int.MaxValue).toInt
      val partitions =
        wanted.max(session.sparkContext.defaultParallelism).min(conf.numShufflePartitions)
      // Ties on the key are ordered by a hash of the row, so the rows of one very frequent key
      // value spread over several partitions instead of loading in a single task.
      val hashable =
        child.output.filter(a => new Murmur3Hash(Seq(a)).checkInputDataTypes().isSuccess)
      val tieBreak =
        if (hashable.isEmpty) Nil else Seq(SortOrder(new Murmur3Hash(hashable), Ascending))
      ShuffleExchangeExec(
        RangePartitioning(SortOrder(key, Ascending) +: tieBreak, partitions),
        planLater(child),
        REPARTITION_BY_NUM
      )
    }
  }
}

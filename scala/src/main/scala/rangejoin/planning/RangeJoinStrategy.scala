package rangejoin.planning

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, Expression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight, BuildSide}
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
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, DoubleType, FloatType}

import rangejoin.condition.{
  Equality,
  JoinConditionAnalysis,
  JoinConjuncts,
  OpenEnds,
  PointInInterval,
  SlidingWindow
}
import rangejoin.config.RangeJoinConf
import rangejoin.execution.broadcast.{BroadcastRangeIndex, StableBroadcasts}
import rangejoin.execution.{
  BlockJoinOutputExec,
  BlockRangeJoinExec,
  BoundFilterJoinExec,
  BroadcastRangeJoinExec,
  IEJoinExec,
  KeyGroupIEJoinExec,
  KeyedIntervalJoinExec,
  PiecewiseMergeJoinExec,
  RightBlocks,
  SlidingWindowJoinExec
}

/**
 * Plans joins whose condition has inequalities with a range-join operator, or declines (`Nil`)
 * so that Spark's own strategies plan the join.
 *
 * The decision ladder, in order; the first rung that applies decides (docs/design/planning.md
 * explains each rung and the defaults behind it):
 *  1. `spark.rangejoin.enabled` is false: Spark.
 *  1. No condition; a join strategy hint from the user other than `BROADCAST`, or a `BROADCAST`
 *     hint the broadcast range join cannot honour (with equality keys, or only on inputs the
 *     join type preserves); a join type other than inner, cross, outer, left semi, left anti or
 *     existence; or a condition with neither an inequality (candidate inequalities included)
 *     nor an equality key: Spark.
 *  1. Few candidate pairs by Spark's estimates: without equality keys, at most
 *     `spark.rangejoin.minCandidatePairs` pairs or a smaller input of at most
 *     `spark.rangejoin.minSmallSideRows` rows; with them, at most
 *     `spark.rangejoin.keyed.minCandidatePairs` pairs sharing a key, where Spark's statistics
 *     have distinct counts for the keys: Spark. Under adaptive execution the ladder runs again
 *     on the inputs' runtime row counts.
 *  1. Equality keys: Spark for a null-safe equality, a key type the operators cannot sort, or
 *     no inequality; [[rangejoin.execution.SlidingWindowJoinExec]] for a window on one column
 *     pair; [[rangejoin.execution.KeyedIntervalJoinExec]] for a point of the streamed input
 *     between two columns of the other, one an open end ([[rangejoin.condition.OpenEnds]], the
 *     type-2 dimension lookup), with the point input on the side the join type streams;
 *     [[rangejoin.execution.KeyGroupIEJoinExec]] for two or more inequalities, not counting an
 *     open end's candidate; otherwise Spark.
 *  1. One inequality and nothing else in a semi, anti or existence join:
 *     [[rangejoin.execution.BoundFilterJoinExec]].
 *  1. An input the join type does not preserve, hinted `BROADCAST` or worth broadcasting
 *     ([[worthBroadcasting]]), with leading keys of fixed-width types:
 *     [[rangejoin.execution.BroadcastRangeJoinExec]].
 *  1. Two or more inequalities: [[rangejoin.execution.IEJoinExec]].
 *  1. Exactly one inequality: [[rangejoin.execution.PiecewiseMergeJoinExec]].
 *  1. Otherwise: Spark.
 *
 * An operator's rung applies only while its switch is on (`spark.rangejoin.*.enabled`). The two
 * block joins are planned under a [[rangejoin.execution.BlockJoinOutputExec]], their inputs
 * range-partitioned or coalesced as [[BlockInputPlanning]] decides.
 *
 * Once the condition is analysed, its inequalities are ordered so that the two that prune best
 * come first ([[DrivingInequalities]]): the operators drive with the first two.
 *
 * A [[rangejoin.execution.KeyedIntervalJoinExec]] takes over a projection directly above it that
 * only keeps columns ([[KeptColumns]]) and writes only those.
 *
 * Each decline is logged with its reason: at WARN for a join that compares by order when
 * `spark.rangejoin.explainDeclines.enabled`, else at DEBUG.
 */
case class RangeJoinStrategy(session: SparkSession) extends SparkStrategy with Logging {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    // A keyed interval join writes its own rows: it takes over a projection above it that only
    // keeps columns. Above any other join, or a declined one, Spark plans the projection and
    // then the join (the case below, which logs a decline). A join of two streams is left to
    // Spark's stateful join, whose strategy only sees the join itself.
    case KeptColumns(columns, join: Join) if !(join.left.isStreaming && join.right.isStreaming) =>
      RangeJoinConf.validate(SQLConf.get.getAllConfs)
      decide(join) match {
        case Right(keyed: KeyedIntervalJoinExec) => keyed.copy(columns = Some(columns)) :: Nil
        case _ => Nil
      }
    case join: Join =>
      RangeJoinConf.validate(SQLConf.get.getAllConfs)
      decide(join) match {
        case Right(planned) => planned :: Nil
        case Left(reason) =>
          if (RangeJoinConf.ExplainDeclines.get(SQLConf.get) && Declines.comparesOrders(join)) {
            logWarning(Declines.message(join, reason))
          } else logDebug(Declines.message(join, reason))
          Nil
      }
    case _ => Nil
  }

  /** The operator for `join`, or why Spark should plan it: the ladder above, rung by rung. */
  private[planning] def decide(join: Join): Either[String, SparkPlan] = {
    val conf = SQLConf.get
    for {
      _ <- require(RangeJoinConf.Enabled.get(conf), s"${RangeJoinConf.Enabled.key} is false")
      condition <- join.condition.toRight("the join has no condition")
      _ <- require(!hasStrategyHint(join.hint), s"the join has a strategy hint: ${join.hint}")
      _ <- require(supported(join.joinType), s"join type ${join.joinType} is not supported")
      analyzed = JoinConditionAnalysis.analyze(
        condition,
        join.left.outputSet,
        join.right.outputSet
      )
      conjuncts = analyzed.copy(inequalities =
        DrivingInequalities.order(analyzed.inequalities, join.left, join.right)
      )
      _ <- require(
        conjuncts.inequalities.nonEmpty || conjuncts.equalities.nonEmpty,
        Declines.noInequality(conjuncts.residuals, join.left.outputSet, join.right.outputSet)
      )
      _ <- broadcastHintDecline(join, conjuncts.equalities).toLeft(())
      _ <- SmallJoins.leftToSpark(join, conjuncts.equalities, conf).toLeft(())
      planned <-
        if (conjuncts.equalities.isEmpty) chooseOperator(join, conjuncts, conf)
        else chooseKeyedOperator(join, conjuncts, conf)
    } yield planned
  }

  /**
   * Whether a side carries a join strategy hint from the user other than `BROADCAST`, which the
   * broadcast range join honours. Adaptive execution adds hints of its own when it re-plans a
   * join (`NO_BROADCAST_HASH`, `PREFER_SHUFFLE_HASH`, ...); they only steer Spark's choice among
   * its own joins and must not turn the range join off mid-query.
   */
  private def hasStrategyHint(hint: JoinHint): Boolean =
    (hint.leftHint ++ hint.rightHint).flatMap(_.strategy).exists {
      case SHUFFLE_MERGE | SHUFFLE_HASH | SHUFFLE_REPLICATE_NL => true
      case _ => false
    }

  /** The inputs the user asked to broadcast (`/*+ BROADCAST(t) */`). */
  private def broadcastHints(join: Join): Seq[BuildSide] =
    Seq(BuildLeft -> join.hint.leftHint, BuildRight -> join.hint.rightHint).collect {
      case (side, Some(hint)) if hint.strategy.contains(BROADCAST) => side
    }

  /**
   * Rung 2, `BROADCAST` hints: Spark keeps a hinted join that the broadcast range join cannot
   * run as asked, so that Spark broadcasts the hinted input: one with equality keys (Spark's
   * broadcast hash join), or one whose hinted inputs are all preserved by the join type.
   */
  private def broadcastHintDecline(join: Join, eqs: Seq[Equality]): Option[String] = {
    val hinted = broadcastHints(join)
    val buildable = BroadcastRangeJoinExec.buildSides(join.joinType)
    if (hinted.isEmpty) None
    else if (eqs.nonEmpty) Some("a BROADCAST hint on a join with equality keys")
    else if (hinted.exists(buildable.contains)) None
    else
      Some {
        val inputs = hinted.map(BroadcastRangeJoinExec.inputName).mkString(" and ")
        s"a BROADCAST hint on the $inputs input of a ${join.joinType} join, which the broadcast " +
          "range join cannot build"
      }
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
    lazy val interval = PointInInterval
      .of(ineqs, conjuncts.residuals, join.left.outputSet, join.right.outputSet)
      .filter(i => ineqs.exists(OpenEnds.isCandidate) && streamsPoint(join.joinType, i))
      .filter(_ => eqs.forall(e => byteComparableKey(e.left.dataType, e.right.dataType)))
    for {
      _ <- require(!eqs.exists(_.nullSafe), s"a null-safe equality in ${eqs.mkString(", ")}")
      _ <- require(
        eqs.forall(e => JoinConditionAnalysis.isSortableKeyType(e.left.dataType)),
        s"an equality key of a type other than numbers, dates, times, intervals, binary, " +
          s"and strings in the default collation: ${eqs.mkString(", ")}"
      )
      _ <- require(ineqs.nonEmpty, s"an equi-join on ${eqs.mkString(", ")}")
      planned <- window match {
        case Some((w, others)) if RangeJoinConf.SlidingWindowJoinEnabled.get(conf) =>
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
        case _ if interval.isDefined && RangeJoinConf.KeyedIntervalJoinEnabled.get(conf) =>
          val threshold = RangeJoinConf.KeyedIntervalBroadcastThreshold.get(conf)
          val indexed = if (interval.get.pointIsLeft) join.right else join.left
          Right(
            KeyedIntervalJoinExec(
              eqs.map(_.left),
              eqs.map(_.right),
              interval.get,
              conjuncts.residuals.filterNot(interval.get.decided.contains).reduceOption(And),
              join.joinType,
              threshold >= 0 && indexed.stats.sizeInBytes <= threshold,
              indexed.stats.sizeInBytes <= KeyedIntervalJoinExec.GeneratedMaxBytes,
              None,
              planLater(join.left),
              planLater(join.right)
            )
          )
        case _
            if ineqs.count(!OpenEnds.isCandidate(_)) >= 2 &&
              RangeJoinConf.IEJoinEnabled.get(conf) =>
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
          Left(
            s"equality keys with ${ineqs.size} inequalities (open ends not counted) and no " +
              "enabled operator for that"
          )
      }
    } yield planned
  }

  /**
   * Whether equality keys of these types are equal exactly when their bytes are, as a hash table
   * of keys needs: one type, and not floating point (where -0.0 equals 0.0 and NaNs differ).
   */
  private def byteComparableKey(left: DataType, right: DataType): Boolean =
    left == right && left != FloatType && left != DoubleType

  /** Whether `joinType` streams the input that holds the point of `interval`. */
  private def streamsPoint(joinType: JoinType, interval: PointInInterval): Boolean =
    joinType match {
      case _: InnerLike => true
      case LeftOuter | LeftSemi | LeftAnti | ExistenceJoin(_) => interval.pointIsLeft
      case RightOuter => !interval.pointIsLeft
      case _ => false
    }

  /**
   * Rungs 5 to 8, without equality keys: the first operator that applies, tried in the ladder's
   * order.
   */
  private def chooseOperator(join: Join, conjuncts: JoinConjuncts, conf: SQLConf)
      : Either[String, SparkPlan] = {
    val residual = conjuncts.residuals.reduceOption(And)
    val hinted = broadcastHints(join)
    planBoundFilter(join, conjuncts, residual, conf)
      .orElse(planBroadcast(join, conjuncts, residual, hinted, conf))
      .orElse(if (hinted.isEmpty) planBlockJoin(join, conjuncts, residual, conf) else None)
      .map {
        case blocks: BlockRangeJoinExec => BlockJoinOutputExec(blocks)
        case other => other
      }
      .toRight(
        if (hinted.nonEmpty) {
          s"a BROADCAST hint, and ${RangeJoinConf.BroadcastEnabled.key} is false or the " +
            "leading keys have no fixed-width code"
        } else {
          s"${conjuncts.inequalities.size} inequalities, and the operators for that many are " +
            s"switched off (${RangeJoinConf.IEJoinEnabled.key}, " +
            s"${RangeJoinConf.PiecewiseMergeJoinEnabled.key})"
        }
      )
  }

  /** Rung 5: one inequality and nothing else, in a join that only asks whether a row matched. */
  private def planBoundFilter(
      join: Join,
      conjuncts: JoinConjuncts,
      residual: Option[Expression],
      conf: SQLConf
  ): Option[SparkPlan] = conjuncts.inequalities match {
    case Seq(ineq)
        if residual.isEmpty && BoundFilterJoinExec.supports(join.joinType) &&
          RangeJoinConf.PiecewiseMergeJoinEnabled.get(conf) =>
      Some(
        BoundFilterJoinExec(
          ineq.left,
          ineq.op,
          ineq.right,
          join.joinType,
          planLater(join.left),
          planLater(join.right)
        )
      )
    case _ => None
  }

  /**
   * Rung 6: an input the join type lets stream the other input against, hinted `BROADCAST` or
   * else worth broadcasting ([[worthBroadcasting]]), and leading keys with fixed-width codes. Of
   * two candidates (inner joins), the smaller is broadcast.
   */
  private def planBroadcast(
      join: Join,
      conjuncts: JoinConjuncts,
      residual: Option[Expression],
      hinted: Seq[BuildSide],
      conf: SQLConf
  ): Option[SparkPlan] = {
    val ineqs = conjuncts.inequalities
    def size(side: BuildSide) = (if (side == BuildLeft) join.left else join.right).stats.sizeInBytes
    val indexable = ineqs.take(2).forall(i => BroadcastRangeIndex.indexable(i.left))
    val buildable = BroadcastRangeJoinExec.buildSides(join.joinType)
    val candidates =
      if (hinted.nonEmpty) buildable.filter(hinted.contains)
      else buildable.filter(worthBroadcasting(join, _, conf))
    val buildSide = if (candidates.isEmpty) None else Some(candidates.minBy(size))
    buildSide.filter(_ => indexable && RangeJoinConf.BroadcastEnabled.get(conf)).map { side =>
      val planned = BroadcastRangeJoinExec(
        ineqs.map(_.left),
        ineqs.map(_.op),
        ineqs.map(_.right),
        residual,
        join.joinType,
        side,
        planLater(join.left),
        planLater(join.right)
      )
      val build = if (side == BuildLeft) join.left else join.right
      if (StableBroadcasts.readsCachedData(build)) planned.withStableBroadcast else planned
    }
  }

  /**
   * Whether rung 6 broadcasts input `side` unhinted: Spark would broadcast it (at most
   * `spark.sql.autoBroadcastJoinThreshold`), and it is estimated at most
   * `spark.rangejoin.broadcast.ratioAboveRows` (16,384) rows, or holds at most
   * `spark.rangejoin.broadcast.maxRowsRatio` (0.5) times the other input's estimated rows, or
   * reads only cached data (a kept broadcast serves later runs, [[StableBroadcasts]]), or the join
   * is a micro-batch of a stream.
   *
   * Broadcasting sorts the whole input on the driver, in one thread, where the block join sorts
   * both inputs in parallel tasks; it pays when the broadcast input is much the smaller. Below
   * `ratioAboveRows` an input is broadcast whatever the ratio: at that size either way costs
   * little. Both defaults come from the broadcast-or-block benchmark of `make bench-defaults`
   * (docs/benchmarks/defaults.md).
   */
  private def worthBroadcasting(join: Join, side: BuildSide, conf: SQLConf): Boolean = {
    val (build, other) = if (side == BuildLeft) (join.left, join.right) else (join.right, join.left)
    val ratio = RangeJoinConf.BroadcastMaxRowsRatio.get(conf)
    val rows = SizeEstimates.rows(build)
    build.stats.sizeInBytes <= conf.autoBroadcastJoinThreshold && (
      rows <= RangeJoinConf.BroadcastRatioAboveRows.get(conf) ||
        BigDecimal(rows) <= BigDecimal(SizeEstimates.rows(other)) * ratio ||
        StableBroadcasts.readsCachedData(build) || join.isStreaming
    )
  }

  /** Rungs 7 and 8: a join over sorted blocks, by the number of inequalities. */
  private def planBlockJoin(
      join: Join,
      conjuncts: JoinConjuncts,
      residual: Option[Expression],
      conf: SQLConf
  ): Option[SparkPlan] = {
    val ineqs = conjuncts.inequalities
    val blockRows = RangeJoinConf.BlockRows.get(conf)
    val sortSpillRows = RangeJoinConf.SortSpillRows.get(conf)
    def prepared(key: Expression, child: LogicalPlan) = BlockInputPlanning.prepare(
      key,
      child,
      planLater(child),
      session.sparkContext,
      conf
    )
    val ieJoin = ineqs.size >= 2 && RangeJoinConf.IEJoinEnabled.get(conf)
    val (leftChild, rightChild, reuse) =
      SelfJoinInputs(join, ineqs.map(_.left), ineqs.map(_.right), swappable = ieJoin)
    // A self-join whose right keys are its left keys 0 and 1 swapped partitions its right input
    // as its left, on the left's key 0 (the right's key 1): both are then one exchange, which
    // IEJoinExec loads once and reads swapped on the right.
    val rightKey0 = if (reuse == RightBlocks.LeftKeysSwapped) ineqs(1).right else ineqs.head.right
    lazy val left = prepared(ineqs.head.left, leftChild)
    lazy val right = prepared(rightKey0, rightChild)
    if (ieJoin) {
      Some(
        IEJoinExec(
          ineqs.map(_.left),
          ineqs.map(_.op),
          ineqs.map(_.right),
          residual,
          join.joinType,
          blockRows,
          sortSpillRows,
          left.input,
          right.input,
          left.plan,
          right.plan
        )
      )
    } else if (ineqs.size == 1 && RangeJoinConf.PiecewiseMergeJoinEnabled.get(conf)) {
      Some(
        PiecewiseMergeJoinExec(
          ineqs.head.left,
          ineqs.head.op,
          ineqs.head.right,
          residual,
          join.joinType,
          blockRows,
          sortSpillRows,
          left.input,
          right.input,
          left.plan,
          right.plan
        )
      )
    } else None
  }

  private def require(holds: Boolean, reason: => String): Either[String, Unit] =
    if (holds) Right(()) else Left(reason)
}

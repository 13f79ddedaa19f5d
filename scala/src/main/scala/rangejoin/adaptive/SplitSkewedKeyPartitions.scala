package rangejoin.adaptive

import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{
  CoalescedPartitionSpec,
  ShufflePartitionSpec,
  SortExec,
  SparkPlan
}
import org.apache.spark.sql.execution.adaptive.{
  AQEShuffleReadExec,
  ShufflePartitionsUtil,
  ShuffleQueryStageExec
}
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, ValidateRequirements}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.execution.KeyClusteredJoinExec

/**
 * Adaptive execution's skew-join split for the joins with equality keys
 * ([[rangejoin.execution.KeyClusteredJoinExec]]); Spark's own rule knows only its sort-merge and
 * shuffled hash joins. It runs when the shuffles that cluster both inputs by the keys have
 * finished, and reads Spark's skew-join settings (`spark.sql.adaptive.skewJoin.*`).
 *
 * A partition of an input is skewed when its shuffled bytes exceed both
 * `skewedPartitionThresholdInBytes` and `skewedPartitionFactor` times the median partition. It is
 * cut by map-output ranges into pieces of about the mean unskewed partition (at least
 * `spark.sql.adaptive.advisoryPartitionSizeInBytes`), and each piece is joined with the whole
 * matching partition of the other input, in a task of its own. A hot key's rows thus run in
 * several tasks, and a key group is never more than one piece on a split side. When both sides
 * of a partition are split, every piece of one meets every piece of the other.
 *
 * The join's output is the union of the pieces' outputs only where each row of the split side is
 * joined independently of its side's other rows, and each pair of rows meets in exactly one task:
 *  - the left input of inner, cross, left outer, left semi, left anti and existence joins;
 *  - the right input of inner, cross and right outer joins;
 *  - neither input of a full outer join, whose unmatched rows of both sides need every row.
 *
 * A split is kept only if the plan needs no new shuffle for it (the join's output is no longer
 * clustered by the keys), as Spark's rule does.
 */
object SplitSkewedKeyPartitions extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!conf.getConf(SQLConf.SKEW_JOIN_ENABLED)) plan
    else {
      val split = plan.transformUp {
        case join: KeyClusteredJoinExec if !join.skewSplit => splitJoin(join).getOrElse(join)
      }
      if (split.fastEquals(plan) || !ValidateRequirements.validate(split)) plan else split
    }

  /** `join` with its skewed partitions split, or None when no partition is. */
  private def splitJoin(join: KeyClusteredJoinExec): Option[SparkPlan] =
    (join.left, join.right) match {
      case (
            l @ SortExec(_, _, ShuffleStage(ls, lSizes), _),
            r @ SortExec(_, _, ShuffleStage(rs, rSizes), _)
          ) if lSizes.length == rSizes.length =>
        val lPieces = skewedPieces(ls, lSizes, canSplitLeft(join.joinType))
        val rPieces = skewedPieces(rs, rSizes, canSplitRight(join.joinType))
        if (lPieces.isEmpty && rPieces.isEmpty) None
        else Some {
          def whole(sizes: Array[Long], p: Int) = Seq(CoalescedPartitionSpec(p, p + 1, sizes(p)))
          val tasks = lSizes.indices.flatMap { p =>
            for {
              lp <- lPieces.getOrElse(p, whole(lSizes, p))
              rp <- rPieces.getOrElse(p, whole(rSizes, p))
            } yield (lp, rp)
          }
          join.withSkewSplit(
            l.copy(child = AQEShuffleReadExec(ls, tasks.map(_._1))),
            r.copy(child = AQEShuffleReadExec(rs, tasks.map(_._2)))
          )
        }
      case _ => None
    }

  private def canSplitLeft(joinType: JoinType): Boolean = joinType match {
    case Inner | Cross | LeftOuter | LeftSemi | LeftAnti | ExistenceJoin(_) => true
    case _ => false
  }

  private def canSplitRight(joinType: JoinType): Boolean = joinType match {
    case Inner | Cross | RightOuter => true
    case _ => false
  }

  /**
   * The skewed partitions of `stage`, whose partitions have `sizes` bytes, and their pieces; none
   * when the join type may not split this side.
   */
  private def skewedPieces(stage: ShuffleQueryStageExec, sizes: Array[Long], splittable: Boolean)
      : Map[Int, Seq[ShufflePartitionSpec]] = if (!splittable) Map.empty
  else {
    val sorted = sizes.sorted
    val median = sorted(sorted.length / 2).max(1L)
    val threshold = conf
      .getConf(SQLConf.SKEW_JOIN_SKEWED_PARTITION_THRESHOLD)
      .max((median * conf.getConf(SQLConf.SKEW_JOIN_SKEWED_PARTITION_FACTOR)).toLong)
    val unskewed = sizes.filter(_ <= threshold)
    val mean = if (unskewed.isEmpty) 0L else unskewed.sum / unskewed.length
    val target = mean.max(conf.getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES))
    sizes.indices
      .filter(sizes(_) > threshold)
      .flatMap { p =>
        ShufflePartitionsUtil.createSkewPartitionSpecs(
          stage.mapStats.get.shuffleId,
          p,
          target
        ).map(p -> _)
      }
      .toMap
  }

  /** A finished shuffle that clusters a join input, with its partitions' sizes in bytes. */
  private object ShuffleStage {
    def unapply(plan: SparkPlan): Option[(ShuffleQueryStageExec, Array[Long])] = plan match {
      case s: ShuffleQueryStageExec
          if s.isMaterialized && s.shuffle.shuffleOrigin == ENSURE_REQUIREMENTS =>
        s.mapStats.map(_.bytesByPartitionId).filter(_.nonEmpty).map(s -> _)
      case _ => None
    }
  }
}

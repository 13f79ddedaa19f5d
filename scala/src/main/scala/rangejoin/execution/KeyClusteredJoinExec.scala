package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}

import rangejoin.execution.blocks.InjectedFailures
import rangejoin.execution.keyed.{KeyGroup, KeyGroups}

/**
 * A join with equality keys, run per partition on inputs that Spark clusters by the keys (a hash
 * exchange, as for its sort-merge join) and sorts by the keys, then by further sort columns. The
 * operators co-group the sorted inputs by key ([[rangejoin.execution.keyed.KeyGroups]]) and join
 * within each group.
 *
 * The stream side is the left input, except for a right outer join.
 */
trait KeyClusteredJoinExec extends BinaryExecNode {

  /** Equality `k` is `leftEqualityKeys(k) = rightEqualityKeys(k)`. */
  def leftEqualityKeys: Seq[Expression]
  def rightEqualityKeys: Seq[Expression]
  def joinType: JoinType

  /** What each side is sorted by after the equality keys. */
  protected def leftSortColumns: Seq[Expression]
  protected def rightSortColumns: Seq[Expression]

  /**
   * Whether adaptive execution split this join's skewed partitions
   * ([[rangejoin.adaptive.SplitSkewedKeyPartitions]]): its inputs are then no longer clustered by
   * the keys, only each task's pair of pieces is: the join requires no distribution and
   * promises none.
   */
  def skewSplit: Boolean

  /** This join over the split inputs `newLeft` and `newRight`, marked [[skewSplit]]. */
  def withSkewSplit(newLeft: SparkPlan, newRight: SparkPlan): KeyClusteredJoinExec

  protected def streamIsLeft: Boolean = joinType != RightOuter

  override def output: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def requiredChildDistribution: Seq[Distribution] =
    if (skewSplit) UnspecifiedDistribution :: UnspecifiedDistribution :: Nil
    else ClusteredDistribution(leftEqualityKeys) :: ClusteredDistribution(rightEqualityKeys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(leftEqualityKeys ++ leftSortColumns, rightEqualityKeys ++ rightSortColumns)
      .map(_.map(SortOrder(_, Ascending)))

  override def outputPartitioning: Partitioning = joinType match {
    case _ if skewSplit => UnknownPartitioning(left.outputPartitioning.numPartitions)
    case _: InnerLike =>
      PartitioningCollection(Seq(left.outputPartitioning, right.outputPartitioning))
    case RightOuter => right.outputPartitioning
    case FullOuter => UnknownPartitioning(left.outputPartitioning.numPartitions)
    case _ => left.outputPartitioning
  }

  /** The equality keys as a string for EXPLAIN, and whether skewed partitions are split. */
  protected def equalitiesString: String =
    leftEqualityKeys
      .zip(rightEqualityKeys)
      .map { case (l, r) => s"${l.sql} = ${r.sql}" }
      .mkString("[", ", ", "]") + (if (skewSplit) " (skewed partitions split)" else "")

  /**
   * Made on the driver: runs `join` on the key groups of each pair of input partitions, stream
   * side first ([[rangejoin.execution.keyed.KeyGroups]]). Captures only bound expressions, not the
   * node.
   */
  protected def perPartition(join: Iterator[KeyGroup] => Iterator[InternalRow])
      : RDD[InternalRow] = {
    val leftKeys = leftEqualityKeys.map(BindReferences.bindReference(_, left.output))
    val rightKeys = rightEqualityKeys.map(BindReferences.bindReference(_, right.output))
    val types = leftKeys.map(_.dataType)
    if (streamIsLeft)
      left.execute().zipPartitions(right.execute()) { (l, r) =>
        InjectedFailures.failFirstAttempt()
        join(KeyGroups(l, r, leftKeys, rightKeys, types))
      }
    else
      right.execute().zipPartitions(left.execute()) { (r, l) =>
        InjectedFailures.failFirstAttempt()
        join(KeyGroups(r, l, rightKeys, leftKeys, types))
      }
  }
}

package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.rangejoin.SpillThresholds

import rangejoin.execution.keyed.{SlidingWindowScan, WindowBounds}
import rangejoin.execution.runtime.{JoinColumns, JoinPass, StreamEmit}

/**
 * Equality keys plus a bounded window on one column pair, e.g.
 * `l.id = r.id AND l.ts >= r.ts AND l.ts < r.ts + INTERVAL 1 DAY`: both inputs are clustered by
 * the keys and sorted by keys, then window column, and each partition is scanned once with a
 * sliding window of build rows per key ([[rangejoin.execution.keyed.SlidingWindowScan]]). The
 * window is the only state; it spills through Spark's memory manager
 * ([[rangejoin.execution.keyed.SlidingWindowBuffer]]).
 *
 * The stream side is the left input, except for a right outer join; the output keeps the stream
 * side's order within each partition, except that a full outer join also outputs unmatched
 * build rows where they leave the window.
 *
 * @param leftColumn the window column of the left input; `rightColumn` of the right
 * @param lower the comparison that bounds `rightColumn` from below, e.g. `l.ts < r.ts + 1`
 * @param upper the comparison that bounds `rightColumn` from above, e.g. `l.ts >= r.ts`
 * @param residual the rest of the join condition, checked on the rows in the window
 */
case class SlidingWindowJoinExec(
    leftEqualityKeys: Seq[Expression],
    rightEqualityKeys: Seq[Expression],
    leftColumn: Expression,
    rightColumn: Expression,
    lower: Expression,
    upper: Expression,
    residual: Option[Expression],
    joinType: JoinType,
    left: SparkPlan,
    right: SparkPlan,
    skewSplit: Boolean = false
) extends KeyClusteredJoinExec
    with JoinMetrics {

  override protected def leftSortColumns: Seq[Expression] = Seq(leftColumn)
  override protected def rightSortColumns: Seq[Expression] = Seq(rightColumn)

  override def outputOrdering: Seq[SortOrder] = joinType match {
    case FullOuter => Nil
    case _ => if (streamIsLeft) left.outputOrdering else right.outputOrdering
  }

  override protected def reportedMetrics: Seq[JoinMetric] =
    Seq(JoinMetric.NumOutputRows, JoinMetric.WindowSpillSize)

  override def simpleString(maxFields: Int): String = {
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, keys $equalitiesString, window [${lower.sql}, ${upper.sql}]$rest"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    // The build side is the right input when the left streams: rows of the right input enter
    // the window by the upper bound and leave by the lower one; the other way round otherwise.
    val (enters, stays) = if (streamIsLeft) (upper, lower) else (lower, upper)
    val columns = JoinColumns(left.output, right.output, output)
    val (streamOutput, buildOutput) = columns.streamAndBuild(streamIsLeft)
    val (streamColumn, buildColumn) =
      if (streamIsLeft) (leftColumn, rightColumn) else (rightColumn, leftColumn)
    val inputs = left.output ++ right.output
    val scan = new SlidingWindowScan(
      JoinPass(streamIsLeft, StreamEmit.of(joinType), padUnmatched = false),
      keepUnmatchedBuild = joinType == FullOuter,
      WindowBounds(
        BindReferences.bindReference(enters, inputs),
        BindReferences.bindReference(stays, inputs),
        BindReferences.bindReference(streamColumn, streamOutput),
        BindReferences.bindReference(buildColumn, buildOutput)
      ),
      residual,
      columns,
      SpillThresholds.ofSortMergeJoin(conf),
      metric(JoinMetric.NumOutputRows),
      metric(JoinMetric.WindowSpillSize)
    )
    perPartition(scan.join)
  }

  override def withSkewSplit(newLeft: SparkPlan, newRight: SparkPlan): SlidingWindowJoinExec =
    copy(left = newLeft, right = newRight, skewSplit = true)

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : SlidingWindowJoinExec = copy(left = newLeft, right = newRight)
}

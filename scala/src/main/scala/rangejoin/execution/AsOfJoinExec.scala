package rangejoin.execution

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute,
  BindReferences,
  Expression,
  GenericInternalRow,
  Predicate,
  UnsafeRow
}
import org.apache.spark.sql.catalyst.plans.{JoinType, LeftOuter}
import org.apache.spark.sql.catalyst.plans.physical.{
  BroadcastDistribution,
  ClusteredDistribution,
  Distribution,
  Partitioning,
  UnspecifiedDistribution
}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.condition.{AsOfCondition, AsOfDirection}
import rangejoin.execution.blocks.{HeapBudget, InjectedFailures}
import rangejoin.execution.blocks.HeapBudget.Unaccounted
import rangejoin.execution.broadcast.{PerCarrier, SortedRowsBroadcastMode}
import rangejoin.execution.keyed.{AsOfIndex, AsOfProbe, AsOfSearch, AsOfValue, KeyGroupMemory}
import rangejoin.execution.runtime.{JoinMemory, PairProjection}

/**
 * Spark's as-of join (`joinAsOf`, pandas-on-Spark `merge_asof`) as a nearest-match search:
 * the right rows are indexed by key and as-of value ([[keyed.AsOfIndex]]), and each left
 * row walks its key's rows outward from its own as-of value until the first that qualifies
 * ([[keyed.AsOfSearch]], where the walk's invariants are). O((n + m) log m) where Spark's
 * rewrite joins every distinct left as-of value with every right row.
 *
 * The right input is broadcast when `broadcast` (always without equality keys), sorted on the
 * driver by key and as-of value, and each executor indexes it once, shared by its tasks; else
 * both inputs are hash-partitioned on the keys and each task indexes its part of the right rows.
 * Left rows stay where they are and come out in their order, inner (rows with no answer dropped)
 * or left outer (padded with NULLs).
 *
 * The fields are [[rangejoin.condition.AsOfCondition]]'s, Spark's expressions untouched, and
 * `columns`: those a projection above keeps, which alone the node writes ([[ProjectedOutput]]),
 * or `None` for all.
 */
case class AsOfJoinExec(
    leftAsOf: Expression,
    rightAsOf: Expression,
    direction: AsOfDirection,
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    asOfCondition: Expression,
    orderExpression: Expression,
    tolerance: Option[Long],
    joinType: JoinType,
    broadcast: Boolean,
    columns: Option[Seq[Attribute]],
    left: SparkPlan,
    right: SparkPlan
) extends BinaryExecNode
    with ProjectedOutput
    with JoinMetrics
    with ExplainFields {
  require(broadcast || leftKeys.nonEmpty, "An as-of join without equality keys broadcasts")

  protected def joinOutput: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def outputPartitioning: Partitioning = projected(left.outputPartitioning)

  override def requiredChildDistribution: Seq[Distribution] =
    if (broadcast) {
      // Packed into one carrier row on the driver, each key's rows together and in order, which
      // the index keeps as they are.
      val mode = SortedRowsBroadcastMode.grouped(rightKeys, rightAsOf, right.output)
      UnspecifiedDistribution :: BroadcastDistribution(mode) :: Nil
    } else ClusteredDistribution(leftKeys) :: ClusteredDistribution(rightKeys) :: Nil

  override protected def reportedMetrics: Seq[JoinMetric] =
    Seq(
      JoinMetric.NumOutputRows,
      JoinMetric.FullSearches,
      JoinMetric.IndexRowsSorted,
      JoinMetric.PeakMemory
    ) ++ (if (broadcast) Seq(JoinMetric.IndexBuilds) else Nil)

  protected def explainFields: Seq[(String, String)] = Seq(
    "Join type" -> joinType.toString,
    "Direction" -> direction.description,
    "As of" -> s"${leftAsOf.sql} ~ ${rightAsOf.sql}",
    "Keys" -> ExplainFields.keys(leftKeys, rightKeys),
    "As-of condition" -> asOfCondition.sql,
    "Residual" -> residual.map(_.sql).getOrElse("None"),
    "Right input" -> (if (broadcast) "broadcast, indexed once per executor"
                      else "hash-partitioned on the keys, indexed per task"),
    outputField
  )

  override protected def doExecute(): RDD[InternalRow] = {
    // Taken on the driver: the metrics are made from the session, which a task's copy of this
    // node does not have.
    val metrics = TaskMetrics(
      metric(JoinMetric.PeakMemory),
      metric(JoinMetric.FullSearches),
      metric(JoinMetric.NumOutputRows)
    )
    val rowsSorted = metric(JoinMetric.IndexRowsSorted)
    if (broadcast) {
      val carrier = right.executeBroadcast[Array[InternalRow]]()
      val builds = metric(JoinMetric.IndexBuilds)
      left.execute().mapPartitions { rows =>
        join(rows, _ => sharedIndex(carrier, builds, rowsSorted), metrics)
      }
    } else {
      left.execute().zipPartitions(right.execute()) { (lefts, rights) =>
        join(lefts, buildIndex(rights, _, rowsSorted), metrics)
      }
    }
  }

  /** The index of the broadcast right rows: built by the executor's first task, then shared. */
  private def sharedIndex(
      carrier: Broadcast[Array[InternalRow]],
      builds: SQLMetric,
      rowsSorted: SQLMetric
  ): AsOfIndex =
    PerCarrier.ofRows(carrier, indexIdentity, builds) { rows =>
      sortCounted(AsOfIndex.build(rows, boundRightKeys, rightValue, Unaccounted), rowsSorted)
    }

  /**
   * What the index of the broadcast right rows depends on, bound to their columns' positions: two
   * joins that read one broadcast (an exchange reused under other column names) share one index
   * when these are equal.
   */
  private def indexIdentity: Any = {
    def bound(e: Expression) = BindReferences.bindReference(e, right.output)
    ("as-of", rightKeys.map(bound), bound(rightAsOf))
  }

  private def buildIndex(rows: Iterator[InternalRow], budget: HeapBudget, rowsSorted: SQLMetric)
      : AsOfIndex = {
    val types = right.output.map(_.dataType)
    sortCounted(
      AsOfIndex.build(rows, boundRightKeys, rightValue, types, budget),
      rowsSorted
    )
  }

  private def sortCounted(index: AsOfIndex, rowsSorted: SQLMetric): AsOfIndex = {
    rowsSorted += index.sortedRows
    index
  }

  // New objects on each call: projections and as-of values keep state, one per index build.
  private def boundRightKeys = BindReferences.bindReferences(rightKeys, right.output)
  private def rightValue = new AsOfValue(BindReferences.bindReference(rightAsOf, right.output))

  private case class TaskMetrics(
      peakMemory: SQLMetric,
      fullSearches: SQLMetric,
      numOutputRows: SQLMetric
  )

  /**
   * One task: the left rows through the index `indexOf` gives, given the task's memory to reserve
   * from (a shared broadcast index reserves none of it); the left batches reserve from it too.
   */
  private def join(
      lefts: Iterator[InternalRow],
      indexOf: HeapBudget => AsOfIndex,
      metrics: TaskMetrics
  ): Iterator[InternalRow] = {
    InjectedFailures.failFirstAttempt()
    // Right columns bound as nullable: a left outer join's unmatched rows pad them with NULLs.
    val both = left.output ++ right.output.map(_.withNullability(true))
    def bindBoth(e: Expression) = BindReferences.bindReference(e, both)
    val memory = new KeyGroupMemory(JoinMemory.forTask(metrics.peakMemory))
    val index = indexOf(memory)
    val search = new AsOfSearch(
      direction,
      Predicate.create(bindBoth(asOfCondition)),
      residual.map(r => Predicate.create(bindBoth(r))),
      bindBoth(orderExpression),
      AsOfCondition.excludesEqualValues(asOfCondition, leftAsOf, rightAsOf, direction),
      tolerance,
      AsOfCondition.codeRange(leftAsOf.dataType),
      right.output.size,
      metrics.fullSearches
    )
    val result = new PairProjection(output, left.output, right.output.map(_.withNullability(true)))
    val padding = new GenericInternalRow(right.output.size)
    val reuse = new UnsafeRow(right.output.size)
    val numOutputRows = metrics.numOutputRows
    def emit(row: InternalRow, found: Int): InternalRow =
      if (found < 0 && joinType != LeftOuter) null
      else {
        numOutputRows += 1
        result(row, if (found < 0) padding else index.rows.row(found, reuse))
      }
    new AsOfProbe(
      index,
      search,
      BindReferences.bindReferences(leftKeys, left.output),
      new AsOfValue(BindReferences.bindReference(leftAsOf, left.output)),
      left.output.map(_.dataType),
      memory,
      (row, found) => emit(row, found)
    ).join(lefts)
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : AsOfJoinExec = copy(left = newLeft, right = newRight)
}

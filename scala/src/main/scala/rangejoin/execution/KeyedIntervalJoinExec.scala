package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute,
  AttributeSet,
  BindReferences,
  Expression,
  GenericInternalRow,
  JoinedRow,
  Predicate,
  UnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.{ExistenceJoin, JoinType}
import org.apache.spark.sql.catalyst.plans.physical.{
  BroadcastDistribution,
  ClusteredDistribution,
  Distribution,
  Partitioning,
  UnspecifiedDistribution
}
import org.apache.spark.sql.catalyst.expressions.codegen.{
  CodegenContext,
  ExprCode,
  GenerateUnsafeProjection
}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.condition.PointInInterval
import rangejoin.execution.blocks.{HeapBudget, InjectedFailures}
import rangejoin.execution.broadcast.SortedRowsBroadcastMode
import rangejoin.execution.keyed.{
  AsOfValue,
  IntegralColumn,
  IntervalBound,
  IntervalCursor,
  IntervalIndex,
  IntervalOutput,
  IntervalProbe,
  KeyGroupMemory
}
import rangejoin.execution.runtime.{JoinMemory, PairProjection, StreamEmit, StreamProbeCodegen}

/**
 * A join on equality keys plus a point of one input inside an interval of the other
 * ([[rangejoin.condition.PointInInterval]]), the type-2 slowly changing dimension lookup: the
 * interval input is indexed by key and lower bound ([[keyed.IntervalIndex]]) and each row of the
 * point input looks up its key's intervals that start at or before its point, walking back only
 * as far as an interval may still reach it ([[keyed.IntervalProbe]]). O((n + m) log m) plus the
 * intervals walked, where a hash or sort-merge join on the keys compares each point with every
 * interval of its key. The keys decide a pair by their bytes, as Spark's hash join does, and the
 * interval by codes; only the `residual` is evaluated on the pair.
 *
 * With `broadcast`, the interval input is broadcast and each executor indexes it once, shared by
 * its tasks; the point input is neither shuffled nor sorted. Otherwise both inputs are
 * hash-partitioned on the keys and each task indexes its part of the intervals. The point input
 * is streamed: the join type must preserve or filter only it (inner, its outer side, and, when it
 * is the left input, semi, anti and existence joins).
 *
 * With whole-stage codegen and `generated`, a broadcast join's probe is generated code in the point
 * input's stage ([[runtime.StreamProbeCodegen]]), fused with the scan below and the operators
 * above, each point probing as it arrives. `doExecute` runs the probe interpreted
 * ([[keyed.IntervalProbe]]), with the points put in order of the index's regions when
 * the index outgrows the cache.
 *
 * @param residual the conjuncts of the join's condition that neither the keys nor the interval
 *   decide
 * @param generated whether a broadcast index is small enough for generated code, which probes in
 *   arrival order ([[KeyedIntervalJoinExec.GeneratedMaxBytes]])
 * @param columns the columns a projection above keeps, which alone the node writes
 *   ([[ProjectedOutput]]), or `None` for all
 */
case class KeyedIntervalJoinExec(
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    interval: PointInInterval,
    residual: Option[Expression],
    joinType: JoinType,
    broadcast: Boolean,
    generated: Boolean,
    columns: Option[Seq[Attribute]],
    left: SparkPlan,
    right: SparkPlan
) extends StreamProbeCodegen
    with ProjectedOutput
    with JoinMetrics
    with ExplainFields {

  private def pointIsLeft = interval.pointIsLeft
  override protected def streamIsLeft: Boolean = pointIsLeft
  override protected def streamedPlan: SparkPlan = if (pointIsLeft) left else right
  override protected def buildPlan: SparkPlan = indexedPlan
  private def indexedPlan = if (pointIsLeft) right else left
  private def streamedKeys = if (pointIsLeft) leftKeys else rightKeys
  private def indexedKeys = if (pointIsLeft) rightKeys else leftKeys

  protected def joinOutput: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def outputPartitioning: Partitioning = projected(streamedPlan.outputPartitioning)

  override def requiredChildDistribution: Seq[Distribution] = {
    // Packed into one carrier row on the driver, which ships and reads as a few arrays instead of
    // one object per row. In order of a hash of the keys, then of lower bound (rows with a NULL
    // key, or whose lower bound is NULL and not an open end, left out): each key's rows together
    // and in order, which the index keeps as they are.
    lazy val indexed = BroadcastDistribution(
      SortedRowsBroadcastMode.grouped(indexedKeys, interval.lower, indexedPlan.output)
    )
    if (!broadcast) ClusteredDistribution(leftKeys) :: ClusteredDistribution(rightKeys) :: Nil
    else if (pointIsLeft) UnspecifiedDistribution :: indexed :: Nil
    else indexed :: UnspecifiedDistribution :: Nil
  }

  override protected def reportedMetrics: Seq[JoinMetric] =
    Seq(
      JoinMetric.NumOutputRows,
      JoinMetric.CandidatesWalked,
      JoinMetric.IndexRowsSorted,
      JoinMetric.PeakMemory
    ) ++ (if (broadcast) Seq(JoinMetric.IndexBuilds) else Nil)

  protected def explainFields: Seq[(String, String)] = Seq(
    "Join type" -> joinType.toString,
    "Keys" -> ExplainFields.keys(leftKeys, rightKeys),
    "Point in interval" -> interval.toString,
    "Residual" -> residual.map(_.sql).getOrElse("None"),
    "Interval input" -> (if (broadcast) "broadcast, indexed once per executor"
                         else "hash-partitioned on the keys, indexed per task"),
    outputField
  )

  /** What is checked on the pairs the index yields: the residual. */
  override def condition: Option[Expression] = residual

  override protected def streamEmit: StreamEmit = StreamEmit.of(joinType)

  override protected def numOutputRowsKey: String = JoinMetric.NumOutputRows.key

  /**
   * A broadcast join of a `generated` (small) index runs as generated code; a partitioned one,
   * zipping two inputs, does not.
   */
  override def supportCodegen: Boolean = broadcast && generated

  /**
   * The probe of a streamed row in Java: its keys (one integral key as a `long`, others as a key
   * row, as [[keyed.GroupKey]] reads them), then, only once they found a group, its point, as the
   * interpreted probe evaluates it; the walk is an [[keyed.IntervalCursor]] over the task's index.
   */
  override protected def probeCode(ctx: CodegenContext, input: Seq[ExprCode])
      : StreamProbeCodegen.Probe = {
    val cursor =
      taskState(ctx, broadcastIntervals(None), classOf[IntervalCursor], "intervalCursor")(
        intervals =>
          s"$intervals.cursor()"
      )
    val keys = BindReferences.bindReferences(streamedKeys, streamedPlan.output)
    val point = BindReferences.bindReference(interval.point: Expression, streamedPlan.output)
    // The point is evaluated inside a block; the input columns it reads are read before it.
    val read = evaluateRequiredVariables(streamedPlan.output, input, interval.point.references)
    ctx.currentVars = input
    val (keyCode, keyNull, group) = keys match {
      case Seq(key) if IntegralColumn.width(key.dataType) > 0 =>
        val ev = key.genCode(ctx)
        (ev.code.toString, ev.isNull.toString, s"$cursor.groupOfValue((long) ${ev.value})")
      case _ =>
        val ev = GenerateUnsafeProjection.createCode(ctx, keys)
        (ev.code.toString, s"${ev.value}.anyNull()", s"$cursor.groupOfKeys(${ev.value})")
    }
    val pointEv = point.genCode(ctx)
    val g = ctx.freshName("group")
    val p = ctx.freshName("point")
    val start =
      s"""
         |int $g = $group;
         |long $p = 0L;
         |if ($g >= 0) {
         |  ${pointEv.code}
         |  if (${pointEv.isNull}) $g = -1;
         |  else $p = (long) ${pointEv.value};
         |}
         |$cursor.probe($g, $p);
       """.stripMargin
    StreamProbeCodegen.Probe(
      s"$read\n$keyCode",
      usable = s"!($keyNull)",
      start = start,
      next = s"$cursor.next()",
      row = s"$cursor.row()"
    )
  }

  override protected def written(all: Seq[ExprCode]): Seq[ExprCode] =
    columns.fold(all)(_.map(c => all(joinOutput.indexWhere(_.exprId == c.exprId))))

  override protected def doExecute(): RDD[InternalRow] = {
    // Taken on the driver: the metrics are made from the session, which a task's copy of this
    // node does not have.
    val metrics = TaskMetrics(
      metric(JoinMetric.CandidatesWalked),
      metric(JoinMetric.NumOutputRows),
      metric(JoinMetric.PeakMemory)
    )
    val rowsSorted = metric(JoinMetric.IndexRowsSorted)
    if (broadcast) {
      val intervals = broadcastIntervals(indexWritten)
      streamedPlan.execute().mapPartitions { rows =>
        join(rows, _ => intervals.index(), metrics)
      }
    } else {
      left.execute().zipPartitions(right.execute()) { (l, r) =>
        val (streamed, indexed) = if (pointIsLeft) (l, r) else (r, l)
        join(streamed, buildIndex(indexed, _, rowsSorted), metrics)
      }
    }
  }

  private case class TaskMetrics(walked: SQLMetric, numOutputRows: SQLMetric, peakMemory: SQLMetric)

  /**
   * The broadcast intervals, which each executor indexes once ([[BroadcastIntervals]]), keeping
   * `written` as the index's rows if given.
   */
  private def broadcastIntervals(written: Option[Seq[Expression]]): BroadcastIntervals =
    BroadcastIntervals(
      indexedPlan.executeBroadcast[Array[InternalRow]](),
      boundIndexedKeys,
      lowerBound,
      upperBound,
      written,
      metric(JoinMetric.IndexBuilds),
      metric(JoinMetric.IndexRowsSorted),
      metric(JoinMetric.CandidatesWalked)
    )

  private def buildIndex(rows: Iterator[InternalRow], budget: HeapBudget, rowsSorted: SQLMetric)
      : IntervalIndex = {
    val types = indexedPlan.output.map(_.dataType)
    val index = sortCounted(
      IntervalIndex.build(
        rows,
        boundIndexedKeys,
        lowerBound.reader(isLower = true),
        upperBound.reader(isLower = false),
        types,
        budget
      ),
      rowsSorted
    )
    indexWritten.fold(index)(index.projected(_, budget))
  }

  private def sortCounted(index: IntervalIndex, rowsSorted: SQLMetric): IntervalIndex = {
    rowsSorted += index.sortedRows
    index
  }

  private def boundIndexedKeys = BindReferences.bindReferences(indexedKeys, indexedPlan.output)
  private def lowerBound = bound(interval.lowerColumn, interval.lowerStrict, interval.lowerOpen)
  private def upperBound = bound(interval.upperColumn, interval.upperStrict, interval.upperOpen)

  private def bound(column: Attribute, strict: Boolean, open: Boolean) =
    IntervalBound.Spec(BindReferences.bindReference(column, indexedPlan.output), strict, open)

  /**
   * One task: the streamed rows through the index `indexOf` gives, given the task's memory to
   * reserve from (a shared broadcast index reserves none of it); the streamed batches reserve from
   * it too.
   */
  private def join(
      streamed: Iterator[InternalRow],
      indexOf: HeapBudget => IntervalIndex,
      metrics: TaskMetrics
  ): Iterator[InternalRow] = {
    InjectedFailures.failFirstAttempt()
    val memory = new KeyGroupMemory(JoinMemory.forTask(metrics.peakMemory))
    val index = indexOf(memory)
    val numOutputRows = metrics.numOutputRows
    // Bound as nullable: an outer join's unmatched rows pad the indexed columns with NULLs.
    val leftColumns = left.output.map(_.withNullability(true))
    val rightColumns = right.output.map(_.withNullability(true))
    val predicate = residual.map(Predicate.create(_, leftColumns ++ rightColumns))
    val joined = new JoinedRow
    val ordered: (InternalRow, InternalRow) => InternalRow =
      if (pointIsLeft) (s, i) => joined(s, i) else (s, i) => joined(i, s)
    val emit = StreamEmit.of(joinType)
    // Only joins that output pairs project them: an existence join's flag is in neither input.
    val pairs =
      if (!emit.pairs) null
      else new PairProjection(output, leftColumns, rightColumns)
    val indexRowIsOutput = indexWritten.isDefined
    def project(s: InternalRow, i: InternalRow) = if (pointIsLeft) pairs(s, i) else pairs(i, s)
    val padding = new GenericInternalRow(indexedPlan.output.size)
    val flag = new GenericInternalRow(1)
    lazy val streamedOnly = UnsafeProjection.create(output, streamedPlan.output :+ flagAttribute)
    val outputs = new IntervalOutput {
      def pair(s: InternalRow, i: InternalRow): InternalRow =
        counted(if (indexRowIsOutput) i else project(s, i))
      def matched(s: InternalRow): InternalRow = flagged(s, exists = true)
      def unmatched(s: InternalRow): InternalRow =
        if (emit.pairs) counted(project(s, padding))
        else flagged(s, exists = false)
      private def flagged(s: InternalRow, exists: Boolean): InternalRow = {
        flag.setBoolean(0, exists)
        counted(streamedOnly(joined(s, flag)))
      }
      private def counted(row: InternalRow): InternalRow = {
        numOutputRows += 1
        row
      }
    }
    new IntervalProbe(
      index,
      BindReferences.bindReferences(streamedKeys, streamedPlan.output),
      new AsOfValue(BindReferences.bindReference(interval.point, streamedPlan.output)),
      streamedPlan.output.map(_.dataType),
      readsStreamedColumns,
      predicate.map(p => (s: InternalRow, i: InternalRow) => p.eval(ordered(s, i))),
      emit,
      outputs,
      metrics.walked,
      memory
    ).join(streamed)
  }

  /**
   * Whether the output or the residual reads a column of the streamed input: if not, the probe
   * need not keep the streamed rows once they have probed.
   */
  private[rangejoin] def readsStreamedColumns: Boolean = {
    val read = AttributeSet(output) ++ AttributeSet(residual.toSeq.flatMap(_.references))
    read.intersect(streamedPlan.outputSet).nonEmpty
  }

  /**
   * The output columns, bound to the indexed input's, when the index can hold them as its rows
   * ([[keyed.IntervalIndex#projected]]): the join outputs pairs, each of them only indexed
   * columns, and has no residual (which would read the indexed rows' other columns). A pair is
   * then its indexed row as it is.
   */
  private[rangejoin] def indexWritten: Option[Seq[Expression]] =
    if (residual.isEmpty && !readsStreamedColumns && streamEmit.pairs)
      Some(BindReferences.bindReferences(output, indexedPlan.output))
    else None

  /** The flag an existence join outputs, else a placeholder that its output does not read. */
  private def flagAttribute: Attribute = joinType match {
    case ExistenceJoin(exists) => exists
    case _ => joinOutput.last
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : KeyedIntervalJoinExec = copy(left = newLeft, right = newRight)
}

object KeyedIntervalJoinExec {

  /**
   * The largest interval input, by Spark's size estimate, whose broadcast join runs as generated
   * code. Generated code probes the points in arrival order; a larger index is probed interpreted,
   * in the order of its regions, which on indexes of a million versions measured
   * faster than generated code (the `scd2` cells of make bench-grid and the suite's `scd2`).
   */
  val GeneratedMaxBytes: Long = 4L << 20
}

package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{BinaryExecNode, ExplainUtils, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.LongType

import rangejoin.condition.PointInRange
import rangejoin.execution.blocks.RowKeys
import rangejoin.execution.broadcast.{
  BroadcastRangeIndex,
  PerCarrier,
  SortedBuildRows,
  SortedRowsBroadcastMode
}
import rangejoin.local._

/**
 * For each row of the `grouped` input, how many rows of the `counted` input it joins under a
 * point-in-range condition `lower op point op upper`, computed from sorted keys without forming a
 * single pair ([[rangejoin.local.MatchCounts]]). An aggregate that counts the pairs of an inner
 * join then sums these counts instead: the cost is a sort of the smaller input's keys and a
 * binary search or two per row, whatever the number of pairs.
 *
 * Output: the grouped input's columns and `matches`, the count, for rows whose count is above 0;
 * a row that matches nothing is left out, as the inner join leaves it out. When the counted
 * input is indexed each grouped row comes out once, with its whole count; when the grouped
 * input is indexed, each task of the counted input gives each grouped row its share of the count
 * (its partial count, if above 0), which the aggregate above adds up.
 *
 * One input is indexed: Spark's broadcast exchange collects it and the driver sorts its keys
 * ([[rangejoin.execution.broadcast.SortedRowsBroadcastMode]]); the other is streamed where it
 * is. An indexed counted input is prepared once per executor
 * ([[rangejoin.execution.broadcast.PerCarrier]]); an indexed grouped input, which is small, per
 * task, since each task counts into structures of its own. Rows with a NULL key are left out of
 * both, as no NULL satisfies an inequality.
 *
 * @param point the point, read from the grouped input when `pointGrouped`, else from the counted
 * @param lower the lower bound, if any, read from the other input
 * @param upper the upper bound, if any, read from the other input
 * @param indexGrouped whether the grouped input is the one indexed (else the counted input is)
 * @param matches the output column of counts
 */
case class CountMatchesExec(
    point: Expression,
    lower: Option[Expression],
    upper: Option[Expression],
    bounds: RangeBounds,
    pointGrouped: Boolean,
    indexGrouped: Boolean,
    matches: Attribute,
    grouped: SparkPlan,
    counted: SparkPlan
) extends BinaryExecNode
    with JoinMetrics {

  override def left: SparkPlan = grouped
  override def right: SparkPlan = counted

  private def boundKeys: Seq[Expression] = lower.toSeq ++ upper
  private def groupedKeys: Seq[Expression] = if (pointGrouped) Seq(point) else boundKeys
  private def countedKeys: Seq[Expression] = if (pointGrouped) boundKeys else Seq(point)

  private def indexed: SparkPlan = if (indexGrouped) grouped else counted
  private def streamed: SparkPlan = if (indexGrouped) counted else grouped
  private def indexedKeys: Seq[Expression] = if (indexGrouped) groupedKeys else countedKeys
  private def streamedKeys: Seq[Expression] = if (indexGrouped) countedKeys else groupedKeys

  override def output: Seq[Attribute] = grouped.output :+ matches
  override def producedAttributes: AttributeSet = AttributeSet(matches)

  override def outputPartitioning: Partitioning =
    if (indexGrouped) UnknownPartitioning(counted.outputPartitioning.numPartitions)
    else grouped.outputPartitioning

  override def requiredChildDistribution: Seq[Distribution] = {
    val broadcast = BroadcastDistribution(SortedRowsBroadcastMode.of(indexedKeys, indexed.output))
    if (indexGrouped) broadcast :: UnspecifiedDistribution :: Nil
    else UnspecifiedDistribution :: broadcast :: Nil
  }

  override protected def reportedMetrics: Seq[JoinMetric] = Seq(JoinMetric.NumOutputRows)

  private def condition: String = PointInRange.sql(point, lower, upper, bounds)

  /** Which input is indexed, as EXPLAIN names it: "grouped" or "counted". */
  def indexedName: String = if (indexGrouped) "grouped" else "counted"

  override def simpleString(maxFields: Int): String =
    s"$nodeName [$condition], rows of the right input counted per row of the left without " +
      s"forming pairs, index on the $indexedName input"

  override def verboseStringWithOperatorId(): String = {
    def field(name: String, value: Any) = ExplainUtils.generateFieldString(name, value.toString)
    s"""
       |$formattedNodeName
       |${field("Condition", condition)}
       |${field("Counts", "rows of the right input per row of the left, without pairs")}
       |${field("Index on", s"the $indexedName input (broadcast)")}
       |""".stripMargin
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val carrier = indexed.executeBroadcast[Array[InternalRow]]()
    val keys = streamedKeys.map(BindReferences.bindReference(_, streamed.output))
    val emit = CountedRows(output, metric(JoinMetric.NumOutputRows))
    val (pointGrouped, bounds, indexGrouped) = (this.pointGrouped, this.bounds, this.indexGrouped)
    streamed.execute().mapPartitions { rows =>
      val key = new StreamedKeys(keys)
      def index = SortedBuildRows.fromCarrier(carrier.value.head.asInstanceOf[UnsafeRow])
      // With one bound its codes stand for both; the absent one is ignored.
      def boundCodes(rows: SortedBuildRows) = (rows.x, rows.y.getOrElse(rows.x))
      if (!indexGrouped) {
        // The counted input is indexed, once per executor: each grouped row gets its whole
        // count here.
        val count: StreamedKeys => Long =
          if (pointGrouped) {
            val ranges = PerCarrier(carrier.value, ("ranges over points", bounds)) {
              val (lower, upper) = boundCodes(index)
              new RangesOverPoints(lower, upper, bounds)
            }
            k => ranges.count(k.first)
          } else {
            val points = PerCarrier(carrier.value, ("points in ranges", bounds)) {
              new PointsInRanges(index.x, bounds)
            }
            k => points.count(k.first, k.last)
          }
        var n = 0L
        // `filter` then `map` see each row in turn: `n` is the count of the row `map` gets.
        rows.filter(row => key.read(row) && { n = count(key); n > 0 }).map(emit(_, n))
      } else {
        // The grouped input is indexed: this task's share of each grouped row's count.
        val grouped = index
        val counts = if (pointGrouped) {
          val coverage = new PointCoverage(grouped.x, bounds)
          rows.foreach(row => if (key.read(row)) coverage.add(key.first, key.last))
          coverage.counts()
        } else {
          val (lower, upper) = boundCodes(grouped)
          val histogram = new RangeHistogram(lower, upper, bounds)
          rows.foreach(row => if (key.read(row)) histogram.add(key.first))
          histogram.counts()
        }
        val reused = new UnsafeRow(grouped.rows.numFields)
        counts.indices.iterator.filter(counts(_) > 0).map { i =>
          emit(grouped.rows.row(i, reused), counts(i))
        }
      }
    }
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : CountMatchesExec = copy(grouped = newLeft, counted = newRight)
}

/**
 * The codes of a streamed row's one or two keys (`first`, `last`; the same with one key), read
 * by [[read]] unless a key is NULL.
 *
 * @param keys the keys, bound to the streamed input's columns; each has a 64-bit code
 */
private final class StreamedKeys(keys: Seq[Expression]) {
  private val rowKeys = new RowKeys(keys)
  private val codes = keys.map(k => BroadcastRangeIndex.code(k.dataType)).toArray
  var first = 0L
  var last = 0L

  /** Reads the codes of `row`'s keys; false, reading nothing, if one is NULL. */
  def read(row: InternalRow): Boolean = {
    val k = rowKeys.of(row)
    if (rowKeys.anyNull(k)) false
    else {
      first = codes(0)(k, rowKeys.ordinals(0))
      last = codes(codes.length - 1)(k, rowKeys.ordinals(codes.length - 1))
      true
    }
  }
}

/**
 * A grouped row with its count as an output row, valid until the next call. Made per task: it
 * holds the rows it reuses.
 */
private final case class CountedRows(output: Seq[Attribute], numOutputRows: SQLMetric) {
  @transient private lazy val countRow = new SpecificInternalRow(Seq(LongType))
  @transient private lazy val joined = new JoinedRow
  @transient private lazy val project = UnsafeProjection.create(output, output)

  def apply(row: InternalRow, count: Long): InternalRow = {
    countRow.setLong(0, count)
    numOutputRows += 1
    project(joined(row, countRow))
  }
}

package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, IsNotNull, PredicateHelper}
import org.apache.spark.sql.execution.{
  ColumnarToRowExec,
  FilterExec,
  InputAdapter,
  SparkPlan,
  WholeStageCodegenExec
}
import org.apache.spark.sql.vectorized.ColumnarBatch

import rangejoin.execution.blocks.{BatchRows, FixedWidthRows}

/**
 * A columnar scan below a block join's input, whose batches the loader can read in place of the
 * input's rows: the input is the scan under Spark's conversion to rows (`ColumnarToRowExec`, in a
 * whole-stage codegen stage or not), with at most a filter of IS NOT NULL conditions on its
 * columns between them (the optimizer's filter on join keys), and every column has a fixed width
 * ([[rangejoin.execution.blocks.FixedWidthRows]]). The loader then writes rows from the batches'
 * columns, a batch at a time, instead of taking them one by one from the conversion.
 *
 * @param scan the columnar plan
 * @param notNull the columns the filter requires non-NULL
 * @param counts the metrics of the conversion and the filter, which reading the batches skips
 */
final case class ColumnBatchScan(scan: SparkPlan, notNull: Seq[Int], counts: BatchRows.Counts) {

  /** The scan's batches. */
  def batches: RDD[ColumnarBatch] = scan.executeColumnar()

  /** The input's rows of a partition, from its batches ([[BatchRows]]); for a task. */
  def rows: Iterator[ColumnarBatch] => Iterator[InternalRow] = {
    val (columns, metrics) = (notNull.toArray, counts) // the function holds these, not the plan
    batches => new BatchRows(batches, columns, metrics)
  }
}

object ColumnBatchScan extends PredicateHelper {

  /** The columnar scan below `input`, when `input` is one as described above. */
  def of(input: SparkPlan): Option[ColumnBatchScan] = input match {
    case stage: WholeStageCodegenExec => of(stage.child)
    case filter: FilterExec =>
      for {
        notNull <- notNullColumns(filter.condition, filter.child.output)
        below <- of(filter.child) if below.notNull.isEmpty
      } yield below.copy(
        notNull = notNull,
        counts = below.counts.copy(rowsFiltered = filter.metrics.get("numOutputRows"))
      )
    case toRows: ColumnarToRowExec =>
      val scan = toRows.child match {
        case adapter: InputAdapter => adapter.child
        case plan => plan
      }
      if (!scan.supportsColumnar || !scan.output.forall(a => FixedWidthRows.supports(a.dataType))) {
        None
      } else {
        val counts = BatchRows.Counts(
          batches = toRows.metrics.get("numInputBatches"),
          rowsConverted = toRows.metrics.get("numOutputRows"),
          rowsFiltered = None
        )
        Some(ColumnBatchScan(scan, Nil, counts))
      }
    case _ => None
  }

  /** The ordinals in `output` of the columns `condition` requires non-NULL, if that is all. */
  private def notNullColumns(condition: Expression, output: Seq[Attribute]): Option[Seq[Int]] = {
    val ordinals = splitConjunctivePredicates(condition).map {
      case IsNotNull(a: Attribute) => output.indexWhere(_.exprId == a.exprId)
      case _ => -1
    }
    if (ordinals.contains(-1)) None else Some(ordinals.distinct)
  }
}

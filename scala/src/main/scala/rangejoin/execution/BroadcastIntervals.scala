package rangejoin.execution

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.blocks.HeapBudget.Unaccounted
import rangejoin.execution.blocks.InjectedFailures
import rangejoin.execution.broadcast.PerCarrier
import rangejoin.execution.keyed.{IntervalBound, IntervalCursor, IntervalIndex}

/**
 * The broadcast interval input of a [[KeyedIntervalJoinExec]] and how an executor indexes it:
 * once, by the first task to ask, shared by its other tasks ([[PerCarrier]]). Everything here is
 * bound to the broadcast rows' columns, so two joins that read one broadcast (an exchange reused
 * under other column names, as a dimension joined twice is) are equal and share one index.
 * Serializable: the join's generated code holds it.
 *
 * @param keys the intervals' equality keys
 * @param lower the intervals' lower bound
 * @param upper the intervals' upper bound
 * @param written the columns the index keeps as its rows ([[keyed.IntervalIndex#projected]]),
 *   or `None` for the broadcast rows
 * @param builds counts the indexes built
 * @param rowsSorted counts the rows an index build put in order
 * @param walked counts the candidates the cursors walk
 */
final case class BroadcastIntervals(
    carrier: Broadcast[Array[InternalRow]],
    keys: Seq[Expression],
    lower: IntervalBound.Spec,
    upper: IntervalBound.Spec,
    written: Option[Seq[Expression]],
    builds: SQLMetric,
    rowsSorted: SQLMetric,
    walked: SQLMetric
) {

  /** This executor's index of the intervals. */
  def index(): IntervalIndex =
    PerCarrier.ofRows(carrier, ("intervals", keys, lower, upper, written), builds) { rows =>
      val index =
        IntervalIndex.build(
          rows,
          keys,
          lower.reader(isLower = true),
          upper.reader(isLower = false),
          Unaccounted
        )
      rowsSorted += index.sortedRows
      written.fold(index)(index.projected(_, Unaccounted))
    }

  /**
   * A task's cursor over this executor's index, for generated code; fails a first attempt
   * when a test injects failures.
   */
  def cursor(): IntervalCursor = {
    require(written.isEmpty, "Generated code reads the broadcast rows' columns.")
    InjectedFailures.failFirstAttempt()
    new IntervalCursor(index(), walked)
  }
}

package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.HeapBudget
import rangejoin.execution.runtime.StreamEmit

/**
 * The rows a keyed point-in-interval join outputs, given a streamed row and an indexed one. Each
 * returns a row that is valid until the next call.
 */
trait IntervalOutput {

  /** A streamed row and an indexed row that meet the condition. */
  def pair(streamed: InternalRow, indexed: InternalRow): InternalRow

  /** A streamed row with at least one match (semi join, existence join). */
  def matched(streamed: InternalRow): InternalRow

  /** A streamed row with none (outer join padding, anti join, existence join). */
  def unmatched(streamed: InternalRow): InternalRow
}

/**
 * Streams one input of a keyed point-in-interval join through an [[IntervalIndex]] of the other,
 * as [[Probes]] order them (in batches put in order of the index's regions when it outgrows the
 * cache): each row's key finds its group, a binary search the intervals that start at or before
 * its point, and a walk back over them ([[IntervalIndex]] says where it stops) the candidates,
 * each kept if it holds the point and `residual` holds. A row's matches come out in descending
 * order of lower bound.
 *
 * @param keys the streamed rows' equality keys, bound to their columns
 * @param point the streamed rows' point; a NULL point meets no interval
 * @param types the streamed rows' column types
 * @param carried whether `residual` or `output` read the streamed rows' columns: if not, they
 *   get a row whose columns must not be read, and the streamed rows are not copied for them
 * @param residual whether a streamed row and an indexed row that holds its point join, when
 *   the join's condition has more than the keys and the interval
 * @param walked counts the candidates walked
 */
final class IntervalProbe(
    index: IntervalIndex,
    keys: Seq[Expression],
    point: AsOfValue,
    types: Seq[DataType],
    carried: Boolean,
    residual: Option[(InternalRow, InternalRow) => Boolean],
    emit: StreamEmit,
    output: IntervalOutput,
    walked: SQLMetric,
    budget: HeapBudget
) {

  def join(streamed: Iterator[InternalRow]): Iterator[InternalRow] =
    new PendingIterator[InternalRow] {
      private val probes = Probes(
        index.byLower,
        new ProbeRegions(index.byLower, index.sizeInBytes),
        keys,
        point,
        types,
        budget,
        streamed,
        carried
      )
      private val cursor = new IntervalCursor(index, walked)
      private var row: InternalRow = _
      private var walking = false
      private var matched = false
      private val rest = residual.getOrElse((_: InternalRow, _: InternalRow) => true)

      /** Takes one step: a candidate, the end of a row, or the next row; false when done. */
      protected def step(): Boolean = {
        if (walking && cursor.next()) {
          if (rest(row, cursor.row)) {
            matched = true
            if (emit.pairs) pending = output.pair(row, cursor.row)
            else walking = false // one match decides a semi, anti or existence join
          }
          true
        } else if (row != null) {
          if (matched && emit.matched) pending = output.matched(row)
          else if (!matched && emit.unmatched) pending = output.unmatched(row)
          row = null
          walking = false
          true
        } else if (probes.advance()) {
          row = probes.row
          matched = false
          walking = probes.group >= 0
          if (walking) cursor.probe(probes.group, probes.code)
          true
        } else false
      }
    }
}

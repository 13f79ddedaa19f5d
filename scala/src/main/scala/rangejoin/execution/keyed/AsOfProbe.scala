package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.HeapBudget

/** An as-of join's output for a left row and its answer. */
trait AsOfOutput {

  /**
   * The output row for `left` and its answer's position in the index (-1: none), or null when
   * the join drops the row. A method of its own, not a function, so the position is not boxed.
   */
  def row(left: InternalRow, found: Int): InternalRow
}

/**
 * Streams an as-of join's left rows through an [[AsOfIndex]], as [[Probes]] order them (in
 * batches put in order of the index's regions when it outgrows the cache): each row's answer is
 * the nearest qualifying row of its key group ([[AsOfSearch]]).
 *
 * @param keys the left rows' equality keys, bound to their columns
 * @param asOf the left rows' as-of value
 * @param types the left rows' column types
 * @param output the output row for each left row
 */
final class AsOfProbe(
    index: AsOfIndex,
    search: AsOfSearch,
    keys: Seq[Expression],
    asOf: AsOfValue,
    types: Seq[DataType],
    budget: HeapBudget,
    output: AsOfOutput
) {

  def join(lefts: Iterator[InternalRow]): Iterator[InternalRow] = new PendingIterator[InternalRow] {
    private val regions = new ProbeRegions(index, index.sizeInBytes)
    private val probes = Probes(index, regions, keys, asOf, types, budget, lefts)

    /** Answers the next left row (`pending` stays null when the join drops it). */
    protected def step(): Boolean = probes.advance() && {
      val g = probes.group
      val row = probes.row
      pending = output.row(row, if (g < 0) -1 else search.nearest(row, probes.code, index, g))
      true
    }
  }
}

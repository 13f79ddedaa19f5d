package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._

/**
 * The output rows of a join that runs one input (the stream side) against the other (the build
 * side), created inside a task: pairs put back in left-right order, the residual checked on them,
 * and projections to the join's output columns.
 *
 * With `projected` false the output rows are views of the input rows instead of projections:
 * the join's output columns are the left input's then the right input's, or the stream side's
 * (semi, anti), with the flag after them (existence) ([[rangejoin.execution.JoinOutput]]), so a
 * pair, a NULL-padded row or the stream row itself is already an output row. A view is valid
 * until the next call; generated code that reads its columns right away takes views.
 *
 * @param pass which input streams, what the join outputs for its rows, and whether unmatched
 *             stream rows are NULL-padded even though it outputs no pairs
 * @param residual checked on each pair, bound to `columns.left ++ columns.right`
 * @param projected whether output rows are unsafe rows (true) or views
 */
final class StreamBuildRows(
    pass: JoinPass,
    residual: Option[Expression],
    columns: JoinColumns,
    projected: Boolean = true
) {
  import pass.{emit, padUnmatched, streamIsLeft}
  import columns.{left => leftOutput, output, right => rightOutput}

  private val joined = new JoinedRow
  private val streamWidth = if (streamIsLeft) leftOutput.length else rightOutput.length
  private val buildWidth = if (streamIsLeft) rightOutput.length else leftOutput.length
  private lazy val nullBuild = new GenericInternalRow(buildWidth)
  private lazy val nullStream = new GenericInternalRow(streamWidth)

  private val passes: InternalRow => Boolean = residual match {
    case Some(cond) => Predicate.create(cond, leftOutput ++ rightOutput).eval
    case None => _ => true
  }

  // Padded rows hold NULLs where the inputs' columns may be non-nullable: bind as nullable.
  private lazy val projectPair = {
    def bound(columns: Seq[Attribute]) =
      columns.map(a => if (padsRows) a.withNullability(true) else a)
    new PairProjection(output, bound(leftOutput), bound(rightOutput))
  }

  private def padsRows = emit.unmatched || padUnmatched

  /** Stream row `s` with build row `b`, as the join's input row (left columns first). */
  def pair(s: InternalRow, b: InternalRow): InternalRow =
    if (streamIsLeft) joined(s, b) else joined(b, s)

  /** Whether the residual holds for `s` with `b`. */
  def matches(s: InternalRow, b: InternalRow): Boolean = passes(pair(s, b))

  /** The output row of the pair `s`, `b`. */
  def pairOutput(s: InternalRow, b: InternalRow): InternalRow =
    if (!projected) pair(s, b)
    else if (streamIsLeft) projectPair(s, b)
    else projectPair(b, s)

  /** A build row no stream row matched, NULL-padded on the stream side (full outer joins). */
  def unmatchedBuildOutput(b: InternalRow): InternalRow = pairOutput(nullStream, b)

  /**
   * The output row of stream row `s` after all its pairs, when `emit` outputs rows that did
   * (`found`) or did not match: NULL-padded for outer joins, with the flag for existence joins,
   * as it is for semi and anti joins.
   */
  lazy val streamOutput: (InternalRow, Boolean) => InternalRow = emit match {
    case StreamEmit.Existence =>
      val withFlag = UnsafeProjection.create(output, output)
      val flagged = new JoinedRow
      val flag = new GenericInternalRow(1)
      (row, found) => {
        flag.setBoolean(0, found)
        if (projected) withFlag(flagged(row, flag)) else flagged(row, flag)
      }
    case _ if emit.pairs || padUnmatched => (row, _) => pairOutput(row, nullBuild)
    case _ if !projected => (row, _) => row
    case _ =>
      val copy = UnsafeProjection.create(output, if (streamIsLeft) leftOutput else rightOutput)
      (row, _) => copy(row)
  }

  /** Whether a stream row that did (`found`) or did not match is output after its pairs. */
  def outputsStreamRow(found: Boolean): Boolean =
    (found && emit.matched) || (!found && emit.unmatched)
}

package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * What one task does with a stream block and its build blocks: run a [[PairScanner]] per block
 * pair, check the residual condition on each pair, and output according to `emit`.
 *
 * Invariants:
 *  - `matched` has a bit per row of the stream block, set once a pair of that row passed the
 *    residual in any build block; unmatched output waits until all build blocks are done, so a
 *    preserved row comes out once, NULL-padded only when no pair matched it;
 *  - rows with a NULL key never match: they are unmatched output (outer, anti) or `false`
 *    (existence);
 *  - semi, anti and existence joins skip a stream row's remaining pairs once it matched.
 *
 * @param local the local join algorithm, already oriented stream-versus-build
 * @param streamIsLeft whether the stream side is the join's left input (else its right)
 * @param residual checked on each pair, bound to `leftOutput ++ rightOutput`
 * @param output the join's output columns ([[JoinOutput]]); for `Unmatched` with
 *               `padUnmatched`, the rows are NULL-padded on the build side
 */
final class BlockJoinRuntime(
    local: LocalJoin,
    emit: StreamEmit,
    streamIsLeft: Boolean,
    padUnmatched: Boolean,
    residual: Option[Expression],
    leftOutput: Seq[Attribute],
    rightOutput: Seq[Attribute],
    output: Seq[Attribute],
    numOutputRows: SQLMetric,
    localJoinTime: SQLMetric
) extends Serializable {

  private def buildOutput = if (streamIsLeft) rightOutput else leftOutput
  private def streamOutput = if (streamIsLeft) leftOutput else rightOutput

  /** The output rows for `stream` joined with each of `builds`. */
  def join(stream: Block, builds: Iterator[Block]): Iterator[InternalRow] = {
    val joined = new JoinedRow
    def pair(s: InternalRow, b: InternalRow): JoinedRow =
      if (streamIsLeft) joined(s, b) else joined(b, s)
    val passes: InternalRow => Boolean = residual match {
      case Some(cond) => Predicate.create(cond, leftOutput ++ rightOutput).eval
      case None => _ => true
    }
    val matched = new java.util.BitSet(stream.size)
    val streamRow = new UnsafeRow(stream.rows.numFields)
    // Padded rows hold NULLs where the inputs' columns may be non-nullable: bind as nullable.
    lazy val projectPair = UnsafeProjection.create(
      output,
      (leftOutput ++ rightOutput).map { a =>
        if (emit.unmatched || padUnmatched) a.withNullability(true) else a
      }
    )
    val nullBuild = new GenericInternalRow(buildOutput.length)

    val fromPairs = builds.flatMap { build =>
      if (stream.size == 0 || build.size == 0) Iterator.empty
      else {
        val scanner = timed(local.scanner(stream, build))
        val buildRow = new UnsafeRow(build.rows.numFields)
        new Iterator[InternalRow] {
          private var ready = false
          def hasNext: Boolean = {
            while (!ready && timed(scanner.advance())) {
              val s = scanner.leftIndex
              if (!emit.pairs && matched.get(s)) scanner.skipLeftRow() // matched in a prior block
              else {
                pair(stream.rows.row(s, streamRow), build.rows.row(scanner.rightIndex, buildRow))
                if (passes(joined)) {
                  matched.set(s)
                  if (emit.pairs) ready = true else scanner.skipLeftRow()
                }
              }
            }
            ready
          }
          def next(): InternalRow = {
            if (!hasNext) throw new NoSuchElementException
            ready = false
            numOutputRows += 1
            projectPair(joined)
          }
        }
      }
    }
    fromPairs ++ streamRowsOutput(stream, matched, row => projectPair(pair(row, nullBuild)))
  }

  /**
   * After all pairs: the stream rows that `emit` outputs by whether they matched.
   *
   * @param padded a stream row joined with NULLs on the build side, as an output row
   */
  private def streamRowsOutput(
      stream: Block,
      matched: java.util.BitSet,
      padded: InternalRow => InternalRow
  ): Iterator[InternalRow] = {
    if (!emit.matched && !emit.unmatched) return Iterator.empty
    val project: (InternalRow, Boolean) => InternalRow = emit match {
      case StreamEmit.Existence =>
        val withFlag = UnsafeProjection.create(output, output)
        val flagged = new JoinedRow
        val flag = new GenericInternalRow(1)
        (row, found) => { flag.setBoolean(0, found); withFlag(flagged(row, flag)) }
      case _ if emit.pairs || padUnmatched => (row, _) => padded(row)
      case _ =>
        val copy = UnsafeProjection.create(output, streamOutput)
        (row, _) => copy(row)
    }
    val row = new UnsafeRow(stream.rows.numFields)
    def emitted(rows: PackedRows, isMatched: Int => Boolean): Iterator[InternalRow] =
      Iterator.range(0, rows.size).flatMap { i =>
        val found = isMatched(i)
        if ((found && emit.matched) || (!found && emit.unmatched)) {
          numOutputRows += 1
          Iterator.single(project(rows.row(i, row), found))
        } else Iterator.empty
      }
    emitted(stream.rows, matched.get) ++ emitted(stream.nullKeyRows, _ => false)
  }

  private def timed[T](body: => T): T = {
    val start = System.nanoTime()
    try body
    finally localJoinTime += System.nanoTime() - start
  }
}

package rangejoin.execution.keyed

import scala.collection.BufferedIterator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.rangejoin.SpillThresholds

import rangejoin.execution.runtime.{JoinColumns, JoinPass, StreamBuildRows}

/**
 * The sliding-window join of one partition, whose inputs are sorted by equality keys, then by
 * the window column. Within each key group the stream rows are read in order, and for each:
 *  1. build rows of the group enter the window, in order, while `enters` holds for them: they
 *     are at or below the stream row's upper bound;
 *  1. rows leave the window's front while `stays` fails for them: they are below the stream
 *     row's lower bound, and so below every later stream row's lower bound too;
 *  1. every row still in the window satisfies both bounds (see [[rangejoin.condition.SlidingWindow]]
 *     for why); the residual is checked on each of them.
 *
 * `enters` and `stays` are the join's own comparisons, evaluated on the pair as Spark would, so
 * `<` versus `<=`, NaN and -0.0 behave exactly as in Spark. NULLs: a stream row whose window
 * column is NULL matches nothing and does not move the window; a build row whose window column
 * is NULL sorts first, enters, and leaves at the next stream row (a comparison with NULL fails).
 *
 * Output order: the stream side's order. Each stream row's pairs come out before the next stream
 * row is read, followed by the row itself when `emit` outputs it (padded, flagged or as is). With
 * `keepUnmatchedBuild` (full outer joins), each build row that leaves unmatched comes out
 * NULL-padded when it leaves, and the group's remaining build rows at the group's end.
 *
 * @param pass the stream input and what is output for its rows; never `padUnmatched`
 * @param keepUnmatchedBuild output build rows that matched nothing (full outer joins)
 * @param bounds the window's bounds and columns
 * @param residual checked on each pair in the window, bound to `columns.left ++ columns.right`
 * @param thresholds spill thresholds of the window's rows ([[SlidingWindowBuffer]])
 * @param numOutputRows counts the output rows; `spillSize` the window's spilled bytes
 */
final class SlidingWindowScan(
    pass: JoinPass,
    keepUnmatchedBuild: Boolean,
    bounds: WindowBounds,
    residual: Option[Expression],
    columns: JoinColumns,
    thresholds: SpillThresholds,
    numOutputRows: SQLMetric,
    spillSize: SQLMetric
) extends Serializable {
  import bounds._
  import pass.{emit, streamIsLeft}

  def join(groups: Iterator[KeyGroup]): Iterator[InternalRow] = {
    val rows = new StreamBuildRows(pass, residual, columns)
    val inputs = columns.left ++ columns.right
    val entersFor = Predicate.create(enters, inputs)
    val staysFor = Predicate.create(stays, inputs)
    val streamNull = Predicate.create(IsNull(streamColumn), Nil)
    val buildNull = Predicate.create(IsNull(buildColumn), Nil)
    val toUnsafe = UnsafeProjection.create(
      columns.streamAndBuild(streamIsLeft)._2.map(_.dataType).toArray
    )
    val window = new SlidingWindowBuffer(thresholds, keepUnmatchedBuild)

    def unsafe(row: InternalRow): UnsafeRow = row match {
      case u: UnsafeRow => u
      case other => toUnsafe(other)
    }

    def counted(row: InternalRow): InternalRow = { numOutputRows += 1; row }

    def unmatchedBuild(left: Iterator[(UnsafeRow, Boolean)]): Iterator[InternalRow] =
      if (keepUnmatchedBuild) left.collect { case (b, false) =>
        counted(rows.unmatchedBuildOutput(b))
      }
      else { left.foreach(_ => ()); Iterator.empty }

    def streamRow(s: InternalRow, found: Boolean): Iterator[InternalRow] =
      if (rows.outputsStreamRow(found)) Iterator.single(counted(rows.streamOutput(s, found)))
      else Iterator.empty

    def probe(s: InternalRow, build: BufferedIterator[InternalRow]): Iterator[InternalRow] =
      if (streamNull.eval(s)) streamRow(s, found = false)
      else {
        while (
          build.hasNext && (buildNull.eval(build.head) || entersFor.eval(rows.pair(s, build.head)))
        ) window.add(unsafe(build.next()))
        val visit = window.pass(b => !staysFor.eval(rows.pair(s, b)))
        unmatchedBuild(visit.leaving) ++ inWindow(s, visit)
      }

    // Reads `remaining` to its end even once a semi, anti or existence join has its answer.
    def inWindow(s: InternalRow, visit: window.Pass): Iterator[InternalRow] =
      if (emit.pairs) {
        var found = false
        visit.remaining.collect {
          case b if rows.matches(s, b) =>
            found = true
            visit.markMatched()
            counted(rows.pairOutput(s, b))
        } ++ (if (found) Iterator.empty else streamRow(s, found = false))
      } else
        streamRow(s, visit.remaining.foldLeft(false)((found, b) => found || rows.matches(s, b)))

    def endOfGroup(build: Iterator[InternalRow]): Iterator[InternalRow] =
      if (keepUnmatchedBuild)
        unmatchedBuild(window.drain()) ++ build.map(b => counted(rows.unmatchedBuildOutput(b)))
      else { window.clear(); Iterator.empty }

    groups.flatMap { g =>
      g.stream.flatMap(s => probe(s, g.build)) ++ endOfGroup(g.build)
    } ++ { spillSize += window.spillSize; Iterator.empty }
  }
}

/**
 * The bounds of a sliding window, as seen from the stream side, and the columns they slide on.
 *
 * @param enters `enters(stream, build)`: a build row enters the window while this holds, bound
 *               to the join's `left ++ right` columns
 * @param stays `stays(stream, build)`: a build row leaves the window's front once this fails,
 *              likewise bound
 * @param streamColumn the window column on the stream side, bound to its input's columns;
 *                     `buildColumn` likewise
 */
final case class WindowBounds(
    enters: Expression,
    stays: Expression,
    streamColumn: Expression,
    buildColumn: Expression
)

package rangejoin.execution.broadcast

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection}
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.runtime.{JoinColumns, JoinPass, StreamBuildRows}

/**
 * One task's broadcast range join: each streamed row probes the [[BroadcastRangeIndex]] on the
 * leading inequalities, the residual is checked on every indexed row the probe yields, and the
 * output follows the pass's emit ([[rangejoin.execution.runtime.StreamEmit]]):
 *  - pairs (inner, outer): each matching pair as it is found, then, for an outer join, the
 *    streamed row NULL-padded if no pair matched;
 *  - semi, anti, existence: the streamed row once its answer is known; the probe stops at its
 *    first match.
 * A streamed row with a NULL key matches nothing. Output keeps the streamed rows' order.
 *
 * @param pass the streamed input and what is output for its rows (never `padUnmatched`)
 * @param streamKeys the streamed input's sides of the leading inequalities, bound to its output
 * @param residual the further inequalities and the rest of the condition, bound to
 *                 `columns.left ++ columns.right`
 */
final class BroadcastRangeProbe(
    pass: JoinPass,
    streamKeys: Seq[Expression],
    residual: Option[Expression],
    columns: JoinColumns,
    numOutputRows: SQLMetric
) extends Serializable {

  def join(streamed: Iterator[InternalRow], broadcast: BroadcastRangeIndex)
      : Iterator[InternalRow] = {
    val rows = new StreamBuildRows(pass, residual, columns)
    val project = UnsafeProjection.create(streamKeys)
    val codes = streamKeys.map(k => BroadcastRangeIndex.code(k.dataType))
    val cursor = broadcast.index.cursor()
    val emit = pass.emit

    /** Starts the probe of `s`; false when its key is NULL and it matches nothing. */
    def probe(s: InternalRow): Boolean = {
      val k = project(s)
      !k.anyNull && {
        cursor.probe(codes.head(k, 0), if (codes.size == 2) codes(1)(k, 1) else 0L)
        true
      }
    }

    /** The next indexed row that passes the residual with `s`, or null. */
    def nextMatch(s: InternalRow): InternalRow = {
      while (cursor.next()) {
        val built = broadcast.row(cursor.row)
        if (rows.matches(s, built)) return built
      }
      null
    }

    def counted(row: InternalRow): InternalRow = { numOutputRows += 1; row }

    def streamRow(s: InternalRow, found: Boolean): Iterator[InternalRow] =
      if (rows.outputsStreamRow(found)) Iterator.single(counted(rows.streamOutput(s, found)))
      else Iterator.empty

    streamed.flatMap { s =>
      val probed = probe(s)
      if (!emit.pairs) streamRow(s, found = probed && nextMatch(s) != null)
      else if (!probed) streamRow(s, found = false)
      else
        new Iterator[InternalRow] {
          private var found = false
          private var pending = nextMatch(s)
          private var padded = false // the unmatched row, when it is due
          def hasNext: Boolean =
            pending != null || (!found && !padded && rows.outputsStreamRow(false))
          def next(): InternalRow =
            if (pending != null) {
              found = true
              val out = counted(rows.pairOutput(s, pending))
              pending = nextMatch(s)
              out
            } else if (hasNext) { padded = true; counted(rows.streamOutput(s, false)) }
            else throw new NoSuchElementException
        }
    }
  }
}

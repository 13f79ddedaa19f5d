package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.blocks.{Block, PackedRows}

/**
 * What one task does with a stream block and its build blocks: run a
 * [[rangejoin.local.PairScanner]] per block pair, check the residual condition on each pair, and
 * output according to `emit`.
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
 * @param pass which input streams and what is output for its rows
 * @param residual checked on each pair, bound to `columns.left ++ columns.right`
 * @param columns the inputs' and the join's columns; for `Unmatched` with `padUnmatched`, the
 *                rows are NULL-padded on the build side
 * @param projected whether output rows are unsafe rows, or views valid until the next row is
 *                  read ([[StreamBuildRows]])
 */
final class BlockJoinRuntime(
    local: LocalJoin,
    pass: JoinPass,
    residual: Option[Expression],
    columns: JoinColumns,
    metrics: BlockJoinMetrics,
    projected: Boolean = true
) extends Serializable {
  import pass.emit

  // Made once per task (each task deserializes its own runtime), not once per stream block: a
  // key-grouped join calls `join` for every small group.
  @transient private lazy val rows =
    new StreamBuildRows(pass, residual, columns, projected)

  /** This task's execution memory: the local join's arrays and the stream block's bitmap. */
  @transient lazy val memory: JoinMemory = JoinMemory.forTask(metrics.peakMemory)

  /**
   * The output rows for `stream` joined with each of `builds`. Read each result to its end before
   * calling `join` again.
   */
  def join(stream: Block, builds: Iterator[Block]): Iterator[InternalRow] = {
    val bitmapBytes = stream.size / 8 + 8
    memory.reserve(bitmapBytes)
    val matched = new java.util.BitSet(stream.size)
    val streamRow = new UnsafeRow(stream.rows.numFields)

    val fromPairs = builds.flatMap { build =>
      if (stream.size == 0 || build.size == 0) Iterator.empty
      else {
        val working = local.workingBytes(stream.size + build.size)
        memory.reserve(working)
        val scanner = timed(local.scanner(stream, build))
        val buildRow = new UnsafeRow(build.rows.numFields)
        new Iterator[InternalRow] {
          // Pairs come from the scanner in timed batches: the clock is read twice a batch, not
          // twice a pair (30 ns a read here, as much as a pair's other work). Joins that skip a
          // matched stream row's remaining pairs take one pair at a time, so that the skip
          // reaches the scanner before its next pair.
          private val batch = if (emit.pairs) BlockJoinRuntime.PairBatch else 1
          private val lefts = new Array[Int](batch)
          private val rights = new Array[Int](batch)
          private var filled = 0
          private var at = 0
          private var ready = false
          private var done = false

          private def refill(): Boolean = {
            filled = timed {
              var n = 0
              while (n < batch && scanner.advance()) {
                lefts(n) = scanner.leftIndex
                rights(n) = scanner.rightIndex
                n += 1
              }
              n
            }
            at = 0
            filled > 0
          }

          def hasNext: Boolean = {
            while (!ready && !done) {
              if (at == filled && !refill()) { done = true; memory.release(working) }
              else {
                val s = lefts(at)
                val b = rights(at)
                at += 1
                if (!emit.pairs && matched.get(s)) scanner.skipLeftRow() // matched in a prior block
                else {
                  stream.rows.row(s, streamRow)
                  build.rows.row(b, buildRow)
                  if (rows.matches(streamRow, buildRow)) {
                    matched.set(s)
                    if (emit.pairs) ready = true else scanner.skipLeftRow()
                  }
                }
              }
            }
            ready
          }
          def next(): InternalRow = {
            if (!hasNext) throw new NoSuchElementException
            ready = false
            metrics.numOutputRows += 1
            rows.pairOutput(streamRow, buildRow)
          }
        }
      }
    }
    fromPairs ++ streamRowsOutput(stream, matched) ++ {
      memory.release(bitmapBytes)
      Iterator.empty
    }
  }

  /** After all pairs: the stream rows that `emit` outputs by whether they matched. */
  private def streamRowsOutput(
      stream: Block,
      matched: java.util.BitSet
  ): Iterator[InternalRow] = {
    if (!emit.matched && !emit.unmatched) return Iterator.empty
    val row = new UnsafeRow(stream.rows.numFields)
    def emitted(packed: PackedRows, isMatched: Int => Boolean): Iterator[InternalRow] =
      Iterator.range(0, packed.size).flatMap { i =>
        val found = isMatched(i)
        if (rows.outputsStreamRow(found)) {
          metrics.numOutputRows += 1
          Iterator.single(rows.streamOutput(packed.row(i, row), found))
        } else Iterator.empty
      }
    emitted(stream.rows, matched.get) ++ emitted(stream.nullKeyRows, _ => false)
  }

  private def timed[T](body: => T): T = {
    val start = System.nanoTime()
    try body
    finally metrics.localJoinTime += System.nanoTime() - start
  }
}

object BlockJoinRuntime {

  /** Pairs a join that outputs pairs takes from its scanner at a time. */
  private val PairBatch = 1024
}

/** The SQL metrics a [[BlockJoinRuntime]] adds to, in the tasks that run it. */
final case class BlockJoinMetrics(
    numOutputRows: SQLMetric,
    localJoinTime: SQLMetric,
    peakMemory: SQLMetric
)

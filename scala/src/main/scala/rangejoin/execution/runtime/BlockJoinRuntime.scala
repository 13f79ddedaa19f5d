package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.blocks.Block
import rangejoin.local.PairScanner

/**
 * What one task does with its stream blocks and each one's build blocks: run a
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

  // Pairs come from the scanner in timed batches: the clock is read twice a batch, not twice a
  // pair (a clock read costs about as much as the rest of a pair's work). Joins that skip a
  // matched stream row's remaining pairs take one pair at a time, so that the skip reaches the
  // scanner before its next pair. One batch per task: a key-grouped join calls `join` for every
  // small group.
  @transient private lazy val pairBatch = {
    val size = if (emit.pairs) BlockJoinRuntime.PairBatch else 1
    (new Array[Int](size), new Array[Int](size))
  }

  /** This task's execution memory: the local join's arrays and the stream block's bitmap. */
  @transient lazy val memory: JoinMemory = JoinMemory.forTask(metrics.peakMemory)

  /**
   * The output rows of each stream block joined with each of its build blocks, in order: the
   * pairs, then the stream rows `emit` outputs by whether they matched. Blocks are read from the
   * iterators only when the previous ones are done with. Read each result to its end before
   * calling `join` again: all results of a task share one batch of pairs.
   */
  def join(streams: Iterator[(Block, Iterator[Block])]): Iterator[InternalRow] =
    new OutputRows(streams)

  /**
   * The output of [[join]] as one iterator over all blocks, not one per block pair concatenated:
   * the generated code above calls `hasNext` and `next` once per output row, and each layer of
   * iterators between it and the scanner costs a call per row, which a dense band join, with
   * many output rows per stream row, pays on every pair.
   */
  private final class OutputRows(streams: Iterator[(Block, Iterator[Block])])
      extends Iterator[InternalRow] {
    private val output = rows // the lazy field read once, not per pair
    private val emitsPairs = emit.pairs
    private val checksResidual = residual.isDefined
    private val marksMatched = !emitsPairs || emit.unmatched
    private val emitsStreamRows = emit.matched || emit.unmatched
    private val (lefts, rights) = pairBatch
    // The stream block, its build blocks and which of its rows matched.
    private var stream: Block = _
    private var streamRow: UnsafeRow = _
    private var streamRowAt = -1 // the stream row `streamRow` points at, while pairs are read
    private var builds: Iterator[Block] = Iterator.empty
    private var matched: java.util.BitSet = _
    private var bitmapBytes = 0L
    // The build block being joined, its scanner (null when none) and the pairs it last gave.
    private var build: Block = _
    private var buildRow: UnsafeRow = _
    private var scanner: PairScanner = _
    private var working = 0L
    private var filled = 0
    private var at = 0
    // After the pairs: the next stream row to output by whether it matched (the block's rows,
    // then its NULL-key rows), until `streamRowsEnd`.
    private var streamRowsAt = 0
    private var streamRowsEnd = 0

    private var ready = false
    // The next output row; null when it is the pair `streamRow`, `buildRow`, projected by
    // `next()`: a projection reuses its row, which a caller may still read until then.
    private var current: InternalRow = _

    def hasNext: Boolean = ready || advance()

    def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException
      ready = false
      metrics.numOutputRows += 1
      if (current == null) output.pairOutput(streamRow, buildRow) else current
    }

    /** Moves to the next output row; false when there is none. */
    private def advance(): Boolean = {
      while (!ready) {
        if (at < filled) nextPair()
        else if (scanner != null) refill()
        else if (nextBuild()) ()
        else if (streamRowsAt < streamRowsEnd) nextStreamRow()
        else if (!nextStream()) return false
      }
      true
    }

    private def nextPair(): Unit = {
      val s = lefts(at)
      val b = rights(at)
      at += 1
      if (!emitsPairs && matched.get(s)) scanner.skipLeftRow() // matched in a prior block
      else {
        // A row's pairs mostly come one after another: point at it once for all of them.
        if (s != streamRowAt) {
          stream.rows.row(s, streamRow)
          streamRowAt = s
        }
        build.rows.row(b, buildRow)
        if (!checksResidual || output.matches(streamRow, buildRow)) {
          if (marksMatched) matched.set(s)
          if (emitsPairs) {
            current = null
            ready = true
          } else scanner.skipLeftRow()
        }
      }
    }

    private def refill(): Unit = {
      val start = System.nanoTime()
      filled = scanner.fill(lefts, rights)
      metrics.localJoinTime += System.nanoTime() - start
      at = 0
      if (filled == 0) {
        scanner = null
        memory.release(working)
      }
    }

    /** Starts the stream block's scanner with its next non-empty build block, if any. */
    private def nextBuild(): Boolean = {
      while (builds.hasNext && stream.size > 0) {
        build = builds.next()
        if (build.size > 0) {
          working = local.workingBytes(stream.size + build.size)
          memory.reserve(working)
          scanner = timed(local.scanner(stream, build))
          buildRow = new UnsafeRow(build.rows.numFields)
          return true
        }
      }
      false
    }

    /** The next stream row that `emit` outputs by whether it matched, if any. */
    private def nextStreamRow(): Unit = {
      val i = streamRowsAt
      streamRowsAt += 1
      val inBlock = i < stream.size
      val found = inBlock && matched.get(i)
      if (output.outputsStreamRow(found)) {
        val row =
          if (inBlock) stream.rows.row(i, streamRow)
          else stream.nullKeyRows.row(i - stream.size, streamRow)
        current = output.streamOutput(row, found)
        ready = true
      }
    }

    /** Frees the stream block's bitmap and moves to the next stream block, if any. */
    private def nextStream(): Boolean = {
      memory.release(bitmapBytes)
      bitmapBytes = 0
      if (!streams.hasNext) return false
      val (block, partners) = streams.next()
      stream = block
      builds = partners
      bitmapBytes = stream.size / 8 + 8
      memory.reserve(bitmapBytes)
      matched = new java.util.BitSet(stream.size)
      if (streamRow == null) streamRow = new UnsafeRow(stream.rows.numFields)
      streamRowAt = -1
      streamRowsAt = 0
      streamRowsEnd = if (emitsStreamRows) stream.size + stream.nullKeyRows.size else 0
      true
    }
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

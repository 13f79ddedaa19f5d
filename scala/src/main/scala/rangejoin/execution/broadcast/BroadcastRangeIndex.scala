package rangejoin.execution.broadcast

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{InjectedFailures, KeyCode, KeyEncoder, LongKeyEncoder}
import rangejoin.local.{InequalityOp, SortedRangeIndex}

/**
 * The broadcast input of a broadcast range join as one task probes it: the rows that can match,
 * sorted on the first leading key ([[SortedBuildRows]], made once on the driver), and a
 * [[SortedRangeIndex]] over them on the leading one or two inequalities. The index's row numbers
 * are positions in the sorted rows; since the rows come sorted, building the index sorts nothing.
 *
 * Both are immutable and shared by every task of the JVM that probes the same broadcast
 * ([[BuiltIndexes]]); what belongs to one task is the row object `row` points at.
 */
final class BroadcastRangeIndex private[broadcast] (
    build: SortedBuildRows,
    val index: SortedRangeIndex
) {
  private val reused = new UnsafeRow(build.rows.numFields)

  /**
   * Row `i` of the index, through one row object that the next call points elsewhere: read it
   * (or copy it) before asking for another.
   */
  def row(i: Int): InternalRow = build.rows.row(i, reused)
}

/**
 * What a task needs to probe its [[BroadcastRangeIndex]]: the broadcast carrier
 * ([[SortedRowsBroadcastMode]]), the leading inequalities' ops, and the metric that counts the
 * indexes built. It travels with the task, in the interpreted probe's closure or among the
 * generated code's references ([[BroadcastRangeCodegen]]).
 */
final case class BroadcastRangeIndexSource(
    carrier: Broadcast[Array[InternalRow]],
    ops: Seq[InequalityOp],
    indexBuilds: SQLMetric
) {

  /** The index over the broadcast rows: built by the JVM's first task to ask, then shared. */
  def build(): BroadcastRangeIndex = {
    InjectedFailures.failFirstAttempt()
    val (rows, index) = BuiltIndexes.of(carrier.value, ops, indexBuilds)
    new BroadcastRangeIndex(rows, index)
  }
}

/**
 * The index this JVM built from a broadcast carrier for the leading ops, one per carrier and ops
 * ([[PerCarrier]]).
 */
private object BuiltIndexes {
  def of(carrier: Array[InternalRow], ops: Seq[InequalityOp], builds: SQLMetric)
      : (SortedBuildRows, SortedRangeIndex) =
    PerCarrier(carrier, ops) {
      val rows = SortedBuildRows.fromCarrier(carrier.head.asInstanceOf[UnsafeRow])
      builds += 1
      (rows, new SortedRangeIndex(rows.x, rows.y, ops.head, ops.lift(1)))
    }
}

object BroadcastRangeIndex {

  /** Whether a key of this type can be indexed: it has a fixed-width order-preserving code. */
  def indexable(key: Expression): Boolean =
    KeyEncoder.forType(key.dataType).isInstanceOf[LongKeyEncoder]

  /** The order-preserving code of a non-NULL key of type `dataType` at an ordinal of a row. */
  def code(dataType: DataType): KeyCode =
    KeyEncoder.forType(dataType) match {
      case LongKeyEncoder(code) => code
      case other => throw new IllegalArgumentException(s"$dataType has no fixed-width code: $other")
    }
}

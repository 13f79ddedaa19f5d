package rangejoin.execution.broadcast

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{KeyCode, KeyEncoder, LongKeyEncoder}
import rangejoin.local.{InequalityOp, SortedRangeIndex}

/**
 * The broadcast input of a broadcast range join as one task probes it: the rows that can match,
 * sorted on the first leading key ([[SortedBuildRows]], made once on the driver), and a
 * [[SortedRangeIndex]] over them on the leading one or two inequalities. The index's row numbers
 * are positions in the sorted rows; since the rows come sorted, building the index sorts nothing.
 *
 * @param build the broadcast rows as the driver sorted and packed them
 * @param ops the leading inequalities' ops, as seen from the streamed input:
 *            `streamed key op broadcast key`
 */
final class BroadcastRangeIndex(build: SortedBuildRows, ops: Seq[InequalityOp]) {
  require(ops.size == 1 + build.y.size, "one op per indexed key")

  private val reused = new UnsafeRow(build.rows.numFields)

  val index: SortedRangeIndex = new SortedRangeIndex(build.x, build.y, ops.head, ops.lift(1))

  /**
   * Row `i` of the index, through one row object that the next call points elsewhere: read it
   * (or copy it) before asking for another.
   */
  def row(i: Int): InternalRow = build.rows.row(i, reused)
}

/**
 * What a task needs to build its [[BroadcastRangeIndex]]: the broadcast carrier
 * ([[SortedRowsBroadcastMode]]) and the leading inequalities' ops. It travels with the task, in
 * the interpreted probe's closure or among the generated code's references
 * ([[BroadcastRangeCodegen]]).
 */
final case class BroadcastRangeIndexSource(
    carrier: Broadcast[Array[InternalRow]],
    ops: Seq[InequalityOp]
) {
  def build(): BroadcastRangeIndex = new BroadcastRangeIndex(
    SortedBuildRows.fromCarrier(carrier.value.head.asInstanceOf[UnsafeRow]),
    ops
  )
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

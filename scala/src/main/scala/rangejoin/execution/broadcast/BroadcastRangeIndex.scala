package rangejoin.execution.broadcast

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection}
import org.apache.spark.sql.types.DataType

import rangejoin.execution.blocks.{KeyCode, KeyEncoder, LongKeyEncoder}
import rangejoin.local.{InequalityOp, SortedRangeIndex}

/**
 * The broadcast input of a broadcast range join as one task probes it: its rows that can match,
 * and a [[SortedRangeIndex]] over them on the leading one or two inequalities. Rows with a NULL
 * key are left out: a NULL never satisfies an inequality, and the broadcast input's rows are
 * never output unmatched (its join types preserve the other input).
 *
 * Spark broadcasts the rows as they are (its broadcast exchange only ships rows or hashed
 * relations); each task builds this index from them, a projection and a radix sort of the
 * broadcast rows, which are few.
 *
 * @param rows the broadcast input's rows
 * @param keys the broadcast input's sides of the leading inequalities (one or two), bound to its
 *             columns; each of a type [[BroadcastRangeIndex.indexable]] accepts
 * @param ops the leading inequalities' ops, as seen from the streamed input:
 *            `streamed key op broadcast key`
 */
final class BroadcastRangeIndex(
    rows: Array[InternalRow],
    keys: Seq[Expression],
    ops: Seq[InequalityOp]
) {
  require(keys.size == ops.size && (keys.size == 1 || keys.size == 2), "one or two keys")

  private val (kept, codes) = {
    val project = UnsafeProjection.create(keys)
    val code = keys.map(k => BroadcastRangeIndex.code(k.dataType))
    val rowsKept = Array.newBuilder[InternalRow]
    val columns = keys.map(_ => Array.newBuilder[Long])
    rows.foreach { row =>
      val k = project(row)
      if (!k.anyNull) {
        rowsKept += row
        columns.indices.foreach(i => columns(i) += code(i)(k, i))
      }
    }
    (rowsKept.result(), columns.map(_.result()))
  }

  /** The rows that can match; the index's row numbers refer to them. */
  val matchable: Array[InternalRow] = kept

  val index: SortedRangeIndex =
    new SortedRangeIndex(codes.head, codes.lift(1), ops.head, ops.lift(1))
}

/**
 * What a task needs to build its [[BroadcastRangeIndex]]: the broadcast rows and the leading
 * keys bound to them, with their ops. It travels with the task, in the interpreted probe's
 * closure or among the generated code's references ([[BroadcastRangeCodegen]]).
 */
final case class BroadcastRangeIndexSource(
    rows: Broadcast[Array[InternalRow]],
    keys: Seq[Expression],
    ops: Seq[InequalityOp]
) {
  def build(): BroadcastRangeIndex = new BroadcastRangeIndex(rows.value, keys, ops)
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

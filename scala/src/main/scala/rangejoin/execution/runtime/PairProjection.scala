package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute,
  AttributeSet,
  JoinedRow,
  UnsafeProjection,
  UnsafeRow
}

/**
 * The projection of a join's pairs, a left row and a right row, to the join's output columns.
 * Where the output reads the columns of one input only (an aggregate above the join that reads
 * one side's columns, or none), the projection reads that input's row alone; otherwise it reads
 * the two rows joined, left columns first. The result is valid until the next call.
 *
 * @param output the join's output columns, each a column of `left` or of `right`
 * @param left the left input's columns, as the left rows hold them
 * @param right the right input's columns, as the right rows hold them
 */
final class PairProjection(output: Seq[Attribute], left: Seq[Attribute], right: Seq[Attribute]) {
  import PairProjection._

  private val reads: Int = {
    def within(columns: Seq[Attribute]) = AttributeSet(output).subsetOf(AttributeSet(columns))
    if (within(left)) LeftOnly else if (within(right)) RightOnly else Both
  }

  private val project = UnsafeProjection.create(
    output,
    reads match {
      case LeftOnly => left
      case RightOnly => right
      case _ => left ++ right
    }
  )
  private val joined = new JoinedRow

  def apply(l: InternalRow, r: InternalRow): UnsafeRow = reads match {
    case LeftOnly => project(l)
    case RightOnly => project(r)
    case _ => project(joined(l, r))
  }
}

private object PairProjection {
  private final val LeftOnly = 0
  private final val RightOnly = 1
  private final val Both = 2
}

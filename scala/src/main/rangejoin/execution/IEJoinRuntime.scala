package rangejoin.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.planning.InequalityOp

/**
 * What one [[IEJoinExec]] task does: for each of its right blocks, run an [[IEJoinScanner]]
 * against its left block on keys 0 and 1 of the blocks, and stream out the pairs that also pass
 * the residual condition.
 *
 * @param residual checked on each emitted pair, bound to `leftOutput ++ rightOutput`
 */
final class IEJoinRuntime(
    op1: InequalityOp,
    op2: InequalityOp,
    residual: Option[Expression],
    leftOutput: Seq[Attribute],
    rightOutput: Seq[Attribute],
    numOutputRows: SQLMetric,
    localJoinTime: SQLMetric
) extends Serializable {

  /** The joined rows of `left` with each of `rights` that pass the residual condition. */
  def join(left: Block, rights: Iterator[Block]): Iterator[InternalRow] = {
    if (left.size == 0) return Iterator.empty
    val joined = new JoinedRow
    val leftRow = new UnsafeRow(left.rows.numFields)
    val passes: InternalRow => Boolean = residual match {
      case Some(cond) => Predicate.create(cond, leftOutput ++ rightOutput).eval
      case None => _ => true
    }
    val project = UnsafeProjection.create(leftOutput ++ rightOutput, leftOutput ++ rightOutput)
    rights.flatMap { right =>
      if (right.size == 0) Iterator.empty
      else {
        val rightRow = new UnsafeRow(right.rows.numFields)
        val scanner = timed(newScanner(left, right))
        new Iterator[InternalRow] {
          private var ready = false
          def hasNext: Boolean = {
            while (!ready && timed(scanner.advance())) {
              joined(
                left.rows.row(scanner.leftIndex, leftRow),
                right.rows.row(scanner.rightIndex, rightRow)
              )
              ready = passes(joined)
            }
            ready
          }
          def next(): InternalRow = {
            if (!hasNext) throw new NoSuchElementException
            ready = false
            numOutputRows += 1
            project(joined)
          }
        }
      }
    }
  }

  private def newScanner(left: Block, right: Block): IEJoinScanner = {
    val (lx, rx) = KeyColumn.jointCodes(left.keys(0), right.keys(0))
    val (ly, ry) = KeyColumn.jointCodes(left.keys(1), right.keys(1))
    new IEJoinScanner(lx, ly, rx, ry, op1, op2)
  }

  private def timed[T](body: => T): T = {
    val start = System.nanoTime()
    try body
    finally localJoinTime += System.nanoTime() - start
  }
}

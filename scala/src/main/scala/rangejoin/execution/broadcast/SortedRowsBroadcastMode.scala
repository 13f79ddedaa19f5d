package rangejoin.execution.broadcast

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode

/**
 * How Spark's broadcast exchange builds a broadcast range join's relation from the collected
 * build rows (unsafe rows, as the exchange collects them): sorted and packed once, on the
 * driver, into one carrier row ([[SortedBuildRows]]), so that neither the broadcast nor the tasks
 * handle the rows one object at a time.
 *
 * @param numFields the build input's column count
 * @param keys the build input's sides of the indexed inequalities (or, for a keyed interval
 *   join, a hash of its keys and its lower bound), bound to its columns
 * @param thenBySecond whether rows with equal first keys are sorted on the second
 */
final case class SortedRowsBroadcastMode(
    numFields: Int,
    keys: Seq[Expression],
    thenBySecond: Boolean = false
) extends BroadcastMode {

  override def transform(rows: Array[InternalRow]): Array[InternalRow] =
    transform(rows.iterator, Some(rows.length.toLong))

  override def transform(
      rows: Iterator[InternalRow],
      sizeHint: Option[Long]
  ): Array[InternalRow] = {
    val expectedRows = sizeHint.fold(0)(_.toInt)
    Array(SortedBuildRows.pack(rows, numFields, keys, expectedRows, thenBySecond).toCarrier)
  }

  override def canonicalized: BroadcastMode = copy(keys = keys.map(_.canonicalized))

  // As the broadcast exchange's EXPLAIN line shows it.
  override def toString: String =
    s"SortedRowsBroadcastMode(sorted on ${keys.mkString(if (thenBySecond) ", then " else ", ")})"
}

object SortedRowsBroadcastMode {

  /** The mode that sorts rows of `input` on `keys`, expressions over its attributes. */
  def of(keys: Seq[Expression], input: Seq[Attribute], thenBySecond: Boolean = false)
      : SortedRowsBroadcastMode =
    SortedRowsBroadcastMode(
      input.size,
      keys.map(BindReferences.bindReference(_, input)),
      thenBySecond
    )
}

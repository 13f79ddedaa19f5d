package rangejoin.execution.blocks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The rows of a columnar scan's batches, as the plan above the scan would give them: the rows
 * in which none of the `notNull` columns is NULL (a filter of IS NOT NULL conditions, which the
 * optimizer puts on join inputs), in order. Each row is a view of its batch, the batch's one
 * row object, valid until the next row is asked for or the batch's rows are read otherwise.
 * Batches may have no rows.
 *
 * A reader that takes a batch whole instead ([[InMemorySort]]) asks for [[wholeBatch]] before
 * each row: it is the next batch when no row of it has been read and the filter keeps all of
 * its rows; [[skipBatch]] then moves past it.
 *
 * @param counts the row and batch counts of the plan nodes this reading stands in for
 */
final class BatchRows(
    batches: Iterator[ColumnarBatch],
    notNull: Array[Int],
    counts: BatchRows.Counts
) extends Iterator[InternalRow] {
  private var batch: ColumnarBatch = _
  private var rows = 0 // of `batch`
  private var at = 0 // the next row of `batch` to look at
  private var found: InternalRow = _ // the next row, found by hasNext and not yet given

  def hasNext: Boolean = found != null || seek()

  def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = found
    found = null
    row
  }

  /**
   * The next batch, when no row of it has been read and the filter keeps every row; else null.
   * It stays the next batch until [[skipBatch]].
   */
  def wholeBatch: ColumnarBatch =
    if (found != null || (at == rows && !nextBatch())) null
    else if (at == 0 && notNull.forall(c => !batch.column(c).hasNull)) batch
    else null

  /** Moves past the batch [[wholeBatch]] gave, whose rows the reader took. */
  def skipBatch(): Unit = {
    counts.kept(rows - at)
    at = rows
  }

  /** Finds the next row the filter keeps; false when there is none. */
  private def seek(): Boolean = {
    while (at < rows || nextBatch()) {
      if (at < rows) { // a batch just read may have none
        val row = batch.getRow(at)
        at += 1
        if (kept(row)) {
          counts.kept(1)
          found = row
          return true
        }
      }
    }
    false
  }

  private def kept(row: InternalRow): Boolean = {
    var c = 0
    while (c < notNull.length) {
      if (row.isNullAt(notNull(c))) return false
      c += 1
    }
    true
  }

  private def nextBatch(): Boolean = batches.hasNext && {
    batch = batches.next()
    rows = batch.numRows
    at = 0
    counts.batch(rows)
    true
  }
}

object BatchRows {

  /**
   * Adds to the metrics of the plan nodes between the scan and the join, which a read of the
   * scan's batches skips: Spark's conversion to rows (`numInputBatches`, `numOutputRows`) and
   * the IS NOT NULL filter (`numOutputRows`), where there is one.
   */
  final case class Counts(
      batches: Option[SQLMetric],
      rowsConverted: Option[SQLMetric],
      rowsFiltered: Option[SQLMetric]
  ) {
    def batch(rows: Int): Unit = {
      batches.foreach(_ += 1)
      rowsConverted.foreach(_ += rows)
    }

    def kept(rows: Int): Unit = rowsFiltered.foreach(_ += rows)
  }
}

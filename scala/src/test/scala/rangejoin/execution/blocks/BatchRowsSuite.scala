package rangejoin.execution.blocks

import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import rangejoin.RangeJoinTestBase

/** BatchRows gives the rows of column batches that its filter keeps, whole batches or one by one. */
class BatchRowsSuite extends RangeJoinTestBase {

  /** A batch of two int columns: `values` in column 0, column 1 NULL where `values` is negative. */
  private def batch(values: Int*): ColumnarBatch = {
    val columns = Array.fill(2)(new OnHeapColumnVector(values.size.max(1), IntegerType))
    for ((v, i) <- values.zipWithIndex) {
      columns(0).putInt(i, v)
      if (v < 0) columns(1).putNull(i) else columns(1).putInt(i, v * 10)
    }
    new ColumnarBatch(columns.toArray[ColumnVector], values.size)
  }

  private def counts() = {
    def metric() = Some(SQLMetrics.createMetric(spark.sparkContext, "rows"))
    BatchRows.Counts(metric(), metric(), metric())
  }

  private val batches = Seq(batch(1, 2, 3), batch(), batch(4, -5, 6), batch(), batch(7), batch())

  test("rows one by one: empty batches give none, the filter drops rows, metrics count") {
    val c = counts()
    val rows = new BatchRows(batches.iterator, Array(1), c)
    assert(rows.map(_.getInt(0)).toList == List(1, 2, 3, 4, 6, 7))
    assert(c.batches.get.value == 6 && c.rowsConverted.get.value == 7)
    assert(c.rowsFiltered.get.value == 6)
  }

  test("whole batches where the filter keeps every row, rows one by one elsewhere") {
    val c = counts()
    val rows = new BatchRows(batches.iterator, Array(1), c)
    val taken = scala.collection.mutable.ArrayBuffer.empty[Int]
    var wholeBatches = 0
    var done = false
    while (!done) {
      val whole = rows.wholeBatch
      if (whole != null) {
        (0 until whole.numRows).foreach(i => taken += whole.getRow(i).getInt(0))
        rows.skipBatch()
        wholeBatches += 1
      } else if (rows.hasNext) taken += rows.next().getInt(0)
      else done = true
    }
    assert(taken.toList == List(1, 2, 3, 4, 6, 7))
    assert(wholeBatches == 5) // all but (4, -5, 6), whose NULL makes it go row by row
    assert(c.rowsFiltered.get.value == 6)
  }

  test("a batch read part way is not whole; without a filter every row is kept") {
    val rows = new BatchRows(batches.iterator, Array.emptyIntArray, counts())
    assert(rows.next().getInt(0) == 1)
    assert(rows.wholeBatch == null)
    assert(rows.map(_.getInt(0)).toList == List(2, 3, 4, -5, 6, 7))
  }
}

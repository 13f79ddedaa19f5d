package rangejoin.execution.blocks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * PackedRows.permuted puts rows of different sizes in any order, directly or through a chunked
 * copy, and accounts every array it makes in its budget: afterwards the budget holds the result
 * alone.
 */
class PackedRowsSuite extends AnyFunSuite {

  /** `n` rows `(i, a string of 0 to 40 characters)`, packed, and their bytes. */
  private def packed(n: Int, seed: Int): (PackedRows, Long) = {
    val rnd = new Random(seed)
    val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, StringType))
    val builder = new PackedRows.Builder(2, HeapBudget.Unaccounted)
    var bytes = 0L
    for (i <- 0 until n) {
      val row = toUnsafe(InternalRow(i, UTF8String.fromString("x" * rnd.nextInt(41))))
      bytes += row.getSizeInBytes
      builder += row
    }
    (builder.result(), bytes)
  }

  for ((n, path) <- Seq(500 -> "directly", 40000 -> "through a chunked copy")) {
    test(s"$n rows are permuted $path, and the budget then holds their copy alone") {
      val (rows, bytes) = packed(n, n)
      val order = new Random(n + 1).shuffle((0 until n).toVector).toArray
      val budget = new CountingBudget()
      val permuted = rows.permuted(order, budget)
      val reuse = new UnsafeRow(2)
      val original = new UnsafeRow(2)
      for (k <- 0 until n) {
        assert(permuted.row(k, reuse) == rows.row(order(k), original), s"row $k")
      }
      assert(budget.held == permuted.sizeInBytes)
      // Through the chunked copy, the peak holds that copy, the result, and the order mapped
      // onto the copy (an int a row).
      val copy = bytes + 4L * (n + 1)
      assert(budget.peak == (if (n > 10000) 2 * copy + 4L * n else copy))
    }
  }
}

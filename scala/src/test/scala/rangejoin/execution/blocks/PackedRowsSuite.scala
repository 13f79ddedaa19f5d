package rangejoin.execution.blocks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * PackedRows.permuted puts rows in any order: rows of different sizes directly or through a
 * chunked copy, rows of one size by a gather of its own. It accounts every array it makes in its
 * budget: afterwards the budget holds the result alone.
 */
class PackedRowsSuite extends AnyFunSuite {

  /** `n` rows `(i, a string of `length` characters)`, packed, and their bytes. */
  private def packed(n: Int, seed: Int, length: (Random, Int) => Int = (rnd, _) => rnd.nextInt(41))
      : (PackedRows, Long) = {
    val rnd = new Random(seed)
    val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, StringType))
    val builder = new PackedRows.Builder(2, HeapBudget.Unaccounted)
    var bytes = 0L
    for (i <- 0 until n) {
      val row = toUnsafe(InternalRow(i, UTF8String.fromString("x" * length(rnd, i))))
      bytes += row.getSizeInBytes
      builder += row
    }
    (builder.result(), bytes)
  }

  /** `rows` in a random order, checked row by row; the budget the copy was allocated from. */
  private def checkPermuted(rows: PackedRows): (PackedRows, CountingBudget) = {
    val n = rows.size
    val order = new Random(n + 1).shuffle((0 until n).toVector).toArray
    val budget = new CountingBudget()
    val permuted = rows.permuted(order, budget)
    val reuse = new UnsafeRow(2)
    val original = new UnsafeRow(2)
    assert(permuted.size == n)
    for (k <- 0 until n) {
      assert(permuted.row(k, reuse) == rows.row(order(k), original), s"row $k")
    }
    assert(budget.held == permuted.sizeInBytes)
    (permuted, budget)
  }

  for ((n, path) <- Seq(500 -> "directly", 40000 -> "through a chunked copy")) {
    test(s"$n rows are permuted $path, and the budget then holds their copy alone") {
      val (rows, bytes) = packed(n, n)
      val (_, budget) = checkPermuted(rows)
      // Through the chunked copy, the peak holds that copy, the result, and the order mapped
      // onto the copy (an int a row).
      val copy = bytes + 4L * (n + 1)
      assert(budget.peak == (if (n > 10000) 2 * copy + 4L * n else copy))
    }
  }

  test("rows of one size are gathered directly, the budget holding their copy alone") {
    for (n <- Seq(0, 1, 3, 40000)) {
      // Strings of 1 to 8 characters: every row 24 bytes.
      val (rows, bytes) = packed(n, n, (rnd, _) => 1 + rnd.nextInt(8))
      val (permuted, budget) = checkPermuted(rows)
      assert(permuted.data.length == bytes, s"$n rows")
      assert(budget.peak == bytes + 4L * (n + 1), s"$n rows")
    }
    // One row longer than the others takes the path of rows of different sizes.
    val (mixed, _) = packed(40000, 7, (_, i) => if (i == 39999) 9 else 8)
    val (_, budget) = checkPermuted(mixed)
    assert(budget.peak > 2 * mixed.sizeInBytes, "through the chunked copy")
  }
}

package rangejoin.execution.broadcast

import scala.util.Random

import org.apache.spark.SparkConf
import org.apache.spark.serializer.JavaSerializer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, DoubleType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.KeyEncoder
import rangejoin.local.RadixSort.KeyRange

/**
 * The broadcast form of a broadcast range join's build input: what the driver packs must reach a
 * task, through Java serialization as the broadcast does it, as the rows with non-NULL keys in
 * ascending order of the first key's code, ties in arrival order (or in order of the second key,
 * when sorted on both), each with its keys' codes.
 */
class SortedBuildRowsSuite extends AnyFunSuite {

  private val types: Seq[DataType] = Seq(IntegerType, DoubleType, StringType, LongType)
  private val toUnsafe = UnsafeProjection.create(types.toArray)

  /** Rows (id, x, payload, y) with NULLs, ties, NaN and -0.0 among the keys. */
  private def randomRows(seed: Int, n: Int): Seq[UnsafeRow] = {
    val random = new Random(seed)
    val xs = Seq[Any](null, -0.0, 0.0, Double.NaN, 1.5, -3.0, 7.25)
    (0 until n).map { id =>
      val x = if (random.nextInt(4) == 0) xs(random.nextInt(xs.size)) else random.nextInt(20) * 0.5
      val y = if (random.nextInt(10) == 0) null else random.nextLong() % 1000
      val payload = UTF8String.fromString("p" * random.nextInt(12))
      toUnsafe(InternalRow(id, x, payload, y)).copy()
    }
  }

  private def roundTrip(carrier: UnsafeRow): SortedBuildRows = {
    val serializer = new JavaSerializer(new SparkConf()).newInstance()
    val shipped = serializer.deserialize[Array[InternalRow]](serializer.serialize(Array(carrier)))
    SortedBuildRows.fromCarrier(shipped.head.asInstanceOf[UnsafeRow])
  }

  private def check(rows: Seq[UnsafeRow], keyOrdinals: Seq[Int], thenBySecond: Boolean = false)
      : Unit = {
    val keys = keyOrdinals.map(i => BoundReference(i, types(i), nullable = true))
    val mode = SortedRowsBroadcastMode(types.size, keys, thenBySecond)
    val built = roundTrip(mode.transform(rows.iterator, None).head.asInstanceOf[UnsafeRow])
    val codes = keys.map(k => BroadcastRangeIndex.code(k.dataType))
    val kept = rows.filter(r => keyOrdinals.forall(i => !r.isNullAt(i)))
    // Stable sorts: ties in arrival order.
    val expected =
      if (thenBySecond)
        kept.sortBy(r => (codes.head(r, keyOrdinals.head), codes(1)(r, keyOrdinals(1))))
      else kept.sortBy(r => codes.head(r, keyOrdinals.head))
    val reuse = new UnsafeRow(types.size)
    assert(built.rows.size == expected.size)
    expected.zipWithIndex.foreach { case (row, i) =>
      assert(built.rows.row(i, reuse) == row, s"row $i")
      assert(built.x(i) == codes.head(row, keyOrdinals.head))
      assert(built.y.map(_(i)) == keyOrdinals.lift(1).map(codes(1)(row, _)))
    }
  }

  test("one key: rows with a NULL key left out, the rest sorted by code, ties in arrival order") {
    (1 to 5).foreach(seed => check(randomRows(seed, 300), Seq(1)))
  }

  test(
    "two keys: the second key's codes follow the rows, a NULL in either key leaves the row out"
  ) {
    (1 to 5).foreach(seed => check(randomRows(seed, 300), Seq(1, 3)))
  }

  test("two keys, sorted on both: ties of the first key in order of the second, then of arrival") {
    (1 to 5).foreach(seed => check(randomRows(seed, 300), Seq(1, 3), thenBySecond = true))
    check(randomRows(8, 20000), Seq(1, 3), thenBySecond = true)
  }

  test("two keys, sorted on both: one sort of combined codes when their ranges fit, else two") {
    // (group, x, payload, y): many rows per group, y narrow or spanning every long, NULLs in both.
    def rows(seed: Int, wideY: Boolean): Seq[UnsafeRow] = {
      val random = new Random(seed)
      (0 until 20000).map { _ =>
        val group = if (random.nextInt(50) == 0) null else random.nextInt(40) - 20
        val y =
          if (random.nextInt(50) == 0) null
          else if (wideY) random.nextLong()
          else random.nextInt(3000).toLong - 1500
        toUnsafe(InternalRow(group, 0.0, UTF8String.fromString("p" * (group.## & 7)), y)).copy()
      }
    }
    def combines(rows: Seq[UnsafeRow]): Boolean = {
      val kept = rows.filter(r => !r.isNullAt(0) && !r.isNullAt(3))
      val codes = Seq(0, 3).map { i =>
        val code = BroadcastRangeIndex.code(types(i))
        kept.map(code(_, i)).toArray
      }
      SortedBuildRows.combinable(KeyRange.of(codes(0)), KeyRange.of(codes(1)))
    }
    (1 to 3).foreach { seed =>
      val narrow = rows(seed, wideY = false)
      val wide = rows(seed, wideY = true)
      assert(combines(narrow) && !combines(wide))
      check(narrow, Seq(0, 3), thenBySecond = true)
      check(wide, Seq(0, 3), thenBySecond = true)
    }
  }

  test("many rows: the sorted copy goes through a chunked copy and comes out the same") {
    check(randomRows(7, 20000), Seq(1, 3))
  }

  test("an empty input, and one whose every key is NULL, give no rows") {
    check(Nil, Seq(1, 3))
    check(
      randomRows(9, 50).map { r =>
        val c = r.copy(); c.setNullAt(3); c
      },
      Seq(1, 3)
    )
  }

  test("the codes are the key encoder's: NaN above every number, -0.0 equal to 0.0") {
    val rows = Seq[Any](Double.NaN, 0.0, -0.0, 2.0).zipWithIndex.map { case (x, id) =>
      toUnsafe(InternalRow(id, x, UTF8String.fromString(""), 1L)).copy()
    }
    val keys = Seq(BoundReference(1, DoubleType, nullable = true))
    val built = SortedBuildRows.fromCarrier(
      SortedRowsBroadcastMode(types.size, keys).transform(rows.toArray).head.asInstanceOf[UnsafeRow]
    )
    val reuse = new UnsafeRow(types.size)
    assert((0 until 4).map(built.rows.row(_, reuse).getInt(0)) == Seq(1, 2, 3, 0))
    assert(built.x(0) == built.x(1) && built.x(0) == KeyEncoder.doubleCode(0.0))
  }
}

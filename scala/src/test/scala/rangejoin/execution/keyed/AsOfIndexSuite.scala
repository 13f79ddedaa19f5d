package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.CountingBudget

/**
 * AsOfIndex.build groups rows by key, each group in ascending order of code (equal codes in the
 * order the rows arrived), whatever order they arrive in; rows that arrive grouped and in order
 * are indexed without the sort and the copy that puts them so.
 */
class AsOfIndexSuite extends AnyFunSuite {

  // Rows (id, k, v): grouped by `k`, coded by `v`.
  private val types: Seq[DataType] = Seq(LongType, LongType, LongType)
  private val keyOf = UnsafeProjection.create(Seq(BoundReference(1, LongType, nullable = true)))
  private val toUnsafe = UnsafeProjection.create(types.toArray)

  /** 40 keys, 0 to 120 rows each, values 0 to 99 (many ties), NULL keys and values. */
  private val rows: Seq[(Long, Any, Any)] = {
    val random = new Random(7)
    val keyed = for (k <- 0 until 40; _ <- 0 until random.nextInt(121))
      yield (k.toLong: Any, random.nextInt(100).toLong: Any)
    val withNulls = keyed ++ Seq((null, 1L), (3L, null), (null, null))
    random.shuffle(withNulls).zipWithIndex.map { case ((k, v), id) => (id.toLong, k, v) }
  }

  /** Each key's rows in the index, as (code, id) in the index's order; and the bytes it held. */
  private def indexed(arriving: Seq[(Long, Any, Any)]) = {
    val budget = new CountingBudget()
    val index = AsOfIndex.build(
      arriving.iterator.map { case (id, k, v) => toUnsafe(InternalRow(id, k, v)).copy() },
      keyOf,
      Seq(LongType),
      new AsOfValue(BoundReference(2, LongType, nullable = true)),
      types,
      budget
    )
    val row = new UnsafeRow(types.size)
    val byKey = (0L until 40L).map { k =>
      val g = index.group(keyOf(InternalRow(0L, k, 0L)))
      k -> (if (g < 0) Nil
            else (index.start(g) until index.end(g)).map(i =>
              (index.codes(i), index.rows.row(i, row).getLong(0))
            ))
    }
    (byKey.toMap, budget.peak)
  }

  /** What the index must hold: per key, its rows with a value, by value then arrival. */
  private def expected(arriving: Seq[(Long, Any, Any)]) =
    (0L until 40L).map { k =>
      k -> arriving.collect { case (id, `k`, v: Long) => (v, id) }.sortBy(_._1)
    }.toMap

  test("rows in any order are grouped by key, each group by code, ties in order of arrival") {
    val (byKey, _) = indexed(rows)
    assert(byKey == expected(rows))
  }

  test("rows that arrive grouped and in order are kept as they are, without another copy") {
    val ordered = rows.sortBy { case (id, k, v) =>
      (Option(k).map(_.asInstanceOf[Long]), Option(v).map(_.asInstanceOf[Long]), id)
    }
    val (byKey, peak) = indexed(ordered)
    assert(byKey == expected(ordered))
    val (_, shuffledPeak) = indexed(rows)
    assert(peak < shuffledPeak, s"$peak bytes in order against $shuffledPeak shuffled")
    // One row of a key after another key's rows: every row is sorted, as from any order.
    val split = ordered.indexWhere(_._2 == 5L)
    val outOfPlace = ordered.patch(split, Nil, 1) :+ ordered(split)
    val (byKeyOutOfPlace, outOfPlacePeak) = indexed(outOfPlace)
    assert(byKeyOutOfPlace == expected(outOfPlace))
    assert(outOfPlacePeak == shuffledPeak)
    // A group's codes out of order: the same.
    val descending = ordered.patch(split, Seq(ordered(split + 1), ordered(split)), 2)
    assert(descending(split)._3.asInstanceOf[Long] > descending(split + 1)._3.asInstanceOf[Long])
    val (byKeyDescending, descendingPeak) = indexed(descending)
    assert(byKeyDescending == expected(descending))
    assert(descendingPeak == shuffledPeak)
  }
}

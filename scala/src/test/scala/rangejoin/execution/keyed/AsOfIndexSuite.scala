package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.{CountingBudget, HeapBudget, PackedRows}

/**
 * AsOfIndex.build groups rows by key, each group in ascending order of code (equal codes in the
 * order the rows arrived), whatever order they arrive in, streamed or packed; rows that arrive
 * grouped and in order are indexed without the sort and the copy that puts them so, and packed
 * rows of which none is left out are not copied at all.
 */
class AsOfIndexSuite extends AnyFunSuite {

  // Rows (id, k, v): grouped by `k`, coded by `v`.
  private val types: Seq[DataType] = Seq(LongType, LongType, LongType)
  private val keyColumns = Seq(BoundReference(1, LongType, nullable = true))
  private val toUnsafe = UnsafeProjection.create(types.toArray)

  /** 40 keys, 0 to 120 rows each, values 0 to 99 (many ties), NULL keys and values. */
  private val rows: Seq[(Long, Any, Any)] = {
    val random = new Random(7)
    val keyed = for (k <- 0 until 40; _ <- 0 until random.nextInt(121))
      yield (k.toLong: Any, random.nextInt(100).toLong: Any)
    val withNulls = keyed ++ Seq((null, 1L), (3L, null), (null, null))
    random.shuffle(withNulls).zipWithIndex.map { case ((k, v), id) => (id.toLong, k, v) }
  }

  private def unsafeRows(arriving: Seq[(Long, Any, Any)]) =
    arriving.iterator.map { case (id, k, v) => toUnsafe(InternalRow(id, k, v)).copy() }

  private val asOf = new AsOfValue(BoundReference(2, LongType, nullable = true))

  private def packed(arriving: Seq[(Long, Any, Any)]): PackedRows = {
    val builder = new PackedRows.Builder(types.size, HeapBudget.Unaccounted)
    unsafeRows(arriving).foreach(builder += _)
    builder.result()
  }

  /** Each key's rows in the index, as (code, id) in the index's order; and the bytes it held. */
  private def indexed(arriving: Seq[(Long, Any, Any)]) = {
    val budget = new CountingBudget()
    val index =
      AsOfIndex.build(unsafeRows(arriving), keyColumns, asOf, types, budget)
    (groupsOf(index), budget.peak)
  }

  /** As [[indexed]], from the rows packed, and the index. */
  private def indexedPacked(arriving: Seq[(Long, Any, Any)]) = {
    val budget = new CountingBudget()
    val index = AsOfIndex.build(packed(arriving), keyColumns, asOf, budget)
    (groupsOf(index), budget.peak, index)
  }

  private def groupsOf(index: AsOfIndex) = {
    val row = new UnsafeRow(types.size)
    (0L until 40L).map { k =>
      val g = index.keys(keyColumns).groupOf(InternalRow(0L, k, 0L))
      k -> (if (g < 0) Nil
            else (index.start(g) until index.end(g)).map(i =>
              (index.codes(i), index.rows.row(i, row).getLong(0))
            ))
    }.toMap
  }

  private def inOrder(arriving: Seq[(Long, Any, Any)]) = arriving.sortBy { case (id, k, v) =>
    (Option(k).map(_.asInstanceOf[Long]), Option(v).map(_.asInstanceOf[Long]), id)
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
    val ordered = inOrder(rows)
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

  test("packed rows in any order give the index that streamed rows give") {
    for (arriving <- Seq(rows, inOrder(rows))) {
      val (byKey, _, _) = indexedPacked(arriving)
      assert(byKey == expected(arriving))
    }
  }

  test("packed rows in order, none left out, are the index's rows: not copied") {
    val complete = inOrder(rows.filter { case (_, k, v) => k != null && v != null })
    val inPlace = packed(complete)
    val budget = new CountingBudget()
    val index = AsOfIndex.build(inPlace, keyColumns, asOf, budget)
    assert(index.rows eq inPlace)
    assert(groupsOf(index) == expected(complete))
    // Only the codes and the group starts.
    val keys = complete.map(_._2).distinct.size
    assert(budget.peak == 8L * complete.size + 4L * (keys + 1))
    // With rows left out (NULL keys or values), or out of order, the index holds a copy.
    val (withNulls, _, copied) = indexedPacked(inOrder(rows))
    assert(withNulls == expected(rows))
    assert(copied.rows.size == complete.size)
    val (_, _, sorted) = indexedPacked(complete.reverse)
    assert(!(sorted.rows eq inPlace) && sorted.rows.size == complete.size)
  }
}

package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.SparkConf
import org.apache.spark.serializer.JavaSerializer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  UnsafeProjection,
  UnsafeRow
}
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.CountingBudget
import rangejoin.execution.broadcast.{SortedBuildRows, SortedRowsBroadcastMode}

/**
 * A broadcast grouped on the driver (`SortedRowsBroadcastMode.grouped`) reaches an executor in the
 * order its index keeps: for every kind of key the hash takes (one 32-bit key, one long, a string,
 * two columns, none), with NULL keys, NULL as-of values and ties, the index reads the carrier's rows
 * as they are, sorting and copying none, and groups them as rows in any order would be.
 */
class GroupedCarrierSuite extends AnyFunSuite {

  // Rows (id, i, s, l, v): keys among i, s and l; as-of value v.
  private val types: Seq[DataType] = Seq(LongType, IntegerType, StringType, LongType, LongType)
  private val toUnsafe = UnsafeProjection.create(types.toArray)
  private def column(i: Int) = BoundReference(i, types(i), nullable = true)
  private val attributes = types.zipWithIndex.map { case (t, i) => AttributeReference(s"c$i", t)() }

  private def randomRows(seed: Int): Seq[UnsafeRow] = {
    val random = new Random(seed)
    def orNull(v: Any) = if (random.nextInt(15) == 0) null else v
    (0 until 3000).map { id =>
      val k = random.nextInt(60)
      toUnsafe(
        InternalRow(
          id.toLong,
          orNull(k),
          orNull(UTF8String.fromString("key" * (k % 4) + k)),
          orNull(k.toLong * 1000003L),
          orNull(random.nextInt(200).toLong)
        )
      ).copy()
    }
  }

  /** The carrier as an executor reads it, after Java serialization as a broadcast ships it. */
  private def shipped(mode: SortedRowsBroadcastMode, rows: Seq[UnsafeRow]): UnsafeRow = {
    val serializer = new JavaSerializer(new SparkConf()).newInstance()
    val carrier = mode.transform(rows.iterator, None)
    serializer.deserialize[Array[InternalRow]](serializer.serialize(carrier)).head
      .asInstanceOf[UnsafeRow]
  }

  /** Each key's (code, id) pairs in the index's order, keys as strings. */
  private def groups(index: AsOfIndex, keyOf: UnsafeProjection): Map[String, Seq[(Long, Long)]] = {
    val row = new UnsafeRow(types.size)
    (0 until index.numGroups).map { g =>
      val positions = index.start(g) until index.end(g)
      val key = keyOf(index.rows.row(positions.head, row)).toString
      key -> positions.map(i => (index.codes(i), index.rows.row(i, row).getLong(0)))
    }.toMap
  }

  for (
    (name, ordinals) <- Seq(
      "one int key" -> Seq(1),
      "one long key" -> Seq(3),
      "one string key" -> Seq(2),
      "two keys" -> Seq(1, 2),
      "no keys" -> Nil
    )
  ) test(s"$name: the index reads the grouped carrier's rows in place") {
    for (seed <- 1 to 3) {
      val rows = randomRows(seed)
      val keys = ordinals.map(column)
      val keyOf = UnsafeProjection.create(keys)
      val asOf = new AsOfValue(column(4))
      val carrier = shipped(
        SortedRowsBroadcastMode.grouped(ordinals.map(attributes), attributes(4), attributes),
        rows
      )
      // The rows alone: the index computes its own codes.
      intercept[IllegalArgumentException](SortedBuildRows.fromCarrier(carrier))
      val carried = SortedBuildRows.carriedRows(carrier)
      val budget = new CountingBudget()
      val index = AsOfIndex.build(carried, keys, asOf, budget)
      assert(index.sortedRows == 0, s"seed $seed")
      assert(index.rows eq carried, s"seed $seed: the rows were copied")
      // The same groups as rows in arrival order give, ties in arrival order.
      val unordered = AsOfIndex.build(
        rows.iterator,
        keys,
        new AsOfValue(column(4)),
        types,
        new CountingBudget()
      )
      assert(unordered.sortedRows > 0)
      assert(groups(index, keyOf) == groups(unordered, keyOf), s"seed $seed")
    }
  }

  test("intervals that admit no point stay in place in the carrier and match no point") {
    // Versions (id, key, from, to): `from <= p < to`, a NULL `to` open; some empty (to <= from).
    val types: Seq[DataType] = Seq(LongType, IntegerType, LongType, LongType)
    val toUnsafe = UnsafeProjection.create(types.toArray)
    val attributes = types.zipWithIndex.map { case (t, i) => AttributeReference(s"v$i", t)() }
    def column(i: Int) = BoundReference(i, types(i), nullable = true)
    for (seed <- 1 to 3) {
      val random = new Random(seed)
      val rows = (0 until 3000).map { id =>
        val from = random.nextInt(100).toLong
        val to: Any = random.nextInt(10) match {
          case 0 => null
          case 1 => from - random.nextInt(3) // empty: `to` at or below `from`
          case _ => from + 1 + random.nextInt(20)
        }
        toUnsafe(InternalRow(id.toLong, random.nextInt(40), from, to)).copy()
      }
      assert(rows.exists(r => !r.isNullAt(3) && r.getLong(3) <= r.getLong(2)))
      val carried = SortedBuildRows.carriedRows(
        shipped(
          SortedRowsBroadcastMode.grouped(Seq(attributes(1)), attributes(2), attributes),
          rows
        )
      )
      val keys = Seq(column(1))
      val index = IntervalIndex.build(
        carried,
        keys,
        new IntervalBound(new AsOfValue(column(2)), isLower = true, strict = false, open = false),
        new IntervalBound(new AsOfValue(column(3)), isLower = false, strict = true, open = true),
        new CountingBudget()
      )
      assert(index.sortedRows == 0, s"seed $seed")
      assert(index.byLower.rows eq carried, s"seed $seed: the rows were copied")
      val row = new UnsafeRow(types.size)
      for (key <- 0 until 40; point <- -1L to 125L) {
        val expected = rows.filter { r =>
          r.getInt(1) == key && r.getLong(2) <= point && (r.isNullAt(3) || point < r.getLong(3))
        }.map(_.getLong(0)).sorted
        val g = index.byLower.keys(keys).groupOf(InternalRow(0L, key, 0L, 0L))
        val found = if (g < 0) Nil
        else {
          var i = index.candidatesEnd(g, point) - 1
          val ids = Seq.newBuilder[Long]
          while (i >= index.start(g) && index.reaches(i, point)) {
            if (index.admits(i, point)) ids += index.row(i, row).getLong(0)
            i -= 1
          }
          ids.result().sorted
        }
        assert(found == expected, s"seed $seed, key $key, point $point")
      }
    }
  }
}

package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.{HeapBudget, PackedRows}

/**
 * GroupIds numbers keys in order of first appearance and finds them again, before and after
 * `seal`, whether the keys are dense (a direct table), sparse or at the extremes of their type
 * (the hash table), or not one integral column (the rows' bytes); a key that is an integral
 * column of the rows is read in place and finds the groups its key row finds.
 */
class GroupIdsSuite extends AnyFunSuite {

  private def keyRow(dataType: DataType, value: Any): UnsafeRow =
    UnsafeProjection.create(Array(dataType)).apply(InternalRow(value)).copy()

  /**
   * Adds `keys` in order, checks the numbers, then every lookup before and after sealing; with
   * `expect`, tells an integral key's table their range and count first.
   */
  private def check(dataType: DataType, keys: Seq[Any], absent: Seq[Any]): Unit =
    for (expect <- Seq(false, true)) {
      val ids = GroupIds.forKeys(Seq(dataType))
      (ids, expect) match {
        case (byValue: GroupIds.ByValue, true) if keys.nonEmpty =>
          val values = keys.map(k =>
            IntegralColumn.read(keyRow(dataType, k), 0, IntegralColumn.width(dataType))
          )
          byValue.expect(values.min, values.max, keys.size)
        case _ =>
      }
      checkIds(ids, dataType, keys, absent)
    }

  private def checkIds(ids: GroupIds, dataType: DataType, keys: Seq[Any], absent: Seq[Any])
      : Unit = {
    val expected = scala.collection.mutable.LinkedHashMap.empty[Any, Int]
    keys.foreach { k =>
      val id = ids.getOrAdd(keyRow(dataType, k))
      assert(id == expected.getOrElseUpdate(k, expected.size), s"key $k")
    }
    assert(ids.size == expected.size)
    def lookups(): Unit = {
      expected.foreach { case (k, id) => assert(ids.get(keyRow(dataType, k)) == id, s"key $k") }
      absent.foreach(k => assert(ids.get(keyRow(dataType, k)) == -1, s"absent key $k"))
    }
    lookups()
    ids.seal()
    lookups()
  }

  test("dense integer keys, with repeats and gaps, found before and after sealing") {
    val rnd = new Random(7)
    val keys = Seq.fill(5000)(rnd.nextInt(3000) - 1000)
    check(IntegerType, keys, Seq(-1001, 2000, Int.MinValue, Int.MaxValue))
  }

  test("sparse and extreme long keys stay in the hash table") {
    val rnd = new Random(8)
    val keys = Seq.fill(3000)(rnd.nextLong()) ++ Seq(Long.MinValue, Long.MaxValue, 0L, -1L)
    check(LongType, keys ++ keys.take(100), Seq(1L, 42L, Long.MinValue + 1))
  }

  test("keys that are not one integral column are told apart by their bytes") {
    val keys = (0 until 500).map(i => UTF8String.fromString(s"k${i % 321}"))
    check(StringType, keys, Seq(UTF8String.fromString("k999"), UTF8String.fromString("")))
  }

  test("dense keys expected in a range, and keys that fill it sparsely") {
    val rnd = new Random(10)
    check(LongType, Seq.fill(2000)(rnd.nextInt(10000).toLong + 5), Seq(4L, 10006L, -1L))
    check(IntegerType, Seq(3, 3, 3), Seq(2, 4))
    check(IntegerType, Seq(Int.MinValue, Int.MaxValue, 0), Seq(1, -1))
  }

  test("an index with no keys finds none") {
    check(LongType, Nil, Seq(0L, Long.MaxValue))
  }

  test("one integral key column, read in place, finds the groups its key row finds") {
    val rnd = new Random(9)
    for (
      (dataType, draw) <- Seq[(DataType, () => Any)](
        ByteType -> (() => (rnd.nextInt(256) - 128).toByte),
        ShortType -> (() => (rnd.nextInt(2000) - 1000).toShort),
        IntegerType -> (() => rnd.nextInt(3000) - 1000),
        DateType -> (() => rnd.nextInt(400)),
        LongType -> (() => rnd.nextLong() >> rnd.nextInt(64)),
        TimestampType -> (() => rnd.nextLong() >> 8)
      )
    ) {
      // Rows (id, key): the key a column of the row, or an expression that must be evaluated.
      val column = BoundReference(1, dataType, nullable = true)
      val rows = Seq.fill(3000)(if (rnd.nextInt(50) == 0) null else draw()).map(InternalRow(0L, _))
      val ids = GroupIds.forKeys(Seq(dataType))
      val inPlace = ids.keys(Seq(column))
      val projected = ids.keys(Seq(Cast(column, dataType)))
      assert(inPlace.isInstanceOf[GroupKey.Column], dataType)
      assert(projected.isInstanceOf[GroupKey.Projected], dataType)
      val added = rows.map(r => if (inPlace.read(r)) inPlace.findOrAdd() else -1)
      assert(added.contains(-1) && added.max == ids.size - 1, dataType)
      for (sealed_ <- Seq(false, true)) {
        if (sealed_) ids.seal()
        rows.zip(added).foreach { case (r, g) =>
          assert(inPlace.groupOf(r) == g && projected.groupOf(r) == g, s"$dataType $r")
        }
        val present: Set[Any] = rows.map(r => r.get(1, dataType): Any).toSet
        // Bytes drawn 3,000 times take every value: none is absent.
        Iterator.fill(1000)(draw()).find(v => !present.contains(v)).foreach { absent =>
          assert(inPlace.groupOf(InternalRow(0L, absent)) == -1, dataType)
          assert(projected.groupOf(InternalRow(0L, absent)) == -1, dataType)
        }
      }
    }
  }

  test(
    "a key column sized from its rows, then looked up a batch at a time, numbers as one by one"
  ) {
    val rnd = new Random(11)
    for (spread <- Seq(1000L, 1L << 40)) {
      val types = Array[DataType](LongType, LongType)
      val toUnsafe = UnsafeProjection.create(types)
      val rows = Seq.tabulate(3000) { i =>
        toUnsafe(InternalRow(i.toLong, if (i % 97 == 0) null else rnd.nextLong() % spread)).copy()
      }
      val column = BoundReference(1, LongType, nullable = true)
      val oneByOne = GroupIds.forKeys(Seq(LongType)).keys(Seq(column))
      val expected = rows.map(r => if (oneByOne.read(r)) oneByOne.findOrAdd() else -1)

      val packedRows = new PackedRows.Builder(2, HeapBudget.Unaccounted)
      rows.foreach(packedRows += _)
      val packed = packedRows.result()
      val sized = GroupIds.forKeys(Seq(LongType))
      val key = sized.keys(Seq(column))
      key.expect(packed)
      assert(rows.map(r => if (key.read(r)) key.findOrAdd() else -1) == expected, spread)
      for (sealed_ <- Seq(false, true)) {
        if (sealed_) sized.seal()
        val groups = new Array[Int](rows.size)
        key.groupsOf(packed, rows.size, groups, new Array[Long](rows.size))
        assert(groups.toSeq == expected, s"$spread $sealed_")
      }
    }
  }
}

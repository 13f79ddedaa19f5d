package rangejoin.execution.keyed

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  GenericInternalRow
}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.{Block, CountingBudget, KeyEncoder, LongCodes}

/**
 * KeyGroupLoader allocates every array from its budget before making it: what stays allocated is
 * exactly the blocks, and a budget that refuses stops the load before the rows it would hold
 * are read.
 */
class KeyGroupLoaderSuite extends AnyFunSuite {

  private val schema = Seq("id", "a", "b").map(AttributeReference(_, LongType)())

  /** (id, a, b): `a` NULL for every 10th row; ids descending so that the load must sort. */
  private def rows(n: Int): Iterator[InternalRow] = Iterator.range(0, n).map { i =>
    val a: Any = if (i % 10 == 3) null else (n - i).toLong
    new GenericInternalRow(Array[Any](i.toLong, a, (i % 7).toLong))
  }

  private def loader(keyTypes: Seq[(Int, DataType)], blockRows: Int) =
    new KeyGroupLoader(
      schema,
      keyTypes.map { case (i, t) => BoundReference(i, t, nullable = true) },
      keyTypes.map { case (_, t) => KeyEncoder.forType(t) },
      blockRows,
      ordersKey1 = true
    )

  /** The bytes of the blocks' arrays, but for the empty row sets of blocks without NULL keys. */
  private def blockBytes(blocks: Array[Block]): Long = blocks.zipWithIndex.map { case (b, i) =>
    val nulls = if (i == 0) b.nullKeyRows.sizeInBytes else 0L
    b.rows.sizeInBytes + nulls + b.keys.map(_.arrayBytes).sum + 4L * b.key1Order.length
  }.sum

  test("what stays allocated is exactly the blocks; the copies were held at the peak") {
    val budget = new CountingBudget()
    val blocks = loader(Seq(1 -> LongType, 2 -> LongType), blockRows = 100).load(rows(5000), budget)
    assert(blocks.map(_.size).toSeq == Seq.fill(45)(100))
    assert(blocks.head.nullKeyRows.size == 500 && blocks.tail.forall(_.nullKeyRows.size == 0))
    val keys = blocks.toSeq.flatMap(_.keys(0) match {
      case LongCodes(c) => c.toSeq
      case other => fail(s"expected codes, not $other")
    })
    assert(keys == keys.sorted)
    for (b <- blocks; LongCodes(y) <- Some(b.keys(1))) {
      assert(b.key1Order.sorted.toSeq == y.indices && b.key1Order.map(y).toSeq == y.sorted.toSeq)
    }
    assert(budget.held == blockBytes(blocks))
    // The unsorted rows were held with their sorted copy.
    assert(budget.peak >= 2 * blocks.map(_.rows.sizeInBytes).sum)
  }

  test("an empty side holds nothing; key values that are objects stay held with the blocks") {
    val empty = new CountingBudget()
    assert(loader(Seq(1 -> LongType, 2 -> LongType), 100).load(Iterator.empty, empty).isEmpty)
    assert(empty.held == 0)

    val strings = new CountingBudget()
    val stringRows = rows(1000).map { r =>
      new GenericInternalRow(Array[Any](r.getLong(0), UTF8String.fromString(s"v${r.getLong(2)}")))
    }
    val stringLoader = new KeyGroupLoader(
      Seq(AttributeReference("id", LongType)(), AttributeReference("s", StringType)()),
      Seq(BoundReference(1, StringType, nullable = true), BoundReference(0, LongType, false)),
      Seq(KeyEncoder.forType(StringType), KeyEncoder.forType(LongType)),
      blockRows = 64,
      ordersKey1 = true
    )
    val blocks = stringLoader.load(stringRows, strings)
    assert(blocks.map(_.size).sum == 1000)
    assert(strings.held >= blockBytes(blocks) + 1000L * 48)
  }

  test("a budget that refuses stops the load before the rows it would hold are read") {
    val limit = 1L << 20
    val budget = new CountingBudget(limit)
    var read = 0
    val counted = rows(1000000).map { r => read += 1; r }
    val e = intercept[IllegalStateException] {
      loader(Seq(1 -> LongType, 2 -> LongType), blockRows = 100).load(counted, budget)
    }
    assert(e.getMessage.startsWith("refused"))
    assert(budget.peak <= limit)
    // Each row packs into 32 bytes: the rows read fit within what the budget granted.
    assert(read > 0 && 32L * read <= limit, s"$read rows read")
  }
}

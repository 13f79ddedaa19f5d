package rangejoin.execution.keyed

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Add,
  BoundReference,
  Cast,
  Expression,
  GenericInternalRow,
  Literal
}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.blocks.{CountingBudget, HeapBudget}

/**
 * ProbeRegions cuts an index into regions in the order of its positions; Probes give back every
 * probing row once, with its group and code: for an index of several regions, each batch in order
 * of region (rows of a region in the order they arrived), freeing all they allocated once the
 * rows run out; for an index of one region, the input's own rows as they arrive.
 */
class ProbesSuite extends AnyFunSuite {

  // Index and probing rows alike: (id, k, v, pad), grouped by `k`, coded by `v`.
  private val types: Seq[DataType] = Seq(LongType, LongType, LongType, StringType)
  private val keys = Seq(BoundReference(1, LongType, nullable = true))
  private def value = new AsOfValue(BoundReference(2, LongType, nullable = true))

  private def row(id: Long, k: Any, v: Any, padBytes: Int = 0): InternalRow =
    new GenericInternalRow(Array[Any](id, k, v, UTF8String.fromString("x" * padBytes)))

  /** Key `k` has `sizes(k)` rows, values 10 apart; the rows arrive shuffled. */
  private def index(sizes: Seq[Int]): AsOfIndex = {
    val rows = for ((n, k) <- sizes.zipWithIndex; i <- 0 until n) yield row(i, k.toLong, 10L * i)
    val shuffled = new Random(1).shuffle(rows)
    AsOfIndex.build(shuffled.iterator, keys, value, types, HeapBudget.Unaccounted)
  }

  /**
   * Rows with ids 0 until `n`: keys of the index and keys it lacks, NULL keys and values, values
   * below, inside and above each group's.
   */
  private def probes(n: Int, keys: Int, padBytes: Int): IndexedSeq[InternalRow] = {
    val random = new Random(2)
    (0 until n).map { i =>
      val k: Any = if (i % 41 == 0) null else (random.nextInt(keys + 2) - 1).toLong
      val v: Any = if (i % 37 == 0) null else random.nextInt(300000).toLong - 1000
      row(i, k, v, padBytes)
    }
  }

  /** One output row: its id, group and code, and the region they give. */
  private case class Probe(id: Long, group: Int, code: Long, region: Int)

  private def drain(
      index: AsOfIndex,
      regions: ProbeRegions,
      rows: Seq[InternalRow],
      probeKeys: Seq[Expression] = keys
  ) = {
    val budget = new CountingBudget()
    val probes = Probes(index, regions, probeKeys, value, types, budget, rows.iterator)
    val out = Iterator
      .continually(probes.advance())
      .takeWhile(identity)
      .map { _ =>
        val g = probes.group
        Probe(
          probes.row.getLong(0),
          g,
          probes.code,
          if (g < 0) 0 else regions.of(g, probes.code)
        )
      }
      .toVector
    assert(budget.held == 0, "everything allocated is freed")
    if (regions.count > 1) assert(budget.peak > 0, "batches are allocated")
    else assert(budget.peak == 0, "nothing is copied")
    out
  }

  /** Each probing row once, with the group of its key and its value as code. */
  private def checkRows(index: AsOfIndex, rows: Seq[InternalRow], out: Seq[Probe]): Unit = {
    assert(out.map(_.id).sorted == rows.indices.map(_.toLong))
    for (p <- out) {
      val r = rows(p.id.toInt)
      val expected = if (r.isNullAt(1) || r.isNullAt(2)) -1 else index.keys(keys).groupOf(r)
      assert(p.group == expected, s"row ${p.id}")
      if (expected >= 0) assert(p.code == r.getLong(2), s"row ${p.id}")
    }
  }

  /**
   * The output cut into runs after each prefix that holds exactly the first rows to arrive: a
   * batch ends at such a prefix, so each run lies within one batch.
   */
  private def runs(out: Seq[Probe]): Seq[Seq[Probe]] = {
    var maxId = -1L
    val ends = out.indices.filter { i =>
      maxId = math.max(maxId, out(i).id)
      maxId == i
    }
    (-1 +: ends).zip(ends).map { case (from, until) => out.slice(from + 1, until + 1) }
  }

  private def inRegionOrder(run: Seq[Probe]): Boolean =
    run.zip(run.drop(1)).forall { case (a, b) =>
      a.region < b.region || (a.region == b.region && a.id < b.id)
    }

  test("regions follow the index's positions, and a large group spreads over several") {
    // One group far larger than a region, many small ones.
    val idx = index(Seq(60000) ++ Seq.fill(3000)(7))
    val regions = new ProbeRegions(idx, idx.sizeInBytes)
    assert(regions.count > 1 && regions.count <= ProbeRegions.MaxRegions)
    val byPosition = for (g <- 0 until idx.numGroups; p <- idx.start(g) until idx.end(g))
      yield regions.of(g, idx.codes(p))
    assert(byPosition.head == 0 && byPosition.last == regions.count - 1)
    assert(byPosition.zip(byPosition.drop(1)).forall { case (a, b) => a <= b })
    val big = idx.keys(keys).groupOf(row(0, 0L, 0L))
    val bigRegions = (idx.start(big) until idx.end(big)).map(p => regions.of(big, idx.codes(p)))
    assert(bigRegions.distinct.size > 1)
    // Codes outside a large group's own fall in its first or last region.
    assert(regions.of(big, Long.MinValue) == bigRegions.head)
    assert(regions.of(big, Long.MaxValue) == bigRegions.last)
  }

  test("an index that stays in the cache is one region; a larger one, regions of its bytes") {
    val idx = index(Seq(60000) ++ Seq.fill(3000)(7))
    val positions = idx.codes.length
    assert(new ProbeRegions(idx, ProbeRegions.CachedBytes).count == 1)
    for (bytesPerPosition <- Seq(64L, 4096L)) {
      val regions = new ProbeRegions(idx, positions * bytesPerPosition)
      val span = math.max(
        ProbeRegions.RegionBytes / bytesPerPosition,
        (positions + ProbeRegions.MaxRegions - 1) / ProbeRegions.MaxRegions
      )
      assert(regions.count == (positions + span - 1) / span, s"$bytesPerPosition bytes a position")
    }
  }

  /** The index of `sizes` probed by `n` rows of `padBytes` padding: its regions, the output. */
  private def probeAll(sizes: Seq[Int], n: Int, padBytes: Int): (ProbeRegions, Vector[Probe]) = {
    val idx = index(sizes)
    val regions = new ProbeRegions(idx, idx.sizeInBytes)
    val rows = probes(n, sizes.size, padBytes)
    val out = drain(idx, regions, rows)
    checkRows(idx, rows, out)
    (regions, out)
  }

  test("a batch comes out in order of region, each row once with its group and code") {
    val (regions, out) = probeAll(Seq(60000) ++ Seq.fill(3000)(7), 50000, padBytes = 0)
    assert(runs(out).forall(inRegionOrder))
    val reached = out.map(_.region).distinct.size
    assert(reached >= 10 && reached <= regions.count, "the probes spread over many regions")
  }

  test("keys evaluated into a key row find the groups a key column finds") {
    val idx = index(Seq(60000) ++ Seq.fill(3000)(7))
    val regions = new ProbeRegions(idx, idx.sizeInBytes)
    val rows = probes(20000, 3001, padBytes = 0)
    val evaluated = keys.map(k => Cast(k, LongType))
    assert(idx.keys(evaluated).isInstanceOf[GroupKey.Projected])
    val out = drain(idx, regions, rows, evaluated)
    checkRows(idx, rows, out)
    assert(runs(out).forall(inRegionOrder))
  }

  test("wide rows make several batches, each in order of region") {
    // About 2 KiB a row: a batch holds up to 32 MiB of rows, about 16,000 of them.
    val (_, out) = probeAll(Seq(60000) ++ Seq.fill(3000)(7), 40000, padBytes = 2000)
    val cut = runs(out)
    assert(cut.size >= 3, "at least three batches")
    assert(cut.forall(inRegionOrder))
    assert(!inRegionOrder(out), "each batch is ordered on its own")
  }

  test("rows not carried: the same groups and codes in the same order, no row to read") {
    val idx = index(Seq(60000) ++ Seq.fill(3000)(7))
    val regions = new ProbeRegions(idx, idx.sizeInBytes)
    assert(regions.count > 1)
    // Wide rows: carried, they make several batches.
    val rows = probes(40000, 3001, padBytes = 2000)
    def drained(code: RowCode, carried: Boolean) = {
      val budget = new CountingBudget()
      val probing = Probes(idx, regions, keys, code, types, budget, rows.iterator, carried)
      val out = Iterator
        .continually(probing.advance())
        .takeWhile(identity)
        .map(_ => (probing.group, if (probing.group < 0) 0L else probing.code))
        .toVector
      assert(budget.held == 0, "everything allocated is freed")
      (out, probing.row)
    }
    val (carriedOut, _) = drained(value, carried = true)
    // A computed code is read after the lookups of rows packed as carried ones are: the same
    // batches, in the same order.
    val computed = new AsOfValue(Add(BoundReference(2, LongType, nullable = true), Literal(0L)))
    assert(!computed.readsColumn)
    val (packedOut, packedRow) = drained(computed, carried = false)
    assert(packedOut == carriedOut)
    // A code that is a column is read as each row arrives, and no row is copied, so no byte
    // count ends a batch: all the rows are one batch, in order of region.
    assert(value.readsColumn)
    val (readOut, readRow) = drained(value, carried = false)
    assert(readOut.sorted == carriedOut.sorted)
    val regionOrder = readOut.map { case (g, code) => if (g < 0) 0 else regions.of(g, code) }
    assert(regionOrder == regionOrder.sorted)
    for (row <- Seq(packedRow, readRow)) {
      assert(row.numFields == types.size)
      for (read <- Seq[InternalRow => Any](_.getLong(0), _.isNullAt(1), _.copy()))
        intercept[IllegalStateException](read(row))
    }
  }

  test("an index that fits in one region is probed by the input's own rows, as they arrive") {
    val (regions, out) = probeAll(Seq.fill(50)(20), 5000, padBytes = 0)
    assert(regions.count == 1)
    assert(out.map(_.id) == (0L until 5000L))
    val idx = index(Seq.fill(50)(20))
    val rows = probes(100, 50, padBytes = 0)
    val probing = Probes(
      idx,
      new ProbeRegions(idx, idx.sizeInBytes),
      keys,
      value,
      types,
      HeapBudget.Unaccounted,
      rows.iterator
    )
    for (r <- rows) assert(probing.advance() && (probing.row eq r), "the input's row, not a copy")
    assert(!probing.advance())
  }

  test("no rows: nothing comes out and nothing stays allocated") {
    for (sizes <- Seq(Seq(10), Seq(60000) ++ Seq.fill(3000)(7))) {
      val idx = index(sizes)
      val regions = new ProbeRegions(idx, idx.sizeInBytes)
      val budget = new CountingBudget()
      val probing = Probes(idx, regions, keys, value, types, budget, Iterator.empty)
      assert(!probing.advance(), s"${regions.count} regions")
      assert(budget.held == 0, s"${regions.count} regions")
    }
  }
}

package rangejoin.local

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp._

/** [[SortedRangeIndex]] against brute force, on small random inputs full of ties. */
class SortedRangeIndexSuite extends AnyFunSuite {

  private val ops = Seq(Lt, Le, Gt, Ge)

  private def matches(index: SortedRangeIndex, sx: Long, sy: Long): Seq[Int] = {
    val cursor = index.cursor()
    cursor.probe(sx, sy)
    val out = Seq.newBuilder[Int]
    while (cursor.next()) out += cursor.row
    out.result()
  }

  private def holds(op: InequalityOp, a: Long, b: Long) = op.holds(java.lang.Long.compare(a, b))

  for (op1 <- ops) {
    test(s"one inequality s.x $op1 b.x equals brute force") {
      val rnd = new Random(op1.hashCode)
      for (_ <- 0 until 200) {
        val domain = 1 + rnd.nextInt(8)
        val x = Array.fill(rnd.nextInt(30))((rnd.nextInt(domain) - domain / 2).toLong)
        val index = new SortedRangeIndex(x, None, op1, None)
        for (sx <- -domain to domain) {
          val expected = x.indices.filter(j => holds(op1, sx, x(j)))
          assert(matches(index, sx, 0L).sorted == expected, s"sx=$sx x=${x.toSeq}")
        }
      }
    }
  }

  /**
   * How the probe goes: walking only (no bitsets), through the bitsets from the start, or after
   * a few rows of walking.
   */
  private val probes =
    Seq("walk" -> ((0, 64)), "bitsets" -> ((8192, 0)), "walk, then bitsets" -> ((8192, 3)))

  for (op1 <- ops; op2 <- ops; (probe, (bitsMaxRows, walkSteps)) <- probes) {
    test(s"two inequalities s.x $op1 b.x AND s.y $op2 b.y equal brute force ($probe)") {
      val rnd = new Random(op1.hashCode * 31 + op2.hashCode)
      var nonEmpty = 0
      for (_ <- 0 until 200) {
        val domain = 1 + rnd.nextInt(8)
        def keys(k: Int) = Array.fill(k)((rnd.nextInt(domain) - domain / 2).toLong)
        // Up to 150 rows: bitsets of several words, the last one partly used.
        val n = if (rnd.nextBoolean()) rnd.nextInt(30) else rnd.nextInt(150)
        val (x, y) = (keys(n), keys(n))
        val index = new SortedRangeIndex(x, Some(y), op1, Some(op2), bitsMaxRows, walkSteps)
        for (sx <- -domain to domain; sy <- -domain to domain) {
          val expected = x.indices.filter(j => holds(op1, sx, x(j)) && holds(op2, sy, y(j)))
          val actual = matches(index, sx, sy)
          assert(actual.sorted == expected, s"sx=$sx sy=$sy x=${x.toSeq} y=${y.toSeq}")
          if (expected.nonEmpty) nonEmpty += 1
        }
      }
      assert(nonEmpty > 100)
    }
  }

  test("points in disjoint intervals visit only the matching interval") {
    // Intervals [10k, 10k + 5): s.v >= lo AND s.v < hi.
    val lo = Array.tabulate(1000)(k => 10L * k)
    val hi = lo.map(_ + 5)
    val index = new SortedRangeIndex(lo, Some(hi), Ge, Some(Lt))
    assert(matches(index, 4223L, 4223L) == Seq(422))
    assert(matches(index, 4227L, 4227L).isEmpty)
    assert(matches(index, -1L, -1L).isEmpty)
  }

  test("extreme codes and an empty index") {
    val x = Array(Long.MinValue, Long.MaxValue, 0L)
    val index = new SortedRangeIndex(x, Some(x), Le, Some(Ge))
    assert(matches(index, Long.MinValue, Long.MaxValue).sorted == Seq(0, 1, 2))
    assert(matches(index, Long.MaxValue, Long.MaxValue) == Seq(1))
    val empty = new SortedRangeIndex(Array.emptyLongArray, None, Lt, None)
    assert(matches(empty, 0L, 0L).isEmpty)
  }
}

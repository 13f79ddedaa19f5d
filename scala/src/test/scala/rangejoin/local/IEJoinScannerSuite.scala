package rangejoin.local

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp._

/** The local algorithms against brute force, on small random inputs full of ties. */
class IEJoinScannerSuite extends AnyFunSuite {

  private val ops = Seq(Lt, Le, Gt, Ge)

  private def bruteForce(
      lx: Array[Long],
      ly: Array[Long],
      rx: Array[Long],
      ry: Array[Long],
      op1: InequalityOp,
      op2: InequalityOp
  ): Seq[(Int, Int)] =
    for {
      i <- lx.indices
      j <- rx.indices
      if op1.holds(java.lang.Long.compare(lx(i), rx(j))) &&
        op2.holds(java.lang.Long.compare(ly(i), ry(j)))
    } yield (i, j)

  /**
   * The scanner on rows given as (x, y) codes: each side's rows are put in x order (ties shuffled)
   * with their y order, as blocks hold them, or at random in y order with their x order, as a
   * self-join whose keys are swapped reads a block; pairs are reported by the rows' given indices.
   */
  private def ieJoin(
      lx: Array[Long],
      ly: Array[Long],
      rx: Array[Long],
      ry: Array[Long],
      op1: InequalityOp,
      op2: InequalityOp,
      rnd: Random = new Random(0)
  ): Seq[(Int, Int)] = join(lx, ly, rx, ry, rnd)(new IEJoinScanner(_, _, op1, op2))._1

  /** The pairs of the scanner `make` gives for inputs made as [[ieJoin]] makes them, and it. */
  private def join(lx: Array[Long], ly: Array[Long], rx: Array[Long], ry: Array[Long], rnd: Random)(
      make: (IEJoinInput, IEJoinInput) => PairScanner
  ): (Seq[(Int, Int)], PairScanner) = {
    def ordered(keys: Array[Long]) = rnd.shuffle(keys.indices.toVector).sortBy(keys(_)).toArray
    def input(x: Array[Long], y: Array[Long]) =
      if (rnd.nextBoolean()) {
        val rows = ordered(x)
        val ys = rows.map(y)
        (rows, IEJoinInput(rows.map(x), null, ys, ordered(ys)))
      } else {
        val rows = ordered(y)
        val xs = rows.map(x)
        (rows, IEJoinInput(xs, ordered(xs), rows.map(y), null))
      }
    val (leftRows, left) = input(lx, ly)
    val (rightRows, right) = input(rx, ry)
    val scanner = make(left, right)
    val pairs = scan(scanner, batch = 1 + rnd.nextInt(8))
    (pairs.map { case (i, j) => (leftRows(i), rightRows(j)) }, scanner)
  }

  /** Every pair `s` yields, taken `batch` at a time (batches cut a row's pairs anywhere). */
  private def scan(s: PairScanner, batch: Int): Seq[(Int, Int)] = {
    val out = Seq.newBuilder[(Int, Int)]
    val (lefts, rights) = (new Array[Int](batch), new Array[Int](batch))
    var filled = s.fill(lefts, rights)
    while (filled > 0) {
      out ++= (0 until filled).map(k => (lefts(k), rights(k)))
      filled = s.fill(lefts, rights)
    }
    out.result()
  }

  for (op1 <- ops; op2 <- ops) {
    test(s"IEJoinScanner l.x $op1 r.x AND l.y $op2 r.y equals brute force") {
      val rnd = new Random(op1.hashCode * 31 + op2.hashCode)
      var nonEmpty = 0
      for (_ <- 0 until 200) {
        val n = rnd.nextInt(30)
        val m = rnd.nextInt(30)
        val domain = 1 + rnd.nextInt(8) // small domains: many ties
        def keys(k: Int) = Array.fill(k)((rnd.nextInt(domain) - domain / 2).toLong)
        val (lx, ly, rx, ry) = (keys(n), keys(n), keys(m), keys(m))
        val expected = bruteForce(lx, ly, rx, ry, op1, op2).sorted
        val actual = ieJoin(lx, ly, rx, ry, op1, op2, rnd)
        assert(
          actual.sorted == expected,
          s"lx=${lx.toSeq} ly=${ly.toSeq} rx=${rx.toSeq} ry=${ry.toSeq}"
        )
        assert(actual.distinct.size == actual.size, "a pair was emitted twice")
        if (expected.nonEmpty) nonEmpty += 1
      }
      assert(nonEmpty > 50)
    }
  }

  for (op1 <- ops; op2 <- ops) {
    test(s"l.x $op1 r.x AND l.y $op2 r.y: a merge where one inequality holds for every pair") {
      val rnd = new Random(op1.hashCode * 17 + op2.hashCode)
      val picked = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      for (_ <- 0 until 500) {
        // Ranges of 4 values, the right one shifted by -5 to 5 on each key: apart, touching
        // (ties at the ends decide < against <=) or overlapping.
        def keys(k: Int, shift: Int) = Array.fill(k)((rnd.nextInt(4) + shift).toLong)
        val (n, m) = (1 + rnd.nextInt(12), 1 + rnd.nextInt(12))
        val (xShift, yShift) = (rnd.nextInt(11) - 5, rnd.nextInt(11) - 5)
        val (lx, ly, rx, ry) = (keys(n, 0), keys(n, 0), keys(m, xShift), keys(m, yShift))
        val expected = bruteForce(lx, ly, rx, ry, op1, op2).sorted
        val (actual, picks) = join(lx, ly, rx, ry, rnd)(IEJoinScanner(_, _, op1, op2))
        val scanner = picks.getClass.getSimpleName
        assert(
          actual.sorted == expected,
          s"$scanner: lx=${lx.toSeq} ly=${ly.toSeq} rx=${rx.toSeq} ry=${ry.toSeq}"
        )
        picked(scanner) += 1
      }
      assert(Seq("MergeScanner", "PermutedScanner", "IEJoinScanner").forall(picked(_) > 20), picked)
    }
  }

  for (op <- ops) {
    test(s"MergeScanner l.x $op r.x equals brute force on sorted blocks") {
      val rnd = new Random(op.hashCode)
      for (_ <- 0 until 300) {
        val domain = 1 + rnd.nextInt(6)
        def keys() = Array.fill(rnd.nextInt(25))(rnd.nextInt(domain).toLong - 2).sorted
        val (l, r) = (keys(), keys())
        val expected = for {
          i <- l.indices
          j <- r.indices if op.holds(java.lang.Long.compare(l(i), r(j)))
        } yield (i, j)
        val actual = scan(new MergeScanner(l, r, op), batch = 1 + rnd.nextInt(8))
        assert(actual.sorted == expected.sorted, s"${l.toSeq} ${r.toSeq}")
      }
    }
  }

  test("skipLeftRow drops the rest of a left row's pairs") {
    val keys = Array(1L, 2L, 3L)
    for (
      scanner <- Seq[PairScanner](
        new MergeScanner(keys, keys, Le),
        new IEJoinScanner(
          IEJoinInput(keys, null, keys, keys.indices.toArray),
          IEJoinInput(keys, null, keys, keys.indices.toArray),
          Le,
          Le
        )
      )
    ) {
      val firsts = Seq.newBuilder[Int]
      val (left, right) = (new Array[Int](1), new Array[Int](1))
      while (scanner.fill(left, right) == 1) { firsts += left(0); scanner.skipLeftRow() }
      assert(firsts.result().sorted == Seq(0, 1, 2))
    }
  }

  test("IEJoinScanner handles extreme codes and empty sides") {
    val extremes = Array(Long.MinValue, -1L, 0L, 1L, Long.MaxValue)
    for (op1 <- ops; op2 <- ops) {
      assert(
        ieJoin(extremes, extremes.reverse, extremes, extremes, op1, op2).sorted ==
          bruteForce(extremes, extremes.reverse, extremes, extremes, op1, op2).sorted
      )
      assert(ieJoin(Array(), Array(), extremes, extremes, op1, op2).isEmpty)
      assert(ieJoin(extremes, extremes, Array(), Array(), op1, op2).isEmpty)
    }
  }

  test("RadixSort is a stable ascending sort of signed longs, and gives the keys sorted") {
    val rnd = new Random(7)
    // Keys anywhere (sorted beside their indices), key ranges of 12 bits (two passes of 6) and 23
    // bits (three passes of 8) away from zero on either side of it (packed with the index), and
    // ranges of 51 bits (with 5,000 rows' 13 index bits: packed, filling the word) and 54 bits
    // (beside the indices).
    val draws: Seq[() => Long] = Seq(
      () =>
        rnd.nextInt(5) match {
          case 0 => rnd.nextLong()
          case 1 => Long.MinValue
          case 2 => Long.MaxValue
          case _ => rnd.nextInt(10).toLong - 5
        },
      () => 1000000L + rnd.nextInt(4096),
      () => -3000000000L + rnd.nextInt(1 << 23),
      () => (rnd.nextLong() >>> 13) - (1L << 50),
      () => rnd.nextLong() >>> 10
    )
    for (draw <- draws; size <- Seq(0, 1, 2, 100, 5000)) {
      val keys = Array.fill(size)(draw())
      val expected = keys.indices.sortBy(i => (keys(i), i)) // stable: ties by index
      val sorted = RadixSort.sort(keys)
      assert(sorted.order.toSeq == expected)
      assert(sorted.keys.toSeq == expected.map(keys(_)))
      assert(RadixSort.sortedIndices(keys).toSeq == expected)
    }
  }

  test("HierarchicalBitSet.nextSetBit equals a linear scan") {
    val rnd = new Random(11)
    for (size <- Seq(1, 63, 64, 65, 4095, 4097, 300000)) {
      val bits = new HierarchicalBitSet(size)
      val reference = new java.util.BitSet(size)
      for (_ <- 0 until (size / 50 + 1)) {
        val i = rnd.nextInt(size)
        bits.set(i)
        reference.set(i)
      }
      for (_ <- 0 until 2000) {
        val from = rnd.nextInt(size + 2)
        assert(bits.nextSetBit(from) == reference.nextSetBit(from), s"size=$size from=$from")
      }
    }
  }
}

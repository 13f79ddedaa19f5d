package rangejoin.execution.blocks

import org.scalatest.funsuite.AnyFunSuite

import rangejoin.local.InequalityOp

/** Which block pairs [[BlockPairPlanner]] joins, and how it groups them into tasks. */
class BlockPairPlannerSuite extends AnyFunSuite {

  /** A block of `rows` rows with non-NULL keys, from `min` to `max`. */
  private def block(rows: Long, min: Int, max: Int) = BlockStats(rows, Array(min), Array(max))

  /** A block whose keys are all NULL: no min or max. */
  private val nullKeys = BlockStats(0, Array.empty, Array.empty)

  /** Whether the ranges of two non-empty blocks overlap (as for `l.k = r.k`, or `<=` and `>=`). */
  private val overlap: (BlockStats, BlockStats) => Boolean = (s, b) =>
    s.rows > 0 && b.rows > 0 &&
      s.min(0).asInstanceOf[Int] <= b.max(0).asInstanceOf[Int] &&
      b.min(0).asInstanceOf[Int] <= s.max(0).asInstanceOf[Int]

  private def plan(
      stream: Seq[Seq[BlockStats]],
      build: Seq[Seq[BlockStats]],
      canMatch: (BlockStats, BlockStats) => Boolean = overlap,
      keepUnpaired: Boolean = false,
      parallelism: Int = 1,
      minTaskWork: Long = 0
  ): BlockPairPlanner.Plan =
    BlockPairPlanner.plan(
      stream.map(_.toArray).toArray,
      build.map(_.toArray).toArray,
      canMatch,
      keepUnpaired,
      parallelism,
      minTaskWork
    )

  /** Each kept stream block with its partners, across tasks, in task order. */
  private def pairs(p: BlockPairPlanner.Plan): Seq[(BlockRef, Seq[BlockRef])] =
    p.tasks.toSeq.flatMap(_.pairs.map(bp => bp.left -> bp.rights.toSeq))

  private def ref(partition: Int, index: Int) = BlockRef(partition, index)

  // Stream: partition 0 holds [0, 9] and [10, 19]; partition 1 is empty; partition 2 holds [20, 29].
  private val stream = Seq(Seq(block(10, 0, 9), block(10, 10, 19)), Nil, Seq(block(10, 20, 29)))
  // Build: [5, 12] and [50, 60] in partition 0, [25, 40] in partition 1.
  private val build = Seq(Seq(block(8, 5, 12), block(11, 50, 60)), Seq(block(16, 25, 40)))

  test("each stream block is paired with exactly the build blocks it can match") {
    val p = plan(stream, build)
    assert(
      pairs(p) == Seq(
        ref(0, 0) -> Seq(ref(0, 0)),
        ref(0, 1) -> Seq(ref(0, 0)),
        ref(2, 0) -> Seq(ref(1, 0))
      )
    )
    // 3 non-empty stream blocks x 3 non-empty build blocks = 9 pairs considered.
    assert(p.joinedPairs == 3)
    assert(p.prunedPairs == 6)
  }

  test("pruning follows BlockStats.canMatch for the inequalities' ops") {
    val ordering = Ordering.Int.asInstanceOf[Ordering[Any]]
    // l.k < r.k: a stream block can match a build block whose max exceeds its min.
    val lessThan: (BlockStats, BlockStats) => Boolean =
      (s, b) => s.canMatch(b, Seq(InequalityOp.Lt), Seq(ordering))
    val p = plan(stream, build, lessThan)
    assert(
      pairs(p) == Seq(
        ref(0, 0) -> Seq(ref(0, 0), ref(0, 1), ref(1, 0)),
        ref(0, 1) -> Seq(ref(0, 0), ref(0, 1), ref(1, 0)),
        ref(2, 0) -> Seq(ref(0, 1), ref(1, 0))
      )
    )
    assert((p.joinedPairs, p.prunedPairs) == ((8L, 1L)))
    // Nothing matches everything: every pair is pruned, and no task is left.
    val none = plan(stream, build, (_, _) => false)
    assert(none.tasks.isEmpty)
    assert((none.joinedPairs, none.prunedPairs) == ((0L, 9L)))
  }

  test("keepUnpaired keeps stream blocks without partners, with no build block") {
    val far = Seq(Seq(block(10, 100, 120)))
    val without = plan(stream ++ far, build)
    val withUnpaired = plan(stream ++ far, build, keepUnpaired = true)
    assert(!pairs(without).map(_._1).contains(ref(3, 0)))
    assert(pairs(withUnpaired).contains(ref(3, 0) -> Nil))
    assert(pairs(withUnpaired).filter(_._2.nonEmpty) == pairs(without))
    // A partnerless block's candidate pairs are pruned pairs either way.
    assert(withUnpaired.joinedPairs == without.joinedPairs)
    assert(withUnpaired.prunedPairs == without.prunedPairs)
    assert(without.prunedPairs == 4 * 3 - 3)
  }

  test("a block without non-NULL keys is never paired, but is kept when keepUnpaired") {
    // A stream block of NULL keys still has rows an outer or anti join must output.
    val s = Seq(Seq(block(10, 0, 9), nullKeys))
    val b = Seq(Seq(nullKeys, block(5, 0, 100)))
    val canMatch: (BlockStats, BlockStats) => Boolean =
      (x, y) => x.canMatch(y, Seq(InequalityOp.Le), Seq(Ordering.Int.asInstanceOf[Ordering[Any]]))
    val inner = plan(s, b, canMatch)
    assert(pairs(inner) == Seq(ref(0, 0) -> Seq(ref(0, 1))))
    assert((inner.joinedPairs, inner.prunedPairs) == ((1L, 0L)))
    val outer = plan(s, b, canMatch, keepUnpaired = true)
    assert(pairs(outer) == Seq(ref(0, 0) -> Seq(ref(0, 1)), ref(0, 1) -> Nil))
    // An empty build block is left out even when canMatch would accept it.
    val anything = plan(s.take(1).map(_.take(1)), b, (_, _) => true)
    assert(pairs(anything) == Seq(ref(0, 0) -> Seq(ref(0, 1))))
    assert((anything.joinedPairs, anything.prunedPairs) == ((1L, 0L)))
  }

  test("every kept stream block is in exactly one task, in partition order") {
    val many = (0 until 5).map(p => (0 until 1 + p % 3).map(i => block(1 + p + i, p, p + i)))
    for (parallelism <- Seq(1, 2, 3, 8); keep <- Seq(false, true)) {
      val p = plan(many, build, keepUnpaired = keep, parallelism = parallelism)
      assert(p.tasks.forall(_.pairs.nonEmpty))
      val lefts = pairs(p).map(_._1)
      val expected = for {
        (blocks, part) <- many.zipWithIndex
        (s, i) <- blocks.zipWithIndex
        if keep || build.flatten.exists(overlap(s, _))
      } yield ref(part, i)
      assert(lefts == expected, s"parallelism $parallelism, keepUnpaired $keep")
    }
  }

  test("consecutive stream blocks share a task until it has a 1 / (2 x parallelism) share") {
    // Eight unpaired stream blocks of 9 rows: each costs 1 + 9 = 10, 80 in all.
    val eight = Seq(Seq.fill(4)(block(9, 0, 0)), Seq.fill(4)(block(9, 0, 0)))
    def sizes(parallelism: Int) =
      plan(
        eight,
        Nil,
        keepUnpaired = true,
        parallelism = parallelism
      ).tasks.map(_.pairs.length).toSeq
    assert(sizes(1) == Seq(4, 4)) // target 40
    assert(sizes(2) == Seq(2, 2, 2, 2)) // target 20
    assert(sizes(64) == Seq.fill(8)(1))
    // A task takes blocks until its work reaches the target: 1 + 1 + 1 + 1 < 56 / 2 <= 4 + 51.
    val uneven = Seq(Seq(0, 0, 0, 0, 50, 0).map(r => block(r, 0, 0)))
    val tasks = plan(uneven, Nil, keepUnpaired = true).tasks
    assert(tasks.map(_.pairs.map(_.left.index).toSeq).toSeq == Seq(0 to 4, Seq(5)))
    // A partner's rows count as work for the stream block that reads it.
    val partnered = plan(
      Seq(Seq(block(1, 0, 0), block(1, 0, 0), block(1, 10, 10), block(1, 10, 10))),
      Seq(Seq(block(100, 10, 10))),
      keepUnpaired = true
    )
    // Costs 2, 2, 102, 102: target 104, so the first three share a task.
    assert(partnered.tasks.map(_.pairs.length).toSeq == Seq(3, 1))
  }

  test("a task takes at least minTaskWork rows of work, but every core gets a task") {
    // Eight unpaired stream blocks of 9 rows, 10 each: 4 tasks at parallelism 2 without a floor.
    val eight = Seq(Seq.fill(4)(block(9, 0, 0)), Seq.fill(4)(block(9, 0, 0)))
    def sizes(minTaskWork: Long) =
      plan(eight, Nil, keepUnpaired = true, parallelism = 2, minTaskWork = minTaskWork).tasks
        .map(_.pairs.length)
        .toSeq
    assert(sizes(0) == Seq(2, 2, 2, 2))
    assert(sizes(30) == Seq(3, 3, 2))
    assert(sizes(1000) == Seq(4, 4)) // a half share each, not all in one task
  }

  test("empty inputs") {
    val noStream = plan(Nil, build)
    assert(noStream.tasks.isEmpty && noStream.joinedPairs == 0 && noStream.prunedPairs == 0)
    assert(plan(Seq(Nil, Nil), build, keepUnpaired = true).tasks.isEmpty)
    val noBuild = plan(stream, Seq(Nil))
    assert(noBuild.tasks.isEmpty && noBuild.joinedPairs == 0 && noBuild.prunedPairs == 0)
    val unmatched = plan(stream, Nil, keepUnpaired = true)
    assert(pairs(unmatched) == Seq(ref(0, 0) -> Nil, ref(0, 1) -> Nil, ref(2, 0) -> Nil))
    assert(unmatched.joinedPairs == 0 && unmatched.prunedPairs == 0)
  }
}

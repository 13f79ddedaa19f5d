package rangejoin.execution.blocks

import scala.collection.mutable

/** Chooses the block pairs to join and groups them into tasks. */
object BlockPairPlanner {

  /** The tasks to run, and how many block pairs were joined and pruned by their min/max ranges. */
  final case class Plan(tasks: Array[BlockPairGroup], joinedPairs: Long, prunedPairs: Long)

  /**
   * The least work, in blocks of `blockRows` rows read over a task's block pairs, worth a task of
   * its own: the local join reads eight full blocks (262,144 rows at the default `blockRows`) in
   * about the time it takes to launch a task, so a task given less work spends more on its
   * launch than running in parallel saves.
   */
  val MinTaskBlocks: Int = 8

  /**
   * Pairs each stream block with every build block it `canMatch`. Consecutive stream blocks
   * share a task until the task's estimated work (rows read over its pairs) reaches a
   * `1 / (2 * parallelism)` share of the total, and at least `minTaskWork` rows or a
   * `1 / parallelism` share, whichever is less, so that small blocks do not each pay a task's
   * overhead while every core still has a task (a small join may have a large output). Two
   * tasks per core: more add launch overhead without spreading the work any better, and one
   * task per core, though cheapest when the work is even, leaves a task with much output alone
   * on its core.
   *
   * @param stream the statistics of each partition's blocks, in partition order
   * @param keepUnpaired keep stream blocks that have no partner (their rows are output unmatched)
   */
  def plan(
      stream: Array[Array[BlockStats]],
      build: Array[Array[BlockStats]],
      canMatch: (BlockStats, BlockStats) => Boolean,
      keepUnpaired: Boolean,
      parallelism: Int,
      minTaskWork: Long
  ): Plan = {
    def refs(stats: Array[Array[BlockStats]]) = for {
      (blocks, p) <- stats.zipWithIndex.toSeq
      (s, i) <- blocks.zipWithIndex
    } yield (BlockRef(p, i), s)
    val buildRefs = refs(build).filter(_._2.rows > 0)
    val candidates = refs(stream).map { case (ref, s) =>
      val partners = buildRefs.filter { case (_, b) => canMatch(s, b) }
      (BlockPairs(ref, partners.map(_._1).toArray), 1 + s.rows + partners.map(_._2.rows).sum)
    }
    val joined = candidates.map(_._1.rights.length.toLong).sum
    val considered = stream.map(_.count(_.rows > 0)).sum.toLong * buildRefs.size
    val kept = candidates.filter { case (pairs, _) => keepUnpaired || pairs.rights.nonEmpty }
    val total = kept.map(_._2).sum.toDouble
    val target =
      math.max(total / (2 * parallelism), math.min(minTaskWork.toDouble, total / parallelism))

    val tasks = mutable.ArrayBuffer.empty[BlockPairGroup]
    val current = mutable.ArrayBuffer.empty[BlockPairs]
    var work = 0.0
    def flush(): Unit = if (current.nonEmpty) {
      tasks += BlockPairGroup(current.toArray)
      current.clear()
      work = 0.0
    }
    kept.foreach { case (pairs, cost) =>
      current += pairs
      work += cost
      if (work >= target) flush()
    }
    flush()
    Plan(tasks.toArray, joined, considered - joined)
  }
}

package rangejoin.execution.blocks

import scala.collection.mutable

/** Chooses the block pairs to join and groups them into tasks. */
object BlockPairPlanner {

  /** The tasks to run, and how many block pairs were joined and pruned by their min/max ranges. */
  final case class Plan(tasks: Array[BlockPairGroup], joinedPairs: Long, prunedPairs: Long)

  /**
   * Pairs each stream block with every build block it `canMatch`. Consecutive stream blocks
   * share a task until the task's estimated work (rows read over its pairs) reaches a
   * `1 / (4 * parallelism)` share of the total, so that small blocks do not each pay a task's
   * overhead.
   *
   * @param stream the statistics of each partition's blocks, in partition order
   * @param keepUnpaired keep stream blocks that have no partner (their rows are output unmatched)
   */
  def plan(
      stream: Array[Array[BlockStats]],
      build: Array[Array[BlockStats]],
      canMatch: (BlockStats, BlockStats) => Boolean,
      keepUnpaired: Boolean,
      parallelism: Int
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
    val target = kept.map(_._2).sum / (4.0 * parallelism)

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

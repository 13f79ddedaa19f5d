package rangejoin.execution

import scala.collection.mutable
import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/** A left block and the right blocks it is joined with. */
final case class BlockPairs(left: BlockRef, rights: Array[BlockRef])

/**
 * One task: some left blocks, each with all of its right partners. Keeping all pairs of a left
 * block in one task lets a left or full outer join decide, within the task, whether a left row
 * matched in any pair.
 */
final case class BlockPairTask(index: Int, pairs: Array[BlockPairs]) extends Partition {
  def leftPartitions: Seq[Int] = pairs.map(_.left.partition).distinct.toSeq
  def rightPartitions: Seq[Int] = pairs.flatMap(_.rights.map(_.partition)).distinct.toSeq
}

/**
 * Runs `join` for each left block of each [[BlockPairTask]], reading blocks from the parents'
 * partitions (the [[CachedBlocks]] of each input). Blocks are read where they are needed, as
 * `CartesianRDD` reads its two parents; a pruned block pair is never read at all.
 *
 * @param join given a left block and, lazily and in order, its right blocks
 */
class BlockPairRDD[T: ClassTag](
    left: RDD[Array[Block]],
    right: RDD[Array[Block]],
    tasks: Array[BlockPairTask],
    join: (Block, Iterator[Block]) => Iterator[T])
    extends RDD[T](
      left.sparkContext,
      Seq(
        new NarrowDependency(left) {
          def getParents(task: Int): Seq[Int] = tasks(task).leftPartitions
        },
        new NarrowDependency(right) {
          def getParents(task: Int): Seq[Int] = tasks(task).rightPartitions
        })) {

  override protected def getPartitions: Array[Partition] = tasks.toArray[Partition]

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val task = split.asInstanceOf[BlockPairTask]
    left.preferredLocations(left.partitions(task.pairs.head.left.partition))
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val task = split.asInstanceOf[BlockPairTask]
    val partitions = mutable.Map.empty[(RDD[_], Int), Array[Block]]
    def read(rdd: RDD[Array[Block]], ref: BlockRef): Block =
      partitions
        .getOrElseUpdate(
          (rdd, ref.partition),
          rdd.iterator(rdd.partitions(ref.partition), context).next())
        .apply(ref.index)
    task.pairs.iterator.flatMap { p =>
      join(read(left, p.left), p.rights.iterator.map(read(right, _)))
    }
  }
}

/** Chooses the block pairs to join and groups them into tasks. */
object BlockPairPlanner {

  /** The tasks to run, and how many block pairs were joined and pruned by their min/max ranges. */
  final case class Plan(tasks: Array[BlockPairTask], joinedPairs: Long, prunedPairs: Long)

  /**
   * Keeps each pair of non-empty blocks that `canMatch`. Consecutive left blocks share a task
   * until the task's estimated work (rows read over its pairs) reaches a `1 / (4 * parallelism)`
   * share of the total, so that small blocks do not each pay a task's overhead.
   *
   * @param left the statistics of each partition's blocks, in partition order
   */
  def plan(
      left: Array[Array[BlockStats]],
      right: Array[Array[BlockStats]],
      canMatch: (BlockStats, BlockStats) => Boolean,
      parallelism: Int): Plan = {
    def refs(stats: Array[Array[BlockStats]]) = for {
      (blocks, p) <- stats.zipWithIndex.toSeq
      (s, i) <- blocks.zipWithIndex if s.rows > 0
    } yield (BlockRef(p, i), s)
    val rightRefs = refs(right)
    val candidates = refs(left).map { case (ref, l) =>
      val partners = rightRefs.filter { case (_, r) => canMatch(l, r) }
      (BlockPairs(ref, partners.map(_._1).toArray), l.rows + partners.map(_._2.rows).sum)
    }
    val joined = candidates.map(_._1.rights.length.toLong).sum
    val considered = candidates.size.toLong * rightRefs.size
    val target = candidates.map(_._2).sum / (4.0 * parallelism)

    val tasks = mutable.ArrayBuffer.empty[BlockPairTask]
    val current = mutable.ArrayBuffer.empty[BlockPairs]
    var work = 0.0
    def flush(): Unit = if (current.nonEmpty) {
      tasks += BlockPairTask(tasks.size, current.toArray)
      current.clear()
      work = 0.0
    }
    candidates.foreach { case (pairs, cost) =>
      if (pairs.rights.nonEmpty) {
        current += pairs
        work += cost
        if (work >= target) flush()
      }
    }
    flush()
    Plan(tasks.toArray, joined, considered - joined)
  }
}

package rangejoin.execution

import scala.collection.mutable
import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/** A left block and the right blocks it is joined with. */
final case class BlockPairs(left: BlockRef, rights: Array[BlockRef])

/**
 * The left blocks of one task, each with all of its right partners. Keeping all pairs of a left
 * block in one task lets a left or full outer join decide, within the task, whether a left row
 * matched in any pair.
 */
final case class BlockPairGroup(pairs: Array[BlockPairs]) {
  def leftPartitions: Seq[Int] = pairs.map(_.left.partition).distinct.toSeq
  def rightPartitions: Seq[Int] = pairs.flatMap(_.rights.map(_.partition)).distinct.toSeq
}

/**
 * A task of [[BlockPairRDD]]. It carries the parents' partitions it reads, as `CartesianRDD`'s
 * partitions do: an RDD's partitions are not recomputed on executors.
 */
final class BlockPairTask(
    override val index: Int,
    val group: BlockPairGroup,
    val leftParents: Map[Int, Partition],
    val rightParents: Map[Int, Partition]
) extends Partition

/**
 * Runs `join` for each left block of each [[BlockPairGroup]], reading blocks from the parents'
 * partitions (the [[CachedBlocks]] of each input). A task reads only the blocks of its pairs; a
 * pruned block pair is never read at all.
 *
 * @param join given a left block and, lazily and in order, its right blocks
 */
class BlockPairRDD[T: ClassTag](
    left: RDD[Array[Block]],
    right: RDD[Array[Block]],
    groups: Array[BlockPairGroup],
    join: (Block, Iterator[Block]) => Iterator[T]
) extends RDD[T](
      left.sparkContext,
      Seq(
        new NarrowDependency(left) {
          def getParents(task: Int): Seq[Int] = groups(task).leftPartitions
        },
        new NarrowDependency(right) {
          def getParents(task: Int): Seq[Int] = groups(task).rightPartitions
        }
      )
    ) {

  override protected def getPartitions: Array[Partition] = groups.zipWithIndex.map {
    case (group, i) =>
      new BlockPairTask(
        i,
        group,
        group.leftPartitions.map(p => p -> left.partitions(p)).toMap,
        group.rightPartitions.map(p => p -> right.partitions(p)).toMap
      )
  }

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val task = split.asInstanceOf[BlockPairTask]
    left.preferredLocations(task.leftParents(task.group.pairs.head.left.partition))
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val task = split.asInstanceOf[BlockPairTask]
    val loaded = mutable.Map.empty[(Boolean, Int), Array[Block]]
    def read(isLeft: Boolean, ref: BlockRef): Block = {
      val blocks = loaded.getOrElseUpdate(
        (isLeft, ref.partition), {
          val (rdd, parents) = if (isLeft) (left, task.leftParents) else (right, task.rightParents)
          rdd.iterator(parents(ref.partition), context).next()
        }
      )
      blocks(ref.index)
    }
    task.group.pairs.iterator.flatMap { p =>
      join(read(isLeft = true, p.left), p.rights.iterator.map(read(isLeft = false, _)))
    }
  }
}

/** Chooses the block pairs to join and groups them into tasks. */
object BlockPairPlanner {

  /** The tasks to run, and how many block pairs were joined and pruned by their min/max ranges. */
  final case class Plan(tasks: Array[BlockPairGroup], joinedPairs: Long, prunedPairs: Long)

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
      parallelism: Int
  ): Plan = {
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

    val tasks = mutable.ArrayBuffer.empty[BlockPairGroup]
    val current = mutable.ArrayBuffer.empty[BlockPairs]
    var work = 0.0
    def flush(): Unit = if (current.nonEmpty) {
      tasks += BlockPairGroup(current.toArray)
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

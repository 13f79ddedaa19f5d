package rangejoin.execution

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/**
 * One task: a block of the left input joined with some blocks of the right input.
 * Grouping a task's pairs by their left block lets a left or full outer join decide, within the
 * task, whether a left row matched in any pair.
 */
final case class BlockPairTask(index: Int, leftBlock: Int, rightBlocks: Array[Int])
    extends Partition

/**
 * Runs `join` once per [[BlockPairTask]], reading the task's blocks from the parents' partitions
 * (one [[Block]] each). Blocks are read where they are needed, as `CartesianRDD` reads its two
 * parents; a pruned block pair is never read at all.
 *
 * @param join given the left block and, lazily and in task order, the right blocks
 */
class BlockPairRDD[T: ClassTag](
    left: RDD[Block],
    right: RDD[Block],
    tasks: Array[BlockPairTask],
    join: (Block, Iterator[Block]) => Iterator[T])
    extends RDD[T](
      left.sparkContext,
      Seq(
        new NarrowDependency(left) {
          def getParents(task: Int): Seq[Int] = Seq(tasks(task).leftBlock)
        },
        new NarrowDependency(right) {
          def getParents(task: Int): Seq[Int] = tasks(task).rightBlocks.toSeq
        })) {

  override protected def getPartitions: Array[Partition] = tasks.toArray[Partition]

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val task = split.asInstanceOf[BlockPairTask]
    left.preferredLocations(left.partitions(task.leftBlock))
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val task = split.asInstanceOf[BlockPairTask]
    def read(rdd: RDD[Block], block: Int): Block = rdd.iterator(rdd.partitions(block), context).next()
    join(read(left, task.leftBlock), task.rightBlocks.iterator.map(read(right, _)))
  }
}

/** Chooses the block pairs to join and groups them into tasks. */
object BlockPairPlanner {

  /** The tasks to run, and how many block pairs were joined and pruned by their min/max ranges. */
  final case class Plan(tasks: Array[BlockPairTask], joinedPairs: Long, prunedPairs: Long)

  /**
   * Keeps each pair of non-empty blocks that `canMatch`, and splits each left block's pairs into
   * tasks of at most `joined pairs / (2 * parallelism)` pairs, so that a left block with many
   * partners does not become one long task.
   */
  def plan(
      left: Array[BlockStats],
      right: Array[BlockStats],
      canMatch: (BlockStats, BlockStats) => Boolean,
      parallelism: Int): Plan = {
    val candidates = left.indices.map { l =>
      l -> right.indices.filter(r => canMatch(left(l), right(r))).toArray
    }
    val considered = left.count(_.rows > 0).toLong * right.count(_.rows > 0)
    val joined = candidates.map(_._2.length.toLong).sum
    val maxPairsPerTask = math.max(1, math.ceil(joined.toDouble / (2 * parallelism)).toInt)
    val groups = candidates.flatMap { case (l, rights) =>
      rights.grouped(maxPairsPerTask).map(group => (l, group))
    }
    val tasks = groups.zipWithIndex.map { case ((l, rights), i) => BlockPairTask(i, l, rights) }
    Plan(tasks.toArray, joined, considered - joined)
  }
}

package rangejoin.execution.blocks

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/** A stream block and the build blocks it is joined with. */
final case class BlockPairs(left: BlockRef, rights: Array[BlockRef])

/**
 * The stream blocks of one task, each with all of its build partners ("left" and "right" here
 * mean stream and build). Keeping all pairs of a stream block in one task lets an outer, semi,
 * anti or existence join decide, within the task, whether a stream row matched in any pair.
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
 * Runs `join` on the stream blocks of a task's [[BlockPairGroup]], each with its build blocks,
 * reading blocks from the parents' partitions (the [[CachedBlocks]] of each input): `left` is the
 * stream input, `right` the build input. A task reads only the partitions that hold blocks of
 * its pairs; a partition none of whose blocks is in a pair is never read.
 *
 * A task holds one stream block and one build block at a time ([[BlockCursor]]).
 *
 * @param join given the task's stream blocks, each with its build blocks, all read lazily and in
 *             order
 */
class BlockPairRDD[T: ClassTag](
    left: RDD[Block],
    right: RDD[Block],
    groups: Array[BlockPairGroup],
    join: Iterator[(Block, Iterator[Block])] => Iterator[T]
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
    InjectedFailures.failFirstAttempt()
    val streams = new BlockCursor(left, task.leftParents, context)
    val builds = new BlockCursor(right, task.rightParents, context)
    val pairs = task.group.pairs.iterator.map { p =>
      (streams.read(p.left), p.rights.iterator.map(builds.read))
    }
    join(pairs)
  }
}

/**
 * Reads blocks of one cached input by [[BlockRef]], holding only the last one read. A partition's
 * blocks are read front to back, so reading refs in ascending order reads each partition once; a
 * ref behind the last one reopens its partition.
 */
private final class BlockCursor(
    rdd: RDD[Block],
    parents: Map[Int, Partition],
    context: TaskContext
) {
  private var partition = -1
  private var blocks: Iterator[Block] = Iterator.empty
  private var index = -1 // of `current` in `partition`
  private var current: Block = _

  def read(ref: BlockRef): Block = {
    if (ref.partition != partition || ref.index < index) {
      partition = ref.partition
      blocks = rdd.iterator(parents(partition), context)
      index = -1
    }
    while (index < ref.index) {
      if (!blocks.hasNext) {
        // Blocks are deterministic for a deterministic input; an input recomputed with other
        // rows (an indeterminate stage after a failure) no longer matches the planned pairs.
        throw new IllegalStateException(
          s"Partition $partition of a range join input was rebuilt with ${index + 1} blocks, " +
            s"not the planned ${ref.index + 1} or more; its input changed between the load job " +
            "and this task. Rerun the query."
        )
      }
      current = blocks.next()
      index += 1
    }
    current
  }
}

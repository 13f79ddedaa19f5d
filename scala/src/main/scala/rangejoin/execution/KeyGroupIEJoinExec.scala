package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.SparkPlan

import rangejoin.execution.blocks.{Block, BlockStats, KeyColumn, KeyEncoder}
import rangejoin.execution.keyed.{KeyGroupLoader, KeyGroupMemory}
import rangejoin.execution.runtime.{BlockJoinRuntime, IEJoinLocal, LocalJoin}
import rangejoin.local.InequalityOp

/**
 * Equality keys plus two or more inequalities that do not form a window on one column pair, e.g.
 * the interval overlap `a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start`: both inputs
 * are clustered by the keys and sorted by them, and each key group runs the local IEJoin.
 *
 * Per key group, each side's rows are read into memory and cut into sorted
 * [[rangejoin.execution.blocks.Block]]s of at most `blockRows` rows
 * ([[rangejoin.execution.keyed.KeyGroupLoader]]), so a large group runs as many bounded block
 * pairs, and pairs whose min/max ranges cannot satisfy every inequality are skipped.
 * [[rangejoin.execution.runtime.BlockJoinRuntime]] then joins each stream block with its build
 * blocks exactly as [[IEJoinExec]] does, in the same passes, so NULL keys, ties and join types
 * behave the same; a full outer join's second pass runs per group. A group's memory is reserved
 * from the task's memory manager ([[rangejoin.execution.keyed.KeyGroupMemory]] over
 * [[rangejoin.execution.runtime.JoinMemory]]) as its rows are read, before the heap holds them, and
 * released once the group's output has been read: a key group too large for the task's memory fails
 * with an error naming `spark.rangejoin.blockRows` rather than exhausting the heap.
 *
 * Inequality `k` is `leftKeys(k) ops(k) rightKeys(k)`; there are at least two.
 */
case class KeyGroupIEJoinExec(
    leftEqualityKeys: Seq[Expression],
    rightEqualityKeys: Seq[Expression],
    leftKeys: Seq[Expression],
    ops: Seq[InequalityOp],
    rightKeys: Seq[Expression],
    residual: Option[Expression],
    joinType: JoinType,
    blockRows: Int,
    left: SparkPlan,
    right: SparkPlan,
    skewSplit: Boolean = false
) extends KeyClusteredJoinExec
    with InequalityJoinExec {
  require(ops.size >= 2, "KeyGroupIEJoinExec needs at least two inequalities")

  override protected def leftSortColumns: Seq[Expression] = Nil
  override protected def rightSortColumns: Seq[Expression] = Nil

  override protected def localKeys: Int = 2

  override protected def localJoin(ops: Seq[InequalityOp]): LocalJoin = IEJoinLocal(ops(0), ops(1))

  override def simpleString(maxFields: Int): String = {
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, keys $equalitiesString, ${inequalities.mkString("[", ", ", "]")}" +
      s"$rest, blockRows=$blockRows"
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val boundLeft = leftKeys.map(BindReferences.bindReference(_, left.output))
    val boundRight = rightKeys.map(BindReferences.bindReference(_, right.output))
    val encoders = boundLeft.map(k => KeyEncoder.forType(k.dataType))
    val orderings = encoders.map(KeyColumn.ordering)
    val rowsPerBlock = blockRows // a local, so that the task closure does not capture the node
    val runs = passes.map { p =>
      PassRun(p.streamIsLeft == streamIsLeft, streamOps(p), blockJoinRuntime(p))
    }
    val (streamSchema, streamKeys, buildSchema, buildKeys) =
      if (streamIsLeft) (left.output, boundLeft, right.output, boundRight)
      else (right.output, boundRight, left.output, boundLeft)

    perPartition { groups =>
      val streamLoader =
        new KeyGroupLoader(streamSchema, streamKeys, encoders, rowsPerBlock, ordersKey1)
      val buildLoader =
        new KeyGroupLoader(buildSchema, buildKeys, encoders, rowsPerBlock, ordersKey1)
      // Each stream block with the build blocks its min/max ranges can match.
      def joinBlocks(stream: GroupBlocks, build: GroupBlocks, run: PassRun) =
        run.runtime.join(stream.blocks.indices.iterator.map { s =>
          val partners = build.blocks.indices.iterator
            .filter(b => stream.stats(s).canMatch(build.stats(b), run.ops, orderings))
            .map(build.blocks)
          (stream.blocks(s), partners)
        })
      val memory = runs.head.runtime.memory
      groups.flatMap { g =>
        val groupMemory = new KeyGroupMemory(memory)
        val streamBlocks = GroupBlocks(streamLoader.load(g.stream, groupMemory))
        val buildBlocks = GroupBlocks(buildLoader.load(g.build, groupMemory))
        groupMemory.releaseUnused()
        runs.iterator.flatMap { run =>
          if (run.fromStreamSide) joinBlocks(streamBlocks, buildBlocks, run)
          else joinBlocks(buildBlocks, streamBlocks, run)
        } ++ { groupMemory.release(); Iterator.empty }
      }
    }
  }

  override def withSkewSplit(newLeft: SparkPlan, newRight: SparkPlan): KeyGroupIEJoinExec =
    copy(left = newLeft, right = newRight, skewSplit = true)

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : KeyGroupIEJoinExec = copy(left = newLeft, right = newRight)
}

/**
 * One pass of a key-grouped join: whether it streams the node's stream side, its ops as seen from
 * the side it streams, and its runtime.
 */
private final case class PassRun(
    fromStreamSide: Boolean,
    ops: Seq[InequalityOp],
    runtime: BlockJoinRuntime
)

/** One side's blocks of a key group, with each block's statistics. */
private final case class GroupBlocks(blocks: Array[Block]) {
  val stats: Array[BlockStats] = blocks.map(_.stats)
}

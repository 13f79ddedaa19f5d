package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import rangejoin.execution.blocks.{Block, BlockStats, KeyColumn, KeyEncoder}
import rangejoin.execution.keyed.{KeyGroupLoader, KeyGroupMemory}
import rangejoin.execution.runtime.{BlockJoinRuntime, IEJoinLocal, LocalJoin}
import rangejoin.local.InequalityOp

/**
 * Equality keys plus two or more inequalities that do not form a window on one column pair, e.g.
 * the interval overlap `a.chrom = b.chrom AND a.start <= b.end AND a.end >= b.start`: both inputs
 * are clustered by the keys and sorted by them, and each key group runs the local IEJoin.
 *
 * Per key group, each side's rows are read into memory and cut into sorted [[Block]]s of at most
 * `blockRows` rows ([[KeyGroupLoader]]), so a large group runs as many bounded block pairs, and
 * pairs whose min/max ranges cannot satisfy every inequality are skipped. [[BlockJoinRuntime]]
 * then joins each stream block with its build blocks exactly as [[IEJoinExec]] does, in the same
 * passes, so NULL keys, ties and join types behave the same; a full outer join's second pass runs
 * per group. A group's memory is reserved from the task's memory manager ([[KeyGroupMemory]]
 * over [[JoinMemory]]) as its rows are read, before the heap holds them, and released once the
 * group's output has been read: a key group too large for the task's memory fails with an error
 * naming `spark.rangejoin.blockRows` rather than exhausting the heap.
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

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "localJoinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "local join time"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory")
  )

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
    // Per pass: whether it streams this node's stream side, its ops so oriented, its runtime.
    val runs = passes.map(p => (p.streamIsLeft == streamIsLeft, streamOps(p), blockJoinRuntime(p)))
    val (streamSchema, streamKeys, buildSchema, buildKeys) =
      if (streamIsLeft) (left.output, boundLeft, right.output, boundRight)
      else (right.output, boundRight, left.output, boundLeft)

    perPartition { groups =>
      val streamLoader = new KeyGroupLoader(streamSchema, streamKeys, encoders, rowsPerBlock)
      val buildLoader = new KeyGroupLoader(buildSchema, buildKeys, encoders, rowsPerBlock)
      // A stream side's blocks with their statistics, joined with a build side's.
      def joinBlocks(
          stream: (Array[Block], Array[BlockStats]),
          build: (Array[Block], Array[BlockStats]),
          ops: Seq[InequalityOp],
          run: BlockJoinRuntime
      ): Iterator[InternalRow] = {
        val (buildBlocks, buildStats) = build
        stream._1.indices.iterator.flatMap { s =>
          val partners = buildBlocks.indices.iterator
            .filter(b => stream._2(s).canMatch(buildStats(b), ops, orderings))
            .map(buildBlocks)
          run.join(stream._1(s), partners)
        }
      }
      def withStats(blocks: Array[Block]) = (blocks, blocks.map(_.stats))
      val memory = runs.head._3.memory
      groups.flatMap { g =>
        val groupMemory = new KeyGroupMemory(memory)
        val streamBlocks = withStats(streamLoader.load(g.stream, groupMemory))
        val buildBlocks = withStats(buildLoader.load(g.build, groupMemory))
        groupMemory.releaseUnused()
        runs.iterator.flatMap { case (fromStreamSide, ops, run) =>
          if (fromStreamSide) joinBlocks(streamBlocks, buildBlocks, ops, run)
          else joinBlocks(buildBlocks, streamBlocks, ops, run)
        } ++ { groupMemory.release(); Iterator.empty }
      }
    }
  }

  override def withSkewSplit(newLeft: SparkPlan, newRight: SparkPlan): KeyGroupIEJoinExec =
    copy(left = newLeft, right = newRight, skewSplit = true)

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan)
      : KeyGroupIEJoinExec = copy(left = newLeft, right = newRight)
}

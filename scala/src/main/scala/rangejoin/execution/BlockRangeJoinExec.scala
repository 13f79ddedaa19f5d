package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.plans.physical.{
  Partitioning,
  RangePartitioning,
  UnknownPartitioning
}
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import rangejoin.execution.blocks.{
  BlockLoader,
  BlockPairPlanner,
  BlockPairRDD,
  CachedBlocks,
  KeyColumn,
  KeyEncoder
}
import rangejoin.execution.runtime.JoinPass

/**
 * A join on inequalities run over pairs of sorted blocks; the operators differ only in the local
 * join they run on a block pair ([[LocalJoin]]).
 *
 * A large child is range-partitioned on the first inequality's key (the strategy puts the
 * exchange below this node); a small one is coalesced. Execution:
 *  1. one job per side sorts each partition through Spark's external sorter, cuts it into
 *     blocks ([[BlockLoader]]), caches them in Spark's block manager ([[CachedBlocks]]) and
 *     returns every block's min/max of every inequality key ([[BlockStats]]); a self-join does
 *     this once;
 *  1. block pairs that cannot satisfy all inequalities are pruned ([[BlockPairPlanner]]);
 *  1. each task takes whole stream blocks, each with all of its remaining build blocks, runs the
 *     local join per block pair, checks the further inequalities and the `residual` on the
 *     pairs it emits, and outputs by join type ([[BlockJoinRuntime]]).
 *
 * The stream side is the left input, except for a right outer join. A full outer join runs two
 * passes: left outer, then the right rows that matched nothing.
 *
 * Memory: the sort spills through the task memory manager ("spill size"); cached blocks that do
 * not fit in storage memory are on local disk ("sorted blocks on disk", read on the driver once
 * both sides are loaded); a block-pair task holds one block per side and reserves its local
 * join's arrays ([[JoinMemory]]; "peak memory" adds the load sorts' and the tasks' peaks).
 */
trait BlockRangeJoinExec extends InequalityJoinExec {
  def blockRows: Int

  /** Rows a load task sorts in memory before it spills them ([[BlockLoader]]). */
  def sortSpillRows: Int

  override def output: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def outputPartitioning: Partitioning = UnknownPartitioning(0)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "blockPairs" -> SQLMetrics.createMetric(sparkContext, "block pairs joined"),
    "prunedBlockPairs" -> SQLMetrics.createMetric(sparkContext, "block pairs pruned"),
    "localJoinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "local join time"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "blocksOnDisk" -> SQLMetrics.createSizeMetric(sparkContext, "sorted blocks on disk"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory")
  )

  override def simpleString(maxFields: Int): String = {
    val conds = inequalities.mkString("[", ", ", "]")
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, $conds$rest, $strategyDescription"
  }

  /** How this node runs, for EXPLAIN. */
  protected def strategyDescription: String = s"blockRows=$blockRows"

  override protected def doExecute(): RDD[InternalRow] = {
    val boundLeft = bind(leftKeys, left.output)
    val boundRight = bind(rightKeys, right.output)
    val encoders = boundLeft.map(k => KeyEncoder.forType(k.dataType))
    def cached(child: SparkPlan, keys: Seq[Expression]) = CachedBlocks(
      blockInput(child),
      new BlockLoader(child.output, keys, encoders, blockRows, sortSpillRows),
      longMetric("spillSize"),
      longMetric("peakMemory")
    )
    val leftBlocks = cached(left, boundLeft)
    // A self-join on the same keys reads and caches its (reused) input once.
    val selfJoin = left.sameResult(right) && boundLeft == boundRight
    val rightBlocks = if (selfJoin) leftBlocks else cached(right, boundRight)
    // Both sides' load jobs run at once: each may have fewer tasks than there are cores.
    val leftLoad = leftBlocks.load()
    val rightLoad = if (selfJoin) leftLoad else rightBlocks.load()
    val leftStats = leftLoad.get().toArray
    val rightStats = rightLoad.get().toArray
    metrics("blocksOnDisk").add(CachedBlocks.bytesOnDisk(Seq(leftBlocks, rightBlocks)))
    val orderings = encoders.map(KeyColumn.ordering)

    def run(pass: JoinPass): RDD[InternalRow] = {
      val ops = streamOps(pass)
      val plan = BlockPairPlanner.plan(
        if (pass.streamIsLeft) leftStats else rightStats,
        if (pass.streamIsLeft) rightStats else leftStats,
        (s, b) => s.canMatch(b, ops, orderings),
        keepUnpaired = pass.emit.unmatched,
        sparkContext.defaultParallelism
      )
      metrics("blockPairs").add(plan.joinedPairs)
      metrics("prunedBlockPairs").add(plan.prunedPairs)
      val runtime = blockJoinRuntime(pass)
      val (stream, build) =
        if (pass.streamIsLeft) (leftBlocks, rightBlocks) else (rightBlocks, leftBlocks)
      new BlockPairRDD(stream.blocks, build.blocks, plan.tasks, runtime.join)
    }

    val result = passes.map(run).reduce(_ union _)
    SQLMetrics.postDriverMetricUpdates(
      sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY),
      Seq(metrics("blockPairs"), metrics("prunedBlockPairs"), metrics("blocksOnDisk"))
    )
    result
  }

  /**
   * The rows of `child` in the partitions to cut into blocks: as they are when the strategy
   * range-partitioned the side, else coalesced (without a shuffle) to at most the default
   * parallelism, which bounds the number of block pairs of a small side.
   */
  private def blockInput(child: SparkPlan): RDD[InternalRow] = child.outputPartitioning match {
    case _: RangePartitioning => child.execute()
    case _ => child.execute().coalesce(sparkContext.defaultParallelism)
  }

  protected def bind(keys: Seq[Expression], input: Seq[Attribute]): Seq[Expression] =
    keys.map(BindReferences.bindReference(_, input))
}

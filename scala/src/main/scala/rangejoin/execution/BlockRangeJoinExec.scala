package rangejoin.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetrics

import rangejoin.execution.blocks.{
  BlockLoader,
  BlockPairPlanner,
  BlockPairRDD,
  CachedBlocks,
  KeyColumn,
  KeyEncoder
}
import rangejoin.execution.runtime.{BlockJoinRuntime, JoinPass}

/**
 * A join on inequalities run over pairs of sorted blocks; the operators differ only in the local
 * join they run on a block pair ([[rangejoin.execution.runtime.LocalJoin]]).
 *
 * Each input is prepared as the planner decided ([[BlockInput]]): a large one is range-partitioned
 * on the first inequality's key by an exchange below this node, a small one is coalesced.
 * Execution, once an action asks for the join's partitions ([[DeferredRDD]]; building the plan,
 * `explain()` and `df.rdd` run no job):
 *  1. one job per side sorts each partition (in memory, or through Spark's external sorter when
 *     it does not fit), cuts it into blocks ([[rangejoin.execution.blocks.BlockLoader]]), caches
 *     them in Spark's block manager ([[rangejoin.execution.blocks.CachedBlocks]]) and returns
 *     every block's min/max of every inequality key
 *     ([[rangejoin.execution.blocks.BlockStats]]); a self-join does this once ([[RightBlocks]]);
 *  1. block pairs that cannot satisfy all inequalities are pruned
 *     ([[rangejoin.execution.blocks.BlockPairPlanner]]);
 *  1. each task takes whole stream blocks, each with all of its remaining build blocks, runs the
 *     local join per block pair, checks the further inequalities and the `residual` on the
 *     pairs it emits, and outputs by join type ([[rangejoin.execution.runtime.BlockJoinRuntime]]).
 *
 * The stream side is the left input, except for a right outer join. A full outer join runs two
 * passes: left outer, then the right rows that matched nothing.
 *
 * Memory: the sort spills through the task memory manager ("spill size"); cached blocks that do
 * not fit in storage memory are on local disk ("sorted blocks on disk", read on the driver once
 * both sides are loaded); a block-pair task holds one block per side and reserves its local
 * join's arrays ([[rangejoin.execution.runtime.JoinMemory]]; "peak memory" adds the load sorts' and
 * the tasks' peaks).
 */
trait BlockRangeJoinExec extends InequalityJoinExec {
  def blockRows: Int

  /** How each input reaches the block loader, as the planner decided. */
  def leftInput: BlockInput
  def rightInput: BlockInput

  /**
   * Rows a load task sorts in memory before it spills them
   * ([[rangejoin.execution.blocks.BlockLoader]]).
   */
  def sortSpillRows: Int

  override def output: Seq[Attribute] = JoinOutput(joinType, left.output, right.output)

  override def outputPartitioning: Partitioning = UnknownPartitioning(0)

  override protected def reportedMetrics: Seq[JoinMetric] = Seq(
    JoinMetric.NumOutputRows,
    JoinMetric.BlockPairs,
    JoinMetric.PrunedBlockPairs,
    JoinMetric.LocalJoinTime,
    JoinMetric.SpillSize,
    JoinMetric.BlocksOnDisk,
    JoinMetric.PeakMemory
  )

  override def simpleString(maxFields: Int): String = {
    val conds = inequalities.mkString("[", ", ", "]")
    val rest = residual.map(r => s", residual: ${r.sql}").getOrElse("")
    s"$nodeName $joinType, $conds$rest, $strategyDescription"
  }

  /** How this node runs, for EXPLAIN. */
  protected def strategyDescription: String =
    s"blockRows=$blockRows, left ${describe(left, leftInput, leftKeys)}, right " +
      (rightBlocksReuse match {
        case RightBlocks.Own => describe(right, rightInput, rightKeys)
        case RightBlocks.LeftSame => "the left's blocks (self-join)"
        case RightBlocks.LeftKeysSwapped => "the left's blocks, keys 0 and 1 swapped (self-join)"
      })

  override protected def doExecute(): RDD[InternalRow] = joinedRows(projected = true)

  /**
   * The output rows as views of each pair instead of unsafe rows, each valid until the next row
   * is read: for the generated code of [[BlockJoinOutputExec]], which reads the columns it needs
   * from them at once.
   */
  def executeUnprojected(): RDD[InternalRow] = executeQuery(joinedRows(projected = false))

  private def joinedRows(projected: Boolean): RDD[InternalRow] = {
    val boundLeft = bind(leftKeys, left.output)
    val boundRight = bind(rightKeys, right.output)
    val encoders = boundLeft.map(k => KeyEncoder.forType(k.dataType))
    val leftRows = inputRows(left, leftInput, boundLeft)
    val reuse = rightBlocksReuse
    val rightRows =
      if (reuse == RightBlocks.Own) inputRows(right, rightInput, boundRight) else leftRows
    val loader = (keys: Seq[Expression], schema: Seq[Attribute]) =>
      new BlockLoader(schema, keys, encoders, blockRows, sortSpillRows, ordersKey1)
    val keysSwapped = reuse == RightBlocks.LeftKeysSwapped
    val runtimes = passes.map(p => p -> blockJoinRuntime(p, projected, keysSwapped))
    new DeferredRDD(
      sparkContext,
      () => {
        def cached(rows: InputRows[_], keys: Seq[Expression], schema: Seq[Attribute]) =
          rows.blocks(loader(keys, schema))
        val leftBlocks = cached(leftRows, boundLeft, left.output)
        val rightBlocks =
          if (reuse == RightBlocks.Own) cached(rightRows, boundRight, right.output) else leftBlocks
        joinBlockPairs(leftBlocks, rightBlocks, keysSwapped, encoders, runtimes)
      }
    )
  }

  /**
   * Driver side, when the join's partitions are first asked for ([[DeferredRDD]]): loads both
   * inputs' blocks, plans each pass's block pairs from their statistics, and returns the RDD of
   * the block-pair tasks.
   */
  private def joinBlockPairs(
      leftBlocks: CachedBlocks,
      rightBlocks: CachedBlocks,
      rightKeysSwapped: Boolean,
      encoders: Seq[KeyEncoder],
      runtimes: Seq[(JoinPass, BlockJoinRuntime)]
  ): RDD[InternalRow] = {
    // Both sides' load jobs run at once: each may have fewer tasks than there are cores. If
    // waiting for them fails (a load failed, or this thread was interrupted), neither is left
    // running: Spark does not cancel the jobs of a thread that stops waiting for them.
    val leftLoad = leftBlocks.load()
    val rightLoad = if (rightBlocks eq leftBlocks) leftLoad else rightBlocks.load()
    val (leftStats, rightLoaded) =
      try {
        val leftLoaded = leftLoad.get().toArray
        (leftLoaded, rightLoad.get().toArray)
      } catch {
        case e: Throwable =>
          leftLoad.cancel()
          rightLoad.cancel()
          throw e
      }
    val rightStats = if (rightKeysSwapped) leftStats.map(_.map(_.keys01Swapped)) else rightLoaded
    metric(JoinMetric.BlocksOnDisk).add(CachedBlocks.bytesOnDisk(Seq(leftBlocks, rightBlocks)))
    val orderings = encoders.map(KeyColumn.ordering)
    val result = runtimes
      .map { case (pass, runtime) =>
        val ops = streamOps(pass)
        val plan = BlockPairPlanner.plan(
          if (pass.streamIsLeft) leftStats else rightStats,
          if (pass.streamIsLeft) rightStats else leftStats,
          (s, b) => s.canMatch(b, ops, orderings),
          keepUnpaired = pass.emit.unmatched,
          sparkContext.defaultParallelism,
          minTaskWork = BlockPairPlanner.MinTaskBlocks.toLong * blockRows
        )
        metric(JoinMetric.BlockPairs).add(plan.joinedPairs)
        metric(JoinMetric.PrunedBlockPairs).add(plan.prunedPairs)
        val (stream, build) =
          if (pass.streamIsLeft) (leftBlocks, rightBlocks) else (rightBlocks, leftBlocks)
        new BlockPairRDD(stream.blocks, build.blocks, plan.tasks, runtime.join)
      }
      .reduce[RDD[InternalRow]](_ union _)
    SQLMetrics.postDriverMetricUpdates(
      sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY),
      Seq(
        metric(JoinMetric.BlockPairs),
        metric(JoinMetric.PrunedBlockPairs),
        metric(JoinMetric.BlocksOnDisk)
      )
    )
    result
  }

  /** Whether the right input is the left one ([[RightBlocks]]). */
  private lazy val rightBlocksReuse: RightBlocks =
    RightBlocks.of(left, right, leftKeys, rightKeys, swappable = localKeys == 2)

  /**
   * The partitions of `child` to cut into blocks, as the planner prepared them ([[BlockInput]]):
   * its rows, or a columnar scan's batches below it.
   */
  private def inputRows(child: SparkPlan, input: BlockInput, keys: Seq[Expression])
      : InputRows[_] = {
    def coalesced[T](partitions: RDD[T]) = partitions.coalesce(sparkContext.defaultParallelism)
    (input, columnBatchScan(child, input, keys)) match {
      case (BlockInput.Coalesced(_), Some(scan)) =>
        new InputRows(coalesced(scan.batches), scan.rows)
      case (BlockInput.RangePartitioned, _) => new InputRows[InternalRow](child.execute(), identity)
      case _ => new InputRows[InternalRow](coalesced(child.execute()), identity)
    }
  }

  /**
   * The columnar scan whose batches stand for `child`'s rows, if `input` reads one and the
   * `keys` (bound to `child`'s output) are its columns: the loader takes a batch at a time only
   * then, and other keys are projected from each row.
   */
  private def columnBatchScan(child: SparkPlan, input: BlockInput, keys: Seq[Expression])
      : Option[ColumnBatchScan] = input match {
    case BlockInput.Coalesced(true) if keys.forall(_.isInstanceOf[BoundReference]) =>
      ColumnBatchScan.of(child)
    case _ => None
  }

  /** How an input with `keys` is described in EXPLAIN. */
  private def describe(child: SparkPlan, input: BlockInput, keys: Seq[Expression]): String = {
    val batches = columnBatchScan(child, input, bind(keys, child.output)).isDefined
    input.description + (if (batches) ", column batches" else "")
  }

  /** An input's partitions, and how a task turns one into rows. */
  private final class InputRows[T](partitions: RDD[T], rows: Iterator[T] => Iterator[InternalRow]) {

    /** Its blocks, cut by `loader`; nothing runs until they are loaded. */
    def blocks(loader: BlockLoader): CachedBlocks = CachedBlocks(
      partitions,
      rows,
      loader,
      metric(JoinMetric.SpillSize),
      metric(JoinMetric.PeakMemory)
    )
  }

  private def bind(keys: Seq[Expression], input: Seq[Attribute]): Seq[Expression] =
    keys.map(BindReferences.bindReference(_, input))
}

package rangejoin.planning

import org.apache.spark.SparkContext
import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, Murmur3Hash, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.exchange.{REPARTITION_BY_NUM, ShuffleExchangeExec}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.config.RangeJoinConf
import rangejoin.execution.BlockInput

/** One input of a block join as the planner prepared it: the decision and the plan that does it. */
private[planning] final case class PreparedInput(input: BlockInput, plan: SparkPlan)

/**
 * Decides how each input of a block join reaches the block loader
 * ([[rangejoin.execution.BlockInput]]). An input estimated at fewer than
 * `spark.rangejoin.rangePartitionMinRows` rows is not shuffled (the operator coalesces it), nor
 * is a micro-batch of a stream: range partitioning samples its input with a job of its own
 * before the shuffle reads it, so the batch's source would be read twice and its progress would
 * count every input row twice. A larger one is coalesced all the same on few cores when each
 * task's share is small enough (`spark.rangejoin.coalesce.maxParallelism`,
 * `spark.rangejoin.coalesce.maxMemoryFraction`): range partitioning reads it twice and shuffles
 * it, while coalesced blocks meet blocks of every partition of the other side, which costs
 * little while there are few. Otherwise it is range-partitioned on `key` into max(default
 * parallelism, estimated rows / `blockRows`) partitions, at most `spark.sql.shuffle.partitions`,
 * so that blocks of different partitions cover key ranges that overlap at most at their ends;
 * the shuffle origin keeps adaptive execution from coalescing them.
 */
private[planning] object BlockInputPlanning {

  /**
   * @param key the input's first inequality key
   * @param child the input's logical plan, for its size estimate
   * @param planned the input's physical plan
   */
  def prepare(
      key: Expression,
      child: LogicalPlan,
      planned: SparkPlan,
      sc: SparkContext,
      conf: SQLConf
  ): PreparedInput = {
    val rows = SizeEstimates.rows(child)
    val small = rows < RangeJoinConf.RangePartitionMinRows.get(conf)
    if (child.isStreaming || small || coalescible(child, sc, conf)) {
      PreparedInput(BlockInput.Coalesced(RangeJoinConf.ColumnBatchesEnabled.get(conf)), planned)
    } else {
      val wanted = (rows / RangeJoinConf.BlockRows.get(conf) + 1).min(Int.MaxValue).toInt
      val partitions = wanted.max(sc.defaultParallelism).min(conf.numShufflePartitions)
      // Ties on the key are ordered by a hash of the row, so the rows of one very frequent key
      // value spread over several partitions instead of loading in a single task.
      val hashable =
        child.output.filter(a => new Murmur3Hash(Seq(a)).checkInputDataTypes().isSuccess)
      val tieBreak =
        if (hashable.isEmpty) Nil else Seq(SortOrder(new Murmur3Hash(hashable), Ascending))
      val exchange = ShuffleExchangeExec(
        RangePartitioning(SortOrder(key, Ascending) +: tieBreak, partitions),
        planned,
        REPARTITION_BY_NUM
      )
      // The exchange stands for its input, not for the join: under adaptive execution its
      // stage then replaces the input in the logical plan that is re-planned on runtime sizes,
      // and the join itself is decided again (it would otherwise inherit the join's link, and
      // the finished stage would freeze the join as planned on estimates).
      exchange.setLogicalLink(child)
      PreparedInput(BlockInput.RangePartitioned, exchange)
    }
  }

  /**
   * Whether a large side is cheaper coalesced than range-partitioned: on few cores, and when
   * each task's share of it, by Spark's size estimate, is a small fraction
   * (`spark.rangejoin.coalesce.maxMemoryFraction`) of a task's share of an executor's memory
   * ([[memoryPerTask]]): one task loads the share, spilling when the memory manager refuses it.
   */
  private def coalescible(child: LogicalPlan, sc: SparkContext, conf: SQLConf): Boolean = {
    val parallelism = sc.defaultParallelism.max(1)
    parallelism <= RangeJoinConf.CoalesceMaxParallelism.get(conf) &&
    BigDecimal(child.stats.sizeInBytes) / parallelism <=
      BigDecimal(memoryPerTask(sc)) * RangeJoinConf.CoalesceMaxMemoryFraction.get(conf)
  }

  /**
   * A task's share of the execution and storage memory of the smallest executor: its block
   * manager's largest storage memory (Spark's unified region) over the task slots of one
   * executor. The driver's block manager is among them, and in local mode it is the executor.
   */
  private def memoryPerTask(sc: SparkContext): Long = {
    val memories = sc.getExecutorMemoryStatus.values.map(_._1)
    val executors = if (sc.isLocal) 1 else (memories.size - 1).max(1)
    memories.min / (sc.defaultParallelism / executors).max(1)
  }
}

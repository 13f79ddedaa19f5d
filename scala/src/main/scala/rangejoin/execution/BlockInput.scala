package rangejoin.execution

/**
 * How one input of a block join reaches the block loader. The planner decides it from the
 * input's estimated size and, for [[BlockInput.RangePartitioned]], puts the exchange below the
 * join itself; the operator reads this field and never infers the choice from its child's
 * partitioning.
 */
sealed abstract class BlockInput(val description: String) extends Serializable

object BlockInput {

  /**
   * An input not shuffled (small, or large on few cores): its partitions as they come,
   * coalesced without a shuffle to at most the default parallelism, which bounds the number of
   * block pairs. With `readsColumnBatches`, a columnar scan's batches are read in place of its
   * rows where the operator finds one below ([[ColumnBatchScan]]).
   */
  final case class Coalesced(readsColumnBatches: Boolean) extends BlockInput("coalesced")

  /**
   * A large input, range-partitioned on the first inequality's key by the exchange below the
   * join: blocks of different partitions cover key ranges that overlap at most at their ends, so
   * most block pairs are pruned.
   */
  case object RangePartitioned extends BlockInput("range-partitioned")
}

package org.apache.spark.sql.execution.rangejoin

import java.util.function.Supplier

import org.apache.spark.{SparkConf, SparkEnv, TaskContext}
import org.apache.spark.internal.config
import org.apache.spark.memory.TaskMemoryManager
import org.apache.spark.serializer.SerializerManager
import org.apache.spark.storage.BlockManager
import org.apache.spark.util.collection.unsafe.sort.{
  PrefixComparator,
  RecordComparator,
  UnsafeExternalSorter
}

/**
 * Spark's external sorter for the current task, set up as Spark's own row sorter sets it up: its
 * pages come from the task's memory manager, and it spills sorted runs to local disk when the
 * memory manager asks or when it holds `spillRows` records. This object exists because the
 * settings Spark reads (`spark.shuffle.spill.*`, the sorter's merge factor) are private to Spark.
 */
object ExternalSorters {

  /**
   * A sorter comparing records by `prefix` first and, among equal prefixes, by `records`. Radix
   * sort is off: it would order by the prefix alone.
   *
   * @param spillRows spill once this many records are held; Spark's own
   *                  `spark.shuffle.spill.numElementsForceSpillThreshold` applies when lower
   */
  def create(
      records: () => RecordComparator,
      prefix: PrefixComparator,
      spillRows: Int
  ): UnsafeExternalSorter = {
    val env = SparkEnv.get
    SorterArguments.create(
      SorterSetup(
        env,
        TaskContext.get(),
        () => records(),
        prefix,
        env.conf.get(config.SHUFFLE_SORT_INIT_BUFFER_SIZE).toInt,
        env.memoryManager.pageSizeBytes,
        math.min(spillRows, env.conf.get(config.SHUFFLE_SPILL_NUM_ELEMENTS_FORCE_SPILL_THRESHOLD))
      )
    )
  }
}

/**
 * What every Spark version's `UnsafeExternalSorter.create` takes; `SorterArguments` (a shim, one
 * per Spark line) adds what its version takes besides, read from `conf`.
 */
private[rangejoin] final case class SorterSetup(
    env: SparkEnv,
    context: TaskContext,
    records: Supplier[RecordComparator],
    prefix: PrefixComparator,
    initialSize: Int,
    pageBytes: Long,
    spillRows: Int
) {
  def conf: SparkConf = env.conf
  def memory: TaskMemoryManager = context.taskMemoryManager()
  def blockManager: BlockManager = env.blockManager
  def serializerManager: SerializerManager = env.serializerManager
}

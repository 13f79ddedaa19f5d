package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.internal.config
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
    val context = TaskContext.get()
    UnsafeExternalSorter.create(
      context.taskMemoryManager(),
      env.blockManager,
      env.serializerManager,
      context,
      () => records(),
      prefix,
      env.conf.get(config.SHUFFLE_SORT_INIT_BUFFER_SIZE).toInt,
      env.memoryManager.pageSizeBytes,
      math.min(spillRows, env.conf.get(config.SHUFFLE_SPILL_NUM_ELEMENTS_FORCE_SPILL_THRESHOLD)),
      env.conf.get(config.SHUFFLE_SPILL_MAX_SIZE_FORCE_SPILL_THRESHOLD),
      env.conf.get(config.UNSAFE_SORTER_SPILL_MERGE_FACTOR),
      false
    )
  }
}

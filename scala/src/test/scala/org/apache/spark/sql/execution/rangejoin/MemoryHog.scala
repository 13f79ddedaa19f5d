package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.TaskContext
import org.apache.spark.memory.{MemoryConsumer, MemoryMode}
import org.apache.spark.sql.SparkSession

/**
 * Holds all of the current task's execution memory but `leave` bytes and spills none of it, so
 * that what runs next in the task meets a memory manager that refuses it early. Call [[release]]
 * before the task ends.
 */
final class MemoryHog(leave: Long)
    extends MemoryConsumer(TaskContext.get().taskMemoryManager(), MemoryMode.ON_HEAP) {
  freeMemory(math.min(leave, acquireMemory(Long.MaxValue / 4)))

  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L

  def release(): Unit = freeMemory(getUsed)
}

object MemoryHog {

  /** The page size of Spark's external sorter in `spark`: the least it needs to start. */
  def pageBytes(spark: SparkSession): Long = spark.sparkContext.env.memoryManager.pageSizeBytes
}

package org.apache.spark.sql.execution.rangejoin

import org.apache.spark.TaskContext
import org.apache.spark.memory.TaskMemoryManager

/** The parts of a task's memory accounting that Spark keeps private to its own packages. */
object TaskMemory {

  /** The memory manager that memory consumers of `context`'s task register with. */
  def manager(context: TaskContext): TaskMemoryManager = context.taskMemoryManager()

  /** Reports `bytes` as a peak of execution memory in the task's metrics (the stage UI). */
  def reportPeak(context: TaskContext, bytes: Long): Unit =
    context.taskMetrics().incPeakExecutionMemory(bytes)
}

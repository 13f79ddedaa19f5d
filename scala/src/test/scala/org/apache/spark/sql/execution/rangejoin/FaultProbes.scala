package org.apache.spark.sql.execution.rangejoin

import java.io.File

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.storage.{BlockId, RDDBlockId}

/**
 * What the fault tests look at in a SparkContext: what a query may leave behind once its jobs
 * have ended (execution memory, cached RDD blocks, local files) and the executors. In this
 * package because the memory manager, the block manager, the listener bus and the executor ids
 * are private to Spark.
 */
object FaultProbes {

  /** Execution memory held in this JVM (the driver's; in local mode, the executor's too). */
  def executionMemoryUsed(): Long = SparkEnv.get.memoryManager.executionMemoryUsed

  /** The RDD blocks that any block manager of `sc` holds, as the block manager master sees them. */
  def rddBlocks(sc: SparkContext): Seq[BlockId] =
    sc.env.blockManager.master
      .getMatchingBlockIds(_.isInstanceOf[RDDBlockId], askStorageEndpoints = true)
      .toSeq

  /**
   * The files in this JVM's local directories (the block manager's `blockmgr-*` folders) whose
   * names start with one of `prefixes`: `temp_local_` for spill files, `rdd_` for cached blocks
   * on disk.
   */
  def localFiles(prefixes: String*): Seq[File] = {
    def walk(f: File): Seq[File] =
      if (f.isDirectory) Option(f.listFiles()).toSeq.flatten.flatMap(walk) else Seq(f)
    SparkEnv.get.blockManager.diskBlockManager.localDirs.toSeq
      .flatMap(walk)
      .filter(f => prefixes.exists(f.getName.startsWith))
  }

  /** Waits until the listener bus of `sc` has delivered every event posted so far. */
  def drainListenerBus(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()

  /** The ids of the executors `sc` has now, the driver left out. */
  def executorIds(sc: SparkContext): Seq[String] = sc.getExecutorIds()
}

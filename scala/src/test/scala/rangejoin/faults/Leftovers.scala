package rangejoin.faults

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.sql.execution.rangejoin.FaultProbes

/**
 * What a query must not leave behind once its jobs have ended, whether they succeeded, failed or
 * were cancelled: execution memory held, spill files in the local directories, and cached blocks
 * of the plugin (its sorted blocks are dropped once the query has ended and no task of its jobs
 * runs).
 */
object Leftovers {

  /** What one executor (in local mode, the driver) holds now. */
  final case class Held(executor: String, executionMemory: Long, spillFiles: Seq[String]) {
    def clean: Boolean = executionMemory == 0 && spillFiles.isEmpty
  }

  /**
   * What each executor of `sc` holds, asked by a small job whose tasks land on every executor
   * (retried until they do).
   */
  def held(sc: SparkContext): Seq[Held] = {
    val executors = FaultProbes.executorIds(sc).toSet
    val slots = math.max(executors.size, 1) * 4
    var found = Map.empty[String, Held]
    Waits.until("a probe task on every executor") {
      found ++= sc
        .parallelize(0 until slots, slots)
        .mapPartitions { _ =>
          Thread.sleep(20)
          val files = FaultProbes.localFiles("temp_local_").map(_.getName)
          Iterator(Held(SparkEnv.get.executorId, FaultProbes.executionMemoryUsed(), files))
        }
        .collect()
        .map(h => h.executor -> h)
      executors.isEmpty || executors.subsetOf(found.keySet)
    }
    found.values.toSeq
  }

  /** The plugin's cached blocks that any block manager of `sc` holds. */
  def pluginBlocks(sc: SparkContext, keep: Set[Int] = Set.empty): Seq[String] =
    FaultProbes
      .rddBlocks(sc)
      .collect { case b: org.apache.spark.storage.RDDBlockId if !keep(b.rddId) => b.name }

  /**
   * Waits (up to a minute) until no executor of `sc` holds execution memory or spill files, and no
   * cached block is left but those of the RDDs `keep`; fails saying what is left.
   */
  def assertNone(sc: SparkContext, keep: Set[Int] = Set.empty): Unit = {
    var last: (Seq[Held], Seq[String]) = (Nil, Nil)
    try
      Waits.until("no leftovers") {
        last = (held(sc), pluginBlocks(sc, keep))
        last._1.forall(_.clean) && last._2.isEmpty
      }
    catch {
      case e: AssertionError =>
        throw new AssertionError(
          s"${e.getMessage}: held ${last._1.filterNot(_.clean)}, cached blocks ${last._2}",
          e
        )
    }
  }
}

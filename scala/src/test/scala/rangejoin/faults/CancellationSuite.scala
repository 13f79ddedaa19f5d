package rangejoin.faults

import java.util.concurrent.atomic.AtomicReference

import scala.util.{Failure, Success, Try}

import org.apache.spark.TaskKilled
import org.apache.spark.sql.execution.rangejoin.FaultProbes

import rangejoin.TestSessions
import rangejoin.config.RangeJoinConf

/**
 * A running join stopped from another thread, in `local[2]` (so that the driver's memory manager
 * is the executor's): its job group cancelled, or the thread that runs `collect()` interrupted,
 * once the join's tasks run (their first attempts sleep until then). Loads spill (a low
 * `sortSpillRows`) and windows spill (low sort-merge-join buffer thresholds), so that spill files
 * exist when the query stops. Once every task has ended, no execution memory is held, no spill
 * file is left in the local directories, no sorted block of the plugin is left cached, and the
 * same query runs again with the plugin-off answer.
 *
 * Spark does not cancel the jobs of a thread that is interrupted: they run to their end, and what
 * they leave is checked after that. The jobs that load a block join's blocks are the plugin's
 * own, started while the thread waits for them: they are cancelled.
 */
class CancellationSuite extends FaultSuiteBase {
  override protected def master: String = "local[2]"

  override protected def sessionConf: Seq[(String, String)] = Seq(
    // Without it, a block that outlives its query is dropped once the driver happens to collect
    // its RDD's garbage: the plugin must drop its blocks itself.
    "spark.cleaner.referenceTracking" -> "false",
    RangeJoinConf.SortSpillRows.key -> "50",
    "spark.sql.sortMergeJoinExec.buffer.in.memory.threshold" -> "4",
    "spark.sql.sortMergeJoinExec.buffer.spill.threshold" -> "8"
  )

  private val queries = Seq(
    FaultQueries.ieJoinLoads,
    FaultQueries.ieJoin,
    FaultQueries.slidingWindowJoin,
    FaultQueries.keyGroupIEJoin,
    FaultQueries.broadcastRangeJoin,
    FaultQueries.asOfJoinShuffled
  )

  /**
   * Runs `query` on a thread of its own in job group "faults", its join's tasks sleeping
   * `pauseMillis` in their first attempts; calls `stop` with the thread once they run, and returns
   * how the thread's `collect()` ended, and what the join's stages ran, once every task has ended.
   */
  private def stopped(query: FaultQuery, pauseMillis: Long)(stop: Thread => Unit)
      : (Try[_], StageWatch) = {
    FaultQueries.createTables(spark)
    val sc = spark.sparkContext
    val watch = new StageWatch(query.joinStage)
    val outcome = new AtomicReference[Try[_]]
    TestSessions.withConf(spark, query.conf: _*) {
      FaultQueries.registerPause(spark, pauseMillis)
      sc.addSparkListener(watch)
      val thread = new Thread(() => {
        sc.setJobGroup("faults", s"$query, stopped", interruptOnCancel = true)
        // Try keeps non-fatal exceptions only; an InterruptedException is fatal to it.
        try outcome.set(Success(query.run(spark).collect()))
        catch { case t: Throwable => outcome.set(Failure(t)) }
        finally sc.clearJobGroup()
      })
      thread.start()
      try {
        Waits.until(s"a task of $query's join stage running")(watch.joinTaskStarted)
        stop(thread)
        thread.join(120000)
        assert(!thread.isAlive, s"$query still running")
        Waits.until("every job and task ended", timeoutMillis = 120000) {
          FaultProbes.drainListenerBus(sc)
          sc.statusTracker.getActiveJobIds().isEmpty && watch.running == 0
        }
      } finally sc.removeSparkListener(watch)
    }
    (outcome.get, watch)
  }

  /** Asserts that nothing is left, and that the query runs again with the right answer. */
  private def checkAfterwards(query: FaultQuery): Unit = {
    val sc = spark.sparkContext
    Leftovers.assertNone(sc)
    val persisted = sc.getPersistentRDDs.values.map(_.name).toSeq
    assert(!persisted.contains("rangejoin sorted blocks"), persisted)
    runChecked(query)
    Leftovers.assertNone(sc)
  }

  for (query <- queries) {
    test(s"$query: its job group cancelled while the join's tasks run") {
      val (outcome, _) = stopped(query, pauseMillis = 60000) { _ =>
        spark.sparkContext.cancelJobGroup("faults")
      }
      assert(outcome.isFailure, s"$query was not cancelled")
      checkAfterwards(query)
    }

    test(s"$query: the thread running collect() interrupted while the join's tasks run") {
      // The jobs of an interrupted thread run on, Spark's own included: their sleep is short,
      // except that a block join's loads, jobs of the plugin's own, must stop at once.
      val loads = query == FaultQueries.ieJoinLoads
      val (outcome, watch) = stopped(query, pauseMillis = if (loads) 60000 else 1500)(_.interrupt())
      assert(outcome.isFailure, s"$query was not interrupted")
      if (loads) {
        val killed = watch.taskEnds.filter(_.reason.isInstanceOf[TaskKilled])
        assert(killed.nonEmpty, s"the loads ran on: ${watch.taskEnds.map(_.reason)}")
      }
      checkAfterwards(query)
    }
  }
}

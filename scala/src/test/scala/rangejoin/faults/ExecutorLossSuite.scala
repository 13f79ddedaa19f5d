package rangejoin.faults

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicReference

import org.apache.spark.{ExecutorLostFailure, SparkContext}

/**
 * An executor lost while the join's tasks run on it, in a local-cluster of two executor JVMs: as
 * the task of partition 0 of the join's stage starts (its first attempt sleeps, so that it is
 * still running), the driver kills that task's executor. Its task fails, whatever it cached
 * (sorted blocks) and its shuffle output are gone, and the join finishes on the other executor:
 * the answer is the plugin-off answer, and nothing is left behind. The lost executor is replaced
 * before the next test.
 */
class ExecutorLossSuite extends FaultSuiteBase {
  override protected def master: String = FaultSessions.LocalCluster

  private val queries = Seq(
    FaultQueries.ieJoin,
    FaultQueries.ieJoinLoads,
    FaultQueries.slidingWindowJoin,
    FaultQueries.broadcastRangeJoin,
    FaultQueries.asOfJoinShuffled
  )

  /** The executors killed so far: the driver may list one for a moment after its loss. */
  private val killed = ConcurrentHashMap.newKeySet[String]()

  /** Asks for the executors killed so far to be replaced, and waits for two live ones. */
  private def twoLiveExecutors(sc: SparkContext): Unit = {
    // Killing an executor lowered the application's executor target.
    sc.requestTotalExecutors(FaultSessions.Executors, 0, Map.empty)
    Waits.until("two live executors", timeoutMillis = 120000) {
      FaultSessions.executorIds(sc).count(!killed.contains(_)) == FaultSessions.Executors
    }
  }

  for (query <- queries) {
    test(s"$query: an executor killed during the join's stage") {
      FaultQueries.createTables(spark)
      val sc = spark.sparkContext
      twoLiveExecutors(sc)
      val victim = new AtomicReference[String]
      val watch = new StageWatch(
        query.joinStage,
        task => {
          victim.set(task.executorId)
          killed.add(task.executorId)
          new Thread(() => sc.killExecutor(task.executorId)).start()
        },
        trigger = _.index == 0
      )
      // The task sleeps until its executor is gone: the kill takes a moment to arrive.
      runChecked(query, Some(watch), pauseMillis = 20000, pausePartition = 0)
      assert(victim.get != null, "no task of partition 0 of the join's stage started")
      val lost = watch.taskEnds.filter(_.reason match {
        case e: ExecutorLostFailure => e.execId == victim.get
        case _ => false
      })
      assert(lost.nonEmpty, s"no task was lost with executor ${victim.get}: ${watch.taskEnds}")
      twoLiveExecutors(sc)
      Leftovers.assertNone(sc)
    }
  }
}

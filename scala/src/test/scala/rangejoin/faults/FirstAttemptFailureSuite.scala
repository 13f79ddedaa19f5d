package rangejoin.faults

import org.apache.spark.ExceptionFailure
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper

import rangejoin.TestSessions
import rangejoin.execution.{JoinMetric, JoinMetrics}
import rangejoin.execution.blocks.InjectedFailures

/**
 * Every task of the operators fails in its first attempt, after it has done all of its work
 * ([[rangejoin.execution.InjectedFailures]], turned on in the executor JVMs of a local-cluster):
 * each is retried, the answer is the plugin-off answer, and the metrics users read (output rows,
 * block pairs joined and pruned, as-of rows searched in full) equal those of a run without
 * failures, in `local[2]` first: a failed attempt's additions are not counted.
 */
class FirstAttemptFailureSuite extends FaultSuiteBase with AdaptiveSparkPlanHelper {
  override protected def master: String = FaultSessions.LocalCluster

  override protected def executorJavaOptions: Seq[String] =
    Seq(s"-D${InjectedFailures.Property}=true")

  /** The metrics compared; not times, sizes, memory or indexes built (one per executor JVM). */
  private val compared = Seq(
    JoinMetric.NumOutputRows,
    JoinMetric.BlockPairs,
    JoinMetric.PrunedBlockPairs,
    JoinMetric.FullSearches
  ).map(_.key)

  private def metricsOf(plan: SparkPlan): Seq[(String, Map[String, Long])] =
    collect(plan) { case j: JoinMetrics =>
      j.nodeName -> j.metrics.collect { case (k, m) if compared.contains(k) => k -> m.value }
    }

  /** Each query's compared metrics in a run without failures. */
  private var baseline = Map.empty[String, Seq[(String, Map[String, Long])]]

  override def beforeAll(): Unit = {
    super.beforeAll()
    val local = FaultSessions.start("baseline", "local[2]")
    try baseline = FaultQueries.all.map(q => q.name -> runIn(local, q)).toMap
    finally FaultSessions.stopAll()
  }

  private def runIn(session: SparkSession, query: FaultQuery) = {
    FaultQueries.createTables(session)
    FaultQueries.registerPause(session, 0)
    TestSessions.withConf(session, query.conf: _*) {
      val df = query.run(session)
      df.collect()
      metricsOf(df.queryExecution.executedPlan)
    }
  }

  private def injected(reason: Any): Boolean = reason match {
    case f: ExceptionFailure => f.toErrorString.contains("Injected failure of attempt 0")
    case _ => false
  }

  for (query <- FaultQueries.all) {
    test(s"$query: tasks failing in their first attempt are retried, metrics counted once") {
      FaultQueries.createTables(spark)
      val watch = new StageWatch(query.joinStage)
      val plan = runChecked(query, Some(watch))
      val failed = watch.taskEnds.filter(e => injected(e.reason))
      assert(failed.nonEmpty, s"no task of the join's stage failed: ${watch.taskEnds}")
      val metrics = metricsOf(plan)
      assert(metrics.nonEmpty && metrics == baseline(query.name), plan)
      Leftovers.assertNone(spark.sparkContext)
    }
  }
}

package rangejoin.faults

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper

import rangejoin.TestSessions
import rangejoin.config.RangeJoinConf
import rangejoin.execution.{
  AsOfJoinExec,
  BlockRangeJoinExec,
  BoundFilterJoinExec,
  BroadcastRangeJoinExec,
  JoinMetric,
  JoinMetrics,
  KeyClusteredJoinExec,
  KeyedIntervalJoinExec
}

/**
 * A fault query run with the plugin on and checked against the plugin off, in any session: the
 * fault tests stop and start sessions, so the session is an argument here.
 */
object FaultChecks extends AdaptiveSparkPlanHelper {

  /** The range-join operators of `plan`, by node name, top down. */
  def rangeJoins(plan: SparkPlan): Seq[String] = collect(plan) {
    case j: BlockRangeJoinExec => j.nodeName
    case j: BoundFilterJoinExec => j.nodeName
    case j: BroadcastRangeJoinExec => j.nodeName
    case j: KeyClusteredJoinExec => j.nodeName
    case j: AsOfJoinExec => j.nodeName
    case j: KeyedIntervalJoinExec => j.nodeName
  }

  /** The output-row metrics of the range-join operators of `plan`, top down. */
  def outputRows(plan: SparkPlan): Seq[Long] = collect(plan) { case j: JoinMetrics =>
    j.metrics(JoinMetric.NumOutputRows.key).value
  }

  /** The rows of `df` as a sorted list of their string forms. */
  def multiset(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  /**
   * Runs `query` in `spark` with the plugin on, `pause` sleeping `pauseMillis` in the first
   * attempt of each of the join's tasks (of partition `pausePartition` only, when not negative)
   * and `watch` listening; asserts the operators it planned and that it answers as with the
   * plugin off (run with `pause` not sleeping), and that the join's output-row metric counts the
   * rows (each fault query returns its join's rows), each once whatever attempts its tasks took.
   * Returns the plugin-on run's executed plan.
   */
  def runChecked(
      spark: SparkSession,
      query: FaultQuery,
      watch: Option[StageWatch] = None,
      pauseMillis: Long = 0,
      pausePartition: Int = -1
  ): SparkPlan = TestSessions.withConf(spark, query.conf: _*) {
    val sc = spark.sparkContext
    FaultQueries.registerPause(spark, pauseMillis, pausePartition)
    watch.foreach(sc.addSparkListener)
    val (actual, plan) =
      try {
        val df = query.run(spark)
        (multiset(df), df.queryExecution.executedPlan)
      } finally
        watch.foreach { w =>
          org.apache.spark.sql.execution.rangejoin.FaultProbes.drainListenerBus(sc)
          sc.removeSparkListener(w)
        }
    assert(rangeJoins(plan) == query.operators, s"$query planned other operators:\n$plan")
    FaultQueries.registerPause(spark, 0)
    val expected = TestSessions.withConf(spark, RangeJoinConf.Enabled.key -> "false") {
      val vanilla = query.run(spark)
      val rows = multiset(vanilla)
      assert(rangeJoins(vanilla.queryExecution.executedPlan).isEmpty)
      rows
    }
    if (actual != expected)
      throw new AssertionError(
        s"""Answers differ for $query: vanilla rows ${expected.size}, accelerated ${actual.size}
           |missing (first 10): ${expected.diff(actual).take(10).mkString(" ")}
           |extra (first 10): ${actual.diff(expected).take(10).mkString(" ")}
           |plan:
           |$plan""".stripMargin
      )
    assert(actual.nonEmpty, s"$query gave no rows")
    assert(outputRows(plan) == Seq(actual.size.toLong), s"$query: output rows ${actual.size}")
    plan
  }
}

package rangejoin.faults

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.SparkPlan
import org.scalatest.BeforeAndAfterAll
import org.scalatest.concurrent.{Signaler, ThreadSignaler, TimeLimitedTests}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.{Minutes, Span}

/**
 * A fault suite's session, made by [[FaultSessions]] from `master` and the suite's settings, and
 * stopped at the end (the other suites of this build share one session: the next suite's
 * `getOrCreate` builds a fresh one). A test that runs for more than five minutes is interrupted
 * and fails: a query that hangs fails its test, not the build.
 */
trait FaultSuiteBase extends AnyFunSuite with BeforeAndAfterAll with TimeLimitedTests {

  override val timeLimit: Span = Span(5, Minutes)

  override val defaultTestSignaler: Signaler = ThreadSignaler

  protected def master: String

  /** Settings of the suite's session besides [[FaultSessions]]'s. */
  protected def sessionConf: Seq[(String, String)] = Nil

  /** Options of a cluster session's executor JVMs. */
  protected def executorJavaOptions: Seq[String] = Nil

  lazy val spark: SparkSession =
    FaultSessions.start(getClass.getSimpleName, master, sessionConf, executorJavaOptions)

  override def afterAll(): Unit =
    try FaultSessions.stopAll()
    finally super.afterAll()

  /** [[FaultChecks.runChecked]] in this suite's session. */
  def runChecked(
      query: FaultQuery,
      watch: Option[StageWatch] = None,
      pauseMillis: Long = 0,
      pausePartition: Int = -1
  ): SparkPlan = FaultChecks.runChecked(spark, query, watch, pauseMillis, pausePartition)
}

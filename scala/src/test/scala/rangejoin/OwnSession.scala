package rangejoin

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll

/**
 * A suite whose session has settings of its SparkContext that the other suites' shared session
 * lacks ([[RangeJoinTestBase.sessionSettings]]): it stops the running session, builds its own,
 * and stops that when it ends, so that the next suite's `getOrCreate` builds a fresh one.
 */
trait OwnSession extends RangeJoinTestBase with BeforeAndAfterAll {
  private var started = false

  override lazy val spark: SparkSession = {
    started = true
    TestSessions.fresh(getClass.getSimpleName, master, sessionSettings)
  }

  override def afterAll(): Unit =
    try if (started) TestSessions.stopAll()
    finally super.afterAll()
}

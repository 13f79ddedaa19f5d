package rangejoin.faults

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.execution.broadcast.{StableBroadcastExchangeExec, StableBroadcasts}

/**
 * `spark.stop()`, then a new session in the same JVM: what the plugin keeps beyond a query in
 * objects of the JVM is not kept beyond its context. The broadcast of a cached build input is kept
 * for later runs ([[StableBroadcasts]]); once the context stops, it is a broadcast no context can
 * read, and its key, a plan, refers to the stopped session. The other such state is held weakly
 * (the indexes built from broadcasts, by broadcast value; the janitors of sorted blocks, by
 * context). Both sessions run the same queries over cached tables, from their start, and answer
 * as with the plugin off.
 */
class ContextRestartSuite extends AnyFunSuite with BeforeAndAfterAll with AdaptiveSparkPlanHelper {

  override def afterAll(): Unit =
    try FaultSessions.stopAll()
    finally super.afterAll()

  /** Queries whose inputs `run` caches; the broadcast range join runs twice, to reuse its kept broadcast. */
  private val queries = Seq(
    FaultQueries.ieJoin,
    FaultQueries.slidingWindowJoin,
    FaultQueries.broadcastRangeJoin,
    FaultQueries.broadcastRangeJoin,
    FaultQueries.asOfJoinBroadcast
  )

  /** Caches the tables the queries' build inputs read, then runs the queries. */
  private def run(spark: SparkSession): Unit = {
    FaultQueries.createTables(spark)
    for (table <- Seq("ranges", "quotes", "r")) spark.table(table).cache().count()
    for (query <- queries) {
      val plan = FaultChecks.runChecked(spark, query)
      if (query == FaultQueries.broadcastRangeJoin) {
        val stable = collect(plan) { case e: StableBroadcastExchangeExec => e }
        assert(stable.nonEmpty, s"the cached build input has no stable broadcast:\n$plan")
      }
    }
    val sc = spark.sparkContext
    Leftovers.assertNone(sc, keep = sc.getPersistentRDDs.keySet.toSet)
  }

  test("a new session after spark.stop() keeps nothing of the stopped one's") {
    for (round <- 1 to 2) {
      val spark = FaultSessions.start(s"ContextRestartSuite", "local[2]")
      try {
        run(spark)
        assert(StableBroadcasts.size == 1, s"round $round: one cached build input, one broadcast")
      } finally FaultSessions.stopAll()
      assert(StableBroadcasts.size == 0, s"round $round: broadcasts kept after spark.stop()")
    }
  }
}

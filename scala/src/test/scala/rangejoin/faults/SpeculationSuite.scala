package rangejoin.faults

import org.apache.spark.deploy.rangejoin.LoopbackCluster

/**
 * Speculative execution on, set so that a straggler gets a copy at once: partition 0's first
 * attempt of the join's stage sleeps, a copy of it runs on the other executor and wins, and the
 * answer is the plugin-off answer.
 *
 * Spark's scheduler never runs a copy of a task on a host where an attempt of it runs, and the
 * executors of a `local-cluster` all share one host: there, no copy ever runs. So this suite runs
 * on a [[LoopbackCluster]], whose two executors are on 127.0.0.1 and 127.0.0.2; on a machine that
 * cannot bind to both, its tests are canceled.
 */
class SpeculationSuite extends FaultSuiteBase {
  private val hosts = Seq("127.0.0.1", "127.0.0.2")

  private var cluster: Option[LoopbackCluster] = None

  override protected def master: String = cluster.get.url

  override def beforeAll(): Unit = {
    if (LoopbackCluster.bindable(hosts)) cluster = Some(new LoopbackCluster(hosts, 1, 1024))
    super.beforeAll()
  }

  override def afterAll(): Unit =
    try super.afterAll()
    finally cluster.foreach(_.stop())

  override protected def sessionConf: Seq[(String, String)] = Seq(
    "spark.speculation" -> "true",
    "spark.speculation.interval" -> "100ms",
    "spark.speculation.multiplier" -> "1.5",
    "spark.speculation.quantile" -> "0.25",
    "spark.speculation.minTaskRuntime" -> "100ms",
    // A block-pair task prefers the executor that caches its blocks: without this, its copy
    // waits for the locality wait to pass, by when the straggler may be done.
    "spark.locality.wait" -> "0"
  )

  private val queries = Seq(
    FaultQueries.ieJoin,
    FaultQueries.keyGroupIEJoin,
    FaultQueries.broadcastRangeJoin,
    FaultQueries.asOfJoinBroadcast
  )

  for (query <- queries) {
    test(s"$query: a straggler's speculative copy wins") {
      assume(cluster.isDefined, s"this machine cannot bind to each of ${hosts.mkString(", ")}")
      FaultQueries.createTables(spark)
      val watch = new StageWatch(query.joinStage)
      runChecked(query, Some(watch), pauseMillis = 5000, pausePartition = 0)
      val speculative = watch.taskStarts.map(_.taskInfo).filter(_.speculative)
      assert(speculative.nonEmpty, "no speculative task ran")
      val won = watch.taskEnds.filter(e => e.taskInfo.speculative && e.taskInfo.successful)
      assert(won.nonEmpty, s"no speculative task succeeded: ${watch.taskEnds.map(_.reason)}")
      Leftovers.assertNone(spark.sparkContext)
    }
  }
}

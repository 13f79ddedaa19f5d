package rangejoin.faults

import java.io.File
import java.nio.file.Files

import org.apache.spark.SparkContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.rangejoin.FaultProbes

import rangejoin.RangeJoinExtensions
import rangejoin.config.RangeJoinConf

/**
 * The sessions the fault tests run in: `local[2]`, or `local-cluster[2,1,1024]`, whose two
 * executors are JVMs of their own, so that one can be lost while the driver and the other go on.
 *
 * A local-cluster master runs Spark's master and two workers in this JVM, and each worker
 * launches its executor as `java -cp <classpath> CoarseGrainedExecutorBackend`. The worker builds
 * that classpath from the Spark home (`SPARK_HOME`, whose `jars/` folder it adds, and under which
 * it keeps the executors' work folders), the Scala version (`SPARK_SCALA_VERSION` in the
 * executors' environment) and `spark.executor.extraClassPath`. The build (`Test / envVars`) points
 * SPARK_HOME at a folder of its target with an empty `jars/`, and the executors get this JVM's
 * whole classpath: Spark's jars, the plugin's classes and the test classes (whose UDFs and helpers
 * the executors run).
 *
 * Settings as in [[rangejoin.RangeJoinTestBase]]: small blocks and range partitions, so that a
 * small table spans several blocks, partitions and tasks.
 */
object FaultSessions {
  val LocalCluster = "local-cluster[2,1,1024]"

  /** Executors of a local-cluster session. */
  val Executors = 2

  /**
   * A new session of `master` (any active one stopped first), with `conf` besides the common
   * settings, and `executorJavaOptions` on a cluster's executor JVMs. A session of a cluster (a
   * local-cluster, or a [[org.apache.spark.deploy.rangejoin.LoopbackCluster]]'s `spark://` URL) is
   * returned once its executors have registered.
   */
  def start(
      name: String,
      master: String,
      conf: Seq[(String, String)] = Nil,
      executorJavaOptions: Seq[String] = Nil
  ): SparkSession = {
    stopAll()
    val cluster = master.startsWith("local-cluster") || master.startsWith("spark://")
    val settings = common ++ (if (cluster) clusterSettings(executorJavaOptions) else Nil) ++ conf
    val spark = settings
      .foldLeft(SparkSession.builder().master(master).appName(name)) { case (b, (k, v)) =>
        b.config(k, v)
      }
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if (cluster) awaitExecutors(spark.sparkContext, Executors)
    spark
  }

  /** Stops the active and the default session, if any, and forgets them. */
  def stopAll(): Unit = {
    (SparkSession.getActiveSession ++ SparkSession.getDefaultSession).foreach(_.stop())
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
  }

  /** Waits until `sc` has `n` live executors; returns their ids. */
  def awaitExecutors(sc: SparkContext, n: Int): Seq[String] = {
    Waits.until(s"$n executors registered", timeoutMillis = 120000)(executorIds(sc).size == n)
    executorIds(sc)
  }

  /** The ids of the executors `sc` has now, the driver left out. */
  def executorIds(sc: SparkContext): Seq[String] = FaultProbes.executorIds(sc)

  private def common: Seq[(String, String)] = Seq(
    "spark.sql.extensions" -> classOf[RangeJoinExtensions].getName,
    "spark.sql.shuffle.partitions" -> "8",
    "spark.ui.enabled" -> "false",
    "spark.sql.warehouse.dir" -> Files.createTempDirectory("rangejoin-warehouse").toString,
    "spark.sql.ansi.enabled" -> "true",
    RangeJoinConf.BlockRows.key -> "16",
    RangeJoinConf.RangePartitionMinRows.key -> "40",
    RangeJoinConf.CoalesceMaxParallelism.key -> "1",
    RangeJoinConf.MinCandidatePairs.key -> "0",
    RangeJoinConf.KeyedMinCandidatePairs.key -> "0",
    RangeJoinConf.MinSmallSideRows.key -> "0",
    RangeJoinConf.BroadcastEnabled.key -> "false",
    // Every shuffle partition a task of its own, so that a join's stage has tasks on both
    // executors.
    "spark.sql.adaptive.coalescePartitions.enabled" -> "false",
    // A task that succeeds but ends holding execution memory fails, instead of Spark freeing the
    // memory with a warning.
    "spark.unsafe.exceptionOnMemoryLeak" -> "true"
  )

  private def clusterSettings(executorJavaOptions: Seq[String]): Seq[(String, String)] = {
    val home = sys.env.getOrElse(
      "SPARK_HOME",
      throw new IllegalStateException(
        "SPARK_HOME is not set: run the fault tests through sbt (build.sbt sets it)"
      )
    )
    new File(home, "jars").mkdirs()
    val log4j = new File("conf/log4j2.properties").getAbsolutePath
    val scalaVersion = scala.util.Properties.versionNumberString.split('.').take(2).mkString(".")
    Seq(
      "spark.executor.extraClassPath" -> sys.props("java.class.path"),
      "spark.executorEnv.SPARK_SCALA_VERSION" -> scalaVersion,
      "spark.executor.extraJavaOptions" ->
        (s"-Dlog4j2.configurationFile=$log4j" +: executorJavaOptions).mkString(" "),
      // The first job waits for both executors.
      "spark.scheduler.minRegisteredResourcesRatio" -> "1",
      // A block or shuffle output of a lost executor is asked for once, not for 15 seconds.
      "spark.shuffle.io.maxRetries" -> "1",
      "spark.shuffle.io.retryWait" -> "100ms"
    )
  }
}

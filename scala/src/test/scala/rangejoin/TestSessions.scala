package rangejoin

import java.nio.file.Files

import org.apache.spark.sql.SparkSession

/**
 * Where every test session comes from, so that each takes the same base settings: above all
 * `spark.unsafe.exceptionOnMemoryLeak`, under which a task that ends holding execution memory
 * fails ("Managed memory leak detected") instead of Spark freeing the memory with a warning. A
 * leak in an operator then fails the suite that runs it.
 */
object TestSessions {

  /** The settings every test session starts with; a suite's own settings come after them. */
  val base: Seq[(String, String)] = Seq(
    "spark.unsafe.exceptionOnMemoryLeak" -> "true",
    "spark.sql.extensions" -> classOf[RangeJoinExtensions].getName,
    "spark.ui.enabled" -> "false"
  )

  /**
   * The session of the JVM, or a new one with [[base]] and then `settings`, on `master`. Spark
   * returns a running session as it is (its context's settings cannot change), so this fails if
   * the running one lacks a base setting of its context: it was built elsewhere.
   */
  def getOrCreate(
      appName: String,
      master: String,
      settings: Seq[(String, String)] = Nil
  ): SparkSession = {
    val builder = SparkSession.builder().master(master).appName(appName)
    val warehouse = "spark.sql.warehouse.dir" -> Files.createTempDirectory("rangejoin-warehouse")
    (base ++ Seq(warehouse._1 -> warehouse._2.toString) ++ settings).foreach { case (k, v) =>
      builder.config(k, v)
    }
    val session = builder.getOrCreate()
    val conf = session.sparkContext.getConf
    for ((key, value) <- base if !key.startsWith("spark.sql.")) {
      assert(
        conf.getOption(key).contains(value),
        s"the running SparkContext has $key=${conf.getOption(key)}, not $value: a test built " +
          "it without TestSessions"
      )
    }
    session
  }

  /**
   * A new session with [[base]] and then `settings`, on `master`, after stopping the running
   * one: for settings of the SparkContext that the running session lacks.
   */
  def fresh(appName: String, master: String, settings: Seq[(String, String)]): SparkSession = {
    stopAll()
    getOrCreate(appName, master, settings)
  }

  /** Runs `body` with the given SQL settings in `spark`, restoring the previous ones afterwards. */
  def withConf[T](spark: SparkSession, pairs: (String, String)*)(body: => T): T = {
    val previous = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally previous.foreach {
        case (k, Some(v)) => spark.conf.set(k, v)
        case (k, None) => spark.conf.unset(k)
      }
  }

  /** Stops the running session, if any, so that the next `getOrCreate` builds a new one. */
  def stopAll(): Unit = {
    (SparkSession.getActiveSession ++ SparkSession.getDefaultSession).foreach(_.stop())
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
  }
}

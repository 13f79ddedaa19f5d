package rangejoin.outside

import rangejoin.RangeJoinExtensions
import rangejoin.config.RangeJoinConf

/**
 * Installs the plugin in every SparkContext this JVM creates from then on, through system
 * properties: a `new SparkConf()` reads every `spark.*` system property, so the sessions Spark's
 * own test suites build for themselves carry the extension without any change to those suites.
 *
 * The plugin's small-input limits are 0, so that it plans its operators even for the few rows
 * of a test table (with its defaults it would leave nearly every test query to Spark and prove
 * little). [[PluginPlans]] is registered as a query execution listener, to count the queries
 * that ran a plugin operator.
 */
object PluginSettings {

  private val always: Seq[(String, String)] = Seq(
    "spark.sql.extensions" -> classOf[RangeJoinExtensions].getName,
    "spark.sql.queryExecutionListeners" -> classOf[PluginPlans].getName,
    RangeJoinConf.MinCandidatePairs.key -> "0",
    RangeJoinConf.MinSmallSideRows.key -> "0",
    RangeJoinConf.KeyedMinCandidatePairs.key -> "0"
  )

  /** The settings, as `key=value` lines, for a report's header. */
  def describe: Seq[String] = always.map { case (k, v) => s"$k=$v" }

  /** Installs the plugin, enabled (`on`) or disabled by `spark.rangejoin.enabled=false`. */
  def install(on: Boolean): Unit = {
    always.foreach { case (k, v) => System.setProperty(k, v) }
    System.setProperty(RangeJoinConf.Enabled.key, on.toString)
  }
}

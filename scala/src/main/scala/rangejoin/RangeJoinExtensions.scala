package rangejoin

import org.apache.spark.SparkEnv
import org.apache.spark.sql.SparkSessionExtensions

import rangejoin.adaptive.SplitSkewedKeyPartitions
import rangejoin.config.RangeJoinConf
import rangejoin.planning.{
  AcceptAsOfJoins,
  AcceptRangeJoinHints,
  AsOfJoinStrategy,
  CountMatchesStrategy,
  PairFreeAggregates,
  RangeJoinStrategy
}

/**
 * Registers spark-rangejoin with a Spark session.
 *
 * From Scala or Java:
 * {{{
 *   SparkSession.builder()
 *     .config("spark.sql.extensions", "rangejoin.RangeJoinExtensions")
 *     .getOrCreate()
 * }}}
 * From PySpark: `rangejoin.configure(SparkSession.builder).getOrCreate()`. From spark-submit or
 * spark-sql: `--jars <jar> --conf spark.sql.extensions=rangejoin.RangeJoinExtensions`.
 */
class RangeJoinExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // Session start: Spark applies extensions as it creates a session, on a running context,
    // and lets this error through, so a bad spark.rangejoin.* setting fails getOrCreate().
    Option(SparkEnv.get).foreach(env => RangeJoinConf.validate(env.conf.getAll))
    // SQL: rangejoin_version(), which tells a client that the plugin is installed.
    extensions.injectFunction(RangeJoinVersion.function)
    // Planner: join conditions with inequalities become range-join operators.
    extensions.injectPlannerStrategy(session => RangeJoinStrategy(session))
    // Analysis: Databricks' RANGE_JOIN hint is accepted, its bin size not needed.
    extensions.injectResolutionRule(session => AcceptRangeJoinHints(session))
    // Analysis: an as-of join becomes a nearest-match join before Spark's optimizer rewrites it.
    extensions.injectPostHocResolutionRule(session => AcceptAsOfJoins(session))
    extensions.injectPlannerStrategy(session => AsOfJoinStrategy(session))
    // Optimizer: a count of an inner join's pairs is answered without the pairs.
    extensions.injectPreCBORule(session => PairFreeAggregates(session))
    extensions.injectPlannerStrategy(session => CountMatchesStrategy(session))
    // Adaptive execution: a keyed join's skewed partitions run in several tasks.
    extensions.injectQueryStagePrepRule(_ => SplitSkewedKeyPartitions)
  }
}

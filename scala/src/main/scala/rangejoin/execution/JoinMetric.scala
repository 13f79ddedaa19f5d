package rangejoin.execution

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * A SQL metric of the range-join operators: its key in the node's `metrics` and how it is made
 * (its name in the Spark UI and its kind). Operators list the ones they report
 * ([[JoinMetrics.reportedMetrics]]) and read them by value, never by a string key.
 */
sealed abstract class JoinMetric(val key: String, create: SparkContext => SQLMetric) {
  def newMetric(sc: SparkContext): SQLMetric = create(sc)
}

object JoinMetric {
  case object NumOutputRows
      extends JoinMetric("numOutputRows", SQLMetrics.createMetric(_, "number of output rows"))
  case object BlockPairs
      extends JoinMetric("blockPairs", SQLMetrics.createMetric(_, "block pairs joined"))
  case object PrunedBlockPairs
      extends JoinMetric("prunedBlockPairs", SQLMetrics.createMetric(_, "block pairs pruned"))
  case object LocalJoinTime
      extends JoinMetric("localJoinTime", SQLMetrics.createNanoTimingMetric(_, "local join time"))
  case object SpillSize
      extends JoinMetric("spillSize", SQLMetrics.createSizeMetric(_, "spill size"))
  case object WindowSpillSize
      extends JoinMetric("spillSize", SQLMetrics.createSizeMetric(_, "window spill size"))
  case object BlocksOnDisk
      extends JoinMetric("blocksOnDisk", SQLMetrics.createSizeMetric(_, "sorted blocks on disk"))
  case object FullSearches
      extends JoinMetric(
        "fullSearches",
        SQLMetrics.createMetric(_, "as-of rows searched in full (values near overflow)")
      )
  case object CandidatesWalked
      extends JoinMetric(
        "candidatesWalked",
        SQLMetrics.createMetric(_, "candidate intervals walked")
      )
  case object IndexBuilds
      extends JoinMetric(
        "indexBuilds",
        SQLMetrics.createMetric(_, "indexes built (one per executor and broadcast)")
      )
  case object IndexRowsSorted
      extends JoinMetric(
        "indexRowsSorted",
        SQLMetrics.createMetric(_, "index rows sorted by the executor (0: they arrived in order)")
      )
  case object PeakMemory
      extends JoinMetric("peakMemory", SQLMetrics.createSizeMetric(_, "peak memory"))
}

/** A plan node's SQL metrics, made once from the [[JoinMetric]]s it reports. */
trait JoinMetrics extends SparkPlan {

  /** The metrics this node reports, in the order the Spark UI lists them. */
  protected def reportedMetrics: Seq[JoinMetric]

  override lazy val metrics: Map[String, SQLMetric] =
    reportedMetrics.map(m => m.key -> m.newMetric(sparkContext)).toMap

  /** This node's metric `m`; fails if the node does not report it. */
  protected def metric(m: JoinMetric): SQLMetric = longMetric(m.key)
}

package rangejoin.planning

import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.internal.SQLConf

import rangejoin.condition.Equality
import rangejoin.config.RangeJoinConf

/**
 * Joins small enough for Spark's own operators to win, by Spark's estimates: the decision
 * ladder's rung 3, which leaves them to Spark whatever the plugin could run them as.
 */
private[planning] object SmallJoins {

  /**
   * Why `join`, whose equality keys are `eqs`, is left to Spark; None if it is not small.
   * Without equality keys: few candidate pairs, or a tiny input (Spark's broadcast nested loop
   * join then compares each row with a few rows). With them: key groups that Spark's statistics
   * show to be small (its hash and sort-merge joins).
   */
  def leftToSpark(join: Join, eqs: Seq[Equality], conf: SQLConf): Option[String] =
    if (eqs.isEmpty) {
      val rows = Seq(SizeEstimates.rows(join.left), SizeEstimates.rows(join.right))
      val pairsLimit = RangeJoinConf.MinCandidatePairs
      val smallLimit = RangeJoinConf.MinSmallSideRows
      if (rows.product <= BigInt(pairsLimit.get(conf))) {
        Some(s"about ${rows.product} candidate pairs, at most ${pairsLimit.key}")
      } else {
        if (rows.min > BigInt(smallLimit.get(conf))) None
        else Some(s"an input of about ${rows.min} rows, at most ${smallLimit.key}")
      }
    } else {
      val limit = RangeJoinConf.KeyedMinCandidatePairs
      SizeEstimates.keyedCandidatePairs(join, eqs).filter(_ <= BigInt(limit.get(conf))).map {
        pairs =>
          s"about $pairs candidate pairs sharing a key, at most ${limit.key}"
      }
    }
}

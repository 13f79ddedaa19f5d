package rangejoin.planning

import java.util.concurrent.atomic.AtomicBoolean

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedHint}
import org.apache.spark.sql.catalyst.rules.Rule

import rangejoin.config.RangeJoinConf

/**
 * Accepts Databricks' `RANGE_JOIN` hint, so that queries written for Databricks run unchanged:
 * `SELECT /*+ RANGE_JOIN(points, 10) */ ...` in SQL, `df.hint("range_join", 60)` on a
 * DataFrame. The hint asks for a range join with a bin size; the plugin plans range joins by
 * cost without one, so the hint is removed during analysis and the join planned as it would be
 * without it. Open-source Spark drops the hint with a warning ("Unrecognized hint"); this rule
 * removes it first and says once per JVM, at INFO, that the bin size is not needed. With
 * `spark.rangejoin.enabled` off the hint is left to Spark.
 */
final case class AcceptRangeJoinHints(session: SparkSession) extends Rule[LogicalPlan]
    with Logging {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!RangeJoinConf.Enabled.get(session.sessionState.conf)) plan
    else
      plan.resolveOperatorsUp {
        case hint: UnresolvedHint if AcceptRangeJoinHints.isRangeJoin(hint) =>
          if (AcceptRangeJoinHints.firstAccepted()) logInfo(AcceptRangeJoinHints.accepted(hint))
          hint.child
      }
}

object AcceptRangeJoinHints {

  /** The hint's name, as Databricks spells it; hint names are case-insensitive. */
  val Name = "RANGE_JOIN"

  def isRangeJoin(hint: UnresolvedHint): Boolean = hint.name.equalsIgnoreCase(Name)

  private val said = new AtomicBoolean(false)

  /** True the first time in this JVM, false after. */
  private def firstAccepted(): Boolean = said.compareAndSet(false, true)

  private def parameters(hint: UnresolvedHint): Seq[String] = hint.parameters.map {
    case e: Expression => e.sql
    case other => String.valueOf(other)
  }

  /** What is said, once, on accepting a hint. */
  def accepted(hint: UnresolvedHint): String =
    s"spark-rangejoin accepts the $Name hint ($Name(${parameters(hint).mkString(", ")})) " +
      "without its bin size: range joins are planned by cost, with no bin size to choose. " +
      "Later hints are accepted without this message."
}

package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.{
  GreaterThan,
  GreaterThanOrEqual,
  LessThan,
  LessThanOrEqual
}
import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.execution.QueryExecution

import rangejoin.execution.BlockJoinOutputExec

/**
 * Why a join went to Spark, in words a user can act on: logged by [[RangeJoinStrategy]] (at WARN
 * with `spark.rangejoin.explainDeclines.enabled`) and listed for a DataFrame by [[explain]], which
 * the Python package calls as `rangejoin.explain_joins(df)`.
 */
object Declines {

  /** Whether `join`'s condition compares anything by order: where a user may expect a range join. */
  def comparesOrders(join: Join): Boolean =
    join.condition.exists(_.exists {
      case _: LessThan | _: LessThanOrEqual | _: GreaterThan | _: GreaterThanOrEqual => true
      case _ => false
    })

  def message(join: Join, reason: String): String =
    s"spark-rangejoin leaves the ${join.joinType} join on ${conditionSql(join)} to Spark: $reason"

  private def conditionSql(join: Join): String =
    join.condition.map(c => s"`${c.sql}`").getOrElse("no condition")

  /**
   * For each join of a DataFrame's optimized plan (`query`, its query execution) whose condition
   * compares by order, what the plugin does with it: the operator it plans, or why it leaves the
   * join to Spark.
   */
  def explain(query: QueryExecution): Array[String] = {
    val strategy = RangeJoinStrategy(query.sparkSession)
    query.optimizedPlan.collect {
      case join: Join if comparesOrders(join) =>
        strategy.decide(join) match {
          case Right(planned) =>
            val operator = planned match {
              case BlockJoinOutputExec(blocks) => blocks.nodeName
              case other => other.nodeName
            }
            s"spark-rangejoin plans the ${join.joinType} join on ${conditionSql(join)} as $operator"
          case Left(reason) => message(join, reason)
        }
    }.toArray
  }
}

package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.{
  AttributeSet,
  Expression,
  GreaterThan,
  GreaterThanOrEqual,
  LessThan,
  LessThanOrEqual,
  Or
}
import org.apache.spark.sql.catalyst.plans.logical.Join
import org.apache.spark.sql.execution.QueryExecution

import rangejoin.condition.{Comparison, JoinConditionAnalysis, PointInRange}
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

  /**
   * Why no conjunct of a condition gives the plugin an inequality: each conjunct that compares
   * by order, with the cause that keeps it from being one, or the conjuncts as they are when
   * none compares by order.
   */
  def noInequality(residuals: Seq[Expression], left: AttributeSet, right: AttributeSet): String = {
    val ordered = residuals.filter(_.exists(Comparison.unapply(_).isDefined))
    val causes =
      if (ordered.isEmpty) residuals.map(r => s"`${r.sql}`")
      else ordered.map(r => s"`${r.sql}` ${cause(r, left, right)}")
    "no part of the condition compares an expression of the left input with one of the right " +
      "input by <, <=, >, >=, or bounds their difference (x - y, abs(x - y), datediff, " +
      "timestamps or dates against an interval) by a constant: " + causes.mkString("; ")
  }

  /** What keeps a conjunct that compares by order from being an inequality of the two inputs. */
  private def cause(c: Expression, left: AttributeSet, right: AttributeSet): String = {
    def readsBoth(e: Expression) =
      e.references.exists(left.contains) && e.references.exists(right.contains)
    c match {
      case _ if !c.deterministic => "is not deterministic"
      case _: Or => "is a disjunction (OR)"
      case Comparison(a, _, _) if !JoinConditionAnalysis.isSortableKeyType(a.dataType) =>
        s"compares ${a.dataType.simpleString} values, a type the plugin does not sort"
      case Comparison(a, _, b) if Seq(a, b).exists(readsBoth) =>
        val both = Seq(a, b).filter(readsBoth).map(e => s"`${e.sql}`").mkString(" and ")
        s"has $both reading both inputs, and is not a difference bounded by a constant " +
          "(decimal differences, abs(x - y) > c and non-constant bounds are not rewritten)"
      case Comparison(a, _, b) if a.references.isEmpty || b.references.isEmpty =>
        "compares with a constant, not with the other input"
      case Comparison(_, _, _) => "reads only one input on both sides"
      case _ => "compares by order only inside another expression"
    }
  }

  def message(join: Join, reason: String): String =
    s"spark-rangejoin leaves the ${join.joinType} join on ${conditionSql(join)} to Spark: $reason"

  private def conditionSql(join: Join): String =
    join.condition.map(c => s"`${c.sql}`").getOrElse("no condition")

  /**
   * For each join of a DataFrame's optimized plan (`query`, its query execution) whose condition
   * compares by order, what the plugin does with it: the operator it plans, or why it leaves the
   * join to Spark; for a count of a join's pairs answered without them, that it does.
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
      case c: CountMatches =>
        val on = PointInRange.sql(c.point, c.lower, c.upper, c.bounds)
        s"spark-rangejoin counts the pairs of the Inner join on `$on` without forming them, " +
          "as CountMatches"
    }.toArray
  }
}

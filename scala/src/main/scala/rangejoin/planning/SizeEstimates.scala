package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{ColumnStat, Join, LogicalPlan}
import org.apache.spark.sql.catalyst.plans.logical.statsEstimation.EstimationUtils
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage
import org.apache.spark.sql.types.Decimal

import rangejoin.condition.Equality

/** What the decision ladder reads from Spark's statistics of a join's inputs. */
private[planning] object SizeEstimates {

  /** The row count Spark estimates, else its size estimate divided by the row width. */
  def rows(plan: LogicalPlan): BigInt = {
    val stats = plan.stats
    stats.rowCount.getOrElse(stats.sizeInBytes / EstimationUtils.getSizePerRow(plan.output))
  }

  /**
   * Estimated pairs that share a key: left rows x right rows / key values, when Spark's
   * statistics have a distinct count for every key column of a side (`ANALYZE TABLE ... FOR
   * COLUMNS` with `spark.sql.cbo.enabled`); the larger side's count is taken.
   */
  def keyedCandidatePairs(join: Join, eqs: Seq[Equality]): Option[BigInt] = {
    def distinctKeys(plan: LogicalPlan, keys: Seq[Expression]): Option[BigInt] = {
      val counts = keys.map {
        case a: Attribute => distinctCount(plan, a)
        case _ => None
      }
      if (counts.forall(_.isDefined)) Some(counts.flatten.product.min(rows(plan))) else None
    }
    (distinctKeys(join.left, eqs.map(_.left)) ++ distinctKeys(join.right, eqs.map(_.right)))
      .reduceOption(_ max _)
      .map(keys => rows(join.left) * rows(join.right) / keys.max(1))
  }

  /** The distinct count of column `a` in `plan`'s statistics (see [[columnStat]]). */
  private def distinctCount(plan: LogicalPlan, a: Attribute): Option[BigInt] =
    columnStat(plan, a)(_.distinctCount)

  /**
   * The smallest and largest value of numeric, date or timestamp column `a` in `plan`'s
   * statistics, as doubles (dates in days, timestamps in microseconds).
   */
  def valueRange(plan: LogicalPlan, a: Attribute): Option[(Double, Double)] = {
    def number(v: Any): Option[Double] = v match {
      case n: java.lang.Number => Some(n.doubleValue)
      case d: Decimal => Some(d.toDouble)
      case _ => None
    }
    columnStat(plan, a) { stat =>
      for (min <- stat.min.flatMap(number); max <- stat.max.flatMap(number)) yield (min, max)
    }
  }

  /**
   * A statistic of column `a` in `plan`'s statistics. When adaptive execution re-plans a join,
   * the finished stages below it carry runtime row counts but no column statistics, so the
   * statistic is then read from the stage's logical plan, as the first planning saw it.
   */
  private def columnStat[T](plan: LogicalPlan, a: Attribute)(stat: ColumnStat => Option[T])
      : Option[T] =
    plan.stats.attributeStats.get(a).flatMap(stat).orElse {
      plan.collectFirst {
        case stage: LogicalQueryStage if stage.logicalPlan.outputSet.contains(a) =>
          stage.logicalPlan.stats.attributeStats.get(a).flatMap(stat)
      }.flatten
    }
}

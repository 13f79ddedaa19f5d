package rangejoin.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, TimeAdd}

/** A timestamp plus a day-time interval: `TimeAdd` up to Spark 4.0. */
object TimestampPlusInterval {
  def apply(timestamp: Expression, interval: Expression): Expression = TimeAdd(timestamp, interval)

  def unapply(e: Expression): Option[(Expression, Expression)] = e match {
    case TimeAdd(timestamp, interval, _) => Some((timestamp, interval))
    case _ => None
  }
}

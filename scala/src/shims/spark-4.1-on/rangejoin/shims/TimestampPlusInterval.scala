package rangejoin.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, TimestampAddInterval}

/** A timestamp plus a day-time interval: `TimestampAddInterval` from Spark 4.1 on. */
object TimestampPlusInterval {
  def apply(timestamp: Expression, interval: Expression): Expression =
    TimestampAddInterval(timestamp, interval)

  def unapply(e: Expression): Option[(Expression, Expression)] = e match {
    case TimestampAddInterval(timestamp, interval, _) => Some((timestamp, interval))
    case _ => None
  }
}

package rangejoin.shims

import scala.concurrent.Future

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.execution.exchange.BroadcastExchangeLike

/** Spark 3.5 declares `submitBroadcastJob` without a parameter list. */
object BroadcastJobs {

  /** Starts `exchange`'s broadcast job, once; the future of its broadcast. */
  def submit(exchange: BroadcastExchangeLike): Future[Broadcast[Any]] = exchange.submitBroadcastJob
}

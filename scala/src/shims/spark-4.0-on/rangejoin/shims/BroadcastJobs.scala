package rangejoin.shims

import scala.concurrent.Future

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.execution.exchange.BroadcastExchangeLike

/** From Spark 4.0 on `submitBroadcastJob` takes an empty parameter list. */
object BroadcastJobs {

  /** Starts `exchange`'s broadcast job, once; the future of its broadcast. */
  def submit(exchange: BroadcastExchangeLike): Future[Broadcast[Any]] =
    exchange.submitBroadcastJob()
}

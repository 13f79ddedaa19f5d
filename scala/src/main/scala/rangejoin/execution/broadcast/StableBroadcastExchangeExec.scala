package rangejoin.execution.broadcast

import java.util.concurrent.{CompletableFuture, Future => JFuture}

import scala.concurrent.{ExecutionContext, Future}

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastPartitioning, Partitioning}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, BroadcastExchangeLike}
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.shims.BroadcastJobs

/**
 * The broadcast exchange of a build input that reads cached data: the first run of a plan over
 * it broadcasts as Spark's exchange does; later runs over the same cached rows (the next
 * micro-batch of a stream-static join, a repeated query) reuse that broadcast
 * ([[StableBroadcasts]]) and run no job at all, so the rows are collected and sorted once and
 * executors keep the index they built from them ([[BuiltIndexes]]). When the input turns out
 * not to be stable at run time, every run is Spark's.
 *
 * Spark's exchange ([[BroadcastExchangeExec]]) does the work of a first run, as this node's
 * `spark`: the two share metrics, job tag and futures, so the Spark UI, cancellation and
 * adaptive query stages see one broadcast either way.
 */
case class StableBroadcastExchangeExec(keys: Seq[Expression], child: SparkPlan)
    extends BroadcastExchangeLike {

  /**
   * Sorted on `keys` bound to the input as it is (the join binds its keys to this node's output,
   * its input's, so that the two modes are equal and the join's distribution is satisfied).
   */
  def mode: SortedRowsBroadcastMode = SortedRowsBroadcastMode.of(keys, child.output)

  @transient private lazy val spark = BroadcastExchangeExec(mode, child)

  /** The input's identity across runs (None: not stable), worked out once, at run time. */
  @transient private lazy val identity: Option[AnyRef] =
    StableBroadcasts.identity(child, sparkContext)

  /** The kept broadcast this run reuses, looked up once, at the first run's start. */
  @transient private lazy val kept: Option[StableBroadcasts.Kept] =
    identity.flatMap(StableBroadcasts.get(sparkContext, _))

  /** Spark's broadcast, kept for the next run when the input is stable. */
  private def keep(made: Broadcast[Any]): Broadcast[Any] = {
    identity.foreach { id =>
      StableBroadcasts.put(sparkContext, id, StableBroadcasts.Kept(made, spark.runtimeStatistics))
    }
    made
  }

  override lazy val metrics: Map[String, SQLMetric] = spark.metrics

  override def jobTag: String = spark.jobTag

  override def outputPartitioning: Partitioning = BroadcastPartitioning(mode)

  @transient override lazy val relationFuture: JFuture[Broadcast[Any]] =
    kept.fold(spark.relationFuture)(k => CompletableFuture.completedFuture(k.broadcast))

  override protected def completionFuture: Future[Broadcast[Any]] = kept match {
    case Some(k) => Future.successful(k.broadcast)
    case None => BroadcastJobs.submit(spark).map(keep)(StableBroadcastExchangeExec.SameThread)
  }

  override def runtimeStatistics: Statistics = kept.fold(spark.runtimeStatistics)(_.statistics)

  override def doExecuteBroadcast[T](): Broadcast[T] = {
    val broadcast = kept.map(_.broadcast).getOrElse(keep(spark.executeBroadcast[Any]()))
    broadcast.asInstanceOf[Broadcast[T]]
  }

  override protected def doExecute(): RDD[InternalRow] = spark.execute()

  override def doCanonicalize(): SparkPlan = StableBroadcastExchangeExec(
    keys.map(QueryPlan.normalizeExpressions(_, child.output)),
    child.canonicalized
  )

  override def simpleString(maxFields: Int): String =
    s"$nodeName $mode, reused by later runs over the same cached rows"

  override protected def withNewChildInternal(newChild: SparkPlan): StableBroadcastExchangeExec =
    copy(child = newChild)
}

object StableBroadcastExchangeExec {

  /** Runs a callback in the thread that completes the future (as Scala 2.13's `parasitic`). */
  private val SameThread: ExecutionContext = ExecutionContext.fromExecutor(_.run())
}

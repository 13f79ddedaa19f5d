package rangejoin.execution.broadcast

import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.scheduler.{SparkListener, SparkListenerApplicationEnd}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan, Statistics}
import org.apache.spark.sql.execution.{LocalTableScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{
  BroadcastQueryStageExec,
  LogicalQueryStage,
  QueryStageExec
}
import org.apache.spark.sql.execution.columnar.{InMemoryRelation, InMemoryTableScanExec}

/**
 * The broadcasts of build inputs whose rows cannot change between runs, kept on the driver for
 * [[StableBroadcastExchangeExec]]: each micro-batch of a stream-static join whose static side
 * is cached (`df.cache()`), or a query repeated over a cached table, broadcasts the rows the
 * first run collected and sorted.
 *
 * An input is stable when every leaf of its plan is a scan of cached data (Spark's in-memory
 * columnar cache) or of rows inlined in the plan, and every expression in it is deterministic.
 * Its identity is its canonicalized plan together with the ids of the cached RDDs it scans:
 * uncaching, refreshing or caching a table again makes a new RDD, so a broadcast of older data
 * is never reused. Any other input (files, tables, a source that may have changed) is read again
 * in every run, as Spark reads it.
 *
 * At most [[Capacity]] broadcasts are kept per SparkContext, the least recently used dropped
 * first; Spark cleans up a dropped broadcast once no plan refers to it. A context's broadcasts are
 * dropped when it stops: a broadcast is a stopped context's to read, and its key, a plan, refers
 * to the stopped context's session.
 */
object StableBroadcasts {
  val Capacity = 4

  /** A kept broadcast and the statistics of the run that made it. */
  final case class Kept(broadcast: Broadcast[Any], statistics: Statistics)

  /** One context's kept broadcasts by identity, least recently used first. */
  private final class Recent extends java.util.LinkedHashMap[AnyRef, Kept](Capacity, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[AnyRef, Kept]): Boolean =
      this.size() > Capacity
  }

  /** The kept broadcasts of each live context; guarded by itself. */
  private val byContext = new java.util.WeakHashMap[SparkContext, Recent]

  def get(sc: SparkContext, identity: AnyRef): Option[Kept] = byContext.synchronized {
    Option(byContext.get(sc)).flatMap(recent => Option(recent.get(identity)))
  }

  def put(sc: SparkContext, identity: AnyRef, kept: Kept): Unit = byContext.synchronized {
    val recent = Option(byContext.get(sc)).getOrElse {
      val made = new Recent
      byContext.put(sc, made)
      sc.addSparkListener(new SparkListener {
        override def onApplicationEnd(end: SparkListenerApplicationEnd): Unit =
          byContext.synchronized(byContext.remove(sc))
      })
      made
    }
    recent.put(identity, kept)
    // A context that stopped before its listener was added never tells it.
    if (sc.isStopped) byContext.remove(sc)
  }

  /** How many broadcasts are kept, over every context. */
  private[rangejoin] def size: Int = byContext.synchronized {
    var kept = 0
    byContext.values.forEach(recent => kept += recent.size)
    kept
  }

  /**
   * Whether a build input reads cached data and nothing that may change, as the planner sees it
   * (adaptive replanning shows a materialized cache as a logical query stage): its broadcast is
   * then worth keeping for later runs. An input that replanning shows as a broadcast stage is
   * broadcast already.
   */
  def readsCachedData(plan: LogicalPlan): Boolean = plan match {
    case stage: LogicalQueryStage if stage.physicalPlan.isInstanceOf[BroadcastQueryStageExec] =>
      false
    case _ => onlyCachedLeaves(plan)
  }

  private def onlyCachedLeaves(plan: LogicalPlan): Boolean = {
    def leaves(p: LogicalPlan): Seq[LogicalPlan] = p match {
      case stage: LogicalQueryStage => leaves(stage.logicalPlan)
      case leaf if leaf.children.isEmpty => Seq(leaf)
      case node => node.children.flatMap(leaves)
    }
    val found = leaves(plan)
    found.exists(_.isInstanceOf[InMemoryRelation]) &&
    found.forall(l => l.isInstanceOf[InMemoryRelation] || l.isInstanceOf[LocalRelation]) &&
    !plan.exists(_.expressions.exists(!_.deterministic))
  }

  /**
   * The identity of a stable input's rows, or None when they may differ between runs: it reads
   * something other than cached or inlined rows, or a cache that is no longer persisted. Adaptive
   * query stages (a cached table's) are looked through to the plans they ran. The caches are
   * looked up in `sc`, the plan's own context, whichever thread asks and whatever session is
   * active on it.
   */
  def identity(plan: SparkPlan, sc: SparkContext): Option[AnyRef] = {
    val leaves = leavesThroughStages(plan)
    val stable = !plan.exists(_.expressions.exists(!_.deterministic)) && leaves.forall {
      case _: InMemoryTableScanExec | _: LocalTableScanExec => true
      case _ => false
    }
    val cached = leaves.collect { case s: InMemoryTableScanExec =>
      s.relation.cacheBuilder.cachedColumnBuffers.id
    }
    // An unpersisted cache is computed again from its source, which may have changed.
    val persisted = sc.getPersistentRDDs
    if (stable && cached.forall(persisted.contains))
      Some((plan.canonicalized, cached))
    else None
  }

  private def leavesThroughStages(plan: SparkPlan): Seq[SparkPlan] = plan match {
    case stage: QueryStageExec => leavesThroughStages(stage.plan)
    case leaf if leaf.children.isEmpty => Seq(leaf)
    case node => node.children.flatMap(leavesThroughStages)
  }
}

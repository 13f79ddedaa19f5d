package rangejoin.outside

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.util.QueryExecutionListener

/** The plugin's operators in an executed plan: adaptive stages and subqueries included. */
object PluginOperators extends AdaptiveSparkPlanHelper {

  /** The node names of the plugin's operators in `plan` (its classes live in `rangejoin.`). */
  def in(plan: SparkPlan): Seq[String] =
    collectWithSubqueries(plan) {
      case p if p.getClass.getName.startsWith("rangejoin.") => p.nodeName
    }
}

/**
 * A query execution listener (registered by [[PluginSettings]]) that counts, for the current
 * scope (a suite, a golden file), the queries that succeeded, those with a plugin operator in
 * their executed plan, and the operators seen. Listener events arrive on Spark's listener bus; a scope's
 * counts are complete once its SparkContext has stopped, or its listener bus has drained.
 */
class PluginPlans extends QueryExecutionListener {
  override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit = {
    PluginPlans.record(PluginOperators.in(qe.executedPlan))
  }

  override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
}

object PluginPlans {
  @volatile private var scope = ""
  private val queries = new ConcurrentHashMap[String, AtomicLong]()
  private val accelerated = new ConcurrentHashMap[String, AtomicLong]()
  private val operators = new ConcurrentHashMap[String, java.util.Set[String]]()

  /** Attributes the queries that run from now on to `name`. */
  def enter(name: String): Unit = scope = name

  private def record(names: Seq[String]): Unit = {
    val current = scope
    queries.computeIfAbsent(current, _ => new AtomicLong).incrementAndGet()
    if (names.nonEmpty) {
      accelerated.computeIfAbsent(current, _ => new AtomicLong).incrementAndGet()
      operators.computeIfAbsent(current, _ => ConcurrentHashMap.newKeySet[String]())
      names.foreach(operators.get(current).add)
    }
  }

  /** The queries of scope `name` that succeeded. */
  def queriesOf(name: String): Long = Option(queries.get(name)).map(_.get).getOrElse(0L)

  /** The queries of scope `name` that succeeded with a plugin operator. */
  def acceleratedOf(name: String): Long =
    Option(accelerated.get(name)).map(_.get).getOrElse(0L)

  /** The plugin operators scope `name` ran, sorted. */
  def operatorsOf(name: String): Seq[String] = {
    import scala.jdk.CollectionConverters._
    Option(operators.get(name)).map(_.asScala.toSeq.sorted).getOrElse(Nil)
  }
}

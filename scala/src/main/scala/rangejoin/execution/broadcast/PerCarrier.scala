package rangejoin.execution.broadcast

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.metric.SQLMetric

import rangejoin.execution.blocks.PackedRows

/**
 * What this JVM derived from broadcast carriers (an index, sorted keys), once per carrier and
 * key, shared by every task that reads the same carrier. A carrier is the broadcast's value,
 * which the block manager holds once per executor and hands to every task, so tasks of one
 * executor, of one query or of the next micro-batch that broadcasts the same carrier
 * ([[StableBroadcasts]]) share what was derived. Carriers are held weakly: a derived value lives
 * as long as its broadcast's value does.
 */
object PerCarrier {
  private val derived = new java.util.WeakHashMap[AnyRef, Map[Any, Any]]()

  /**
   * The value derived from `carrier` under `key`: built by `build` by the first task to ask (the
   * others wait), then shared. `key` tells apart different values derived from one carrier.
   */
  def apply[T](carrier: AnyRef, key: Any)(build: => T): T = derived.synchronized {
    val known = Option(derived.get(carrier)).getOrElse(Map.empty)
    known.get(key) match {
      case Some(value) => value.asInstanceOf[T]
      case None =>
        val value = build
        derived.put(carrier, known + (key -> value))
        value
    }
  }

  /**
   * The value `build` derives from the rows of a broadcast carrier ([[SortedBuildRows]]), under
   * `key`, as [[apply]] shares it; `builds` counts one per build.
   */
  def ofRows[T](carrier: Broadcast[Array[InternalRow]], key: Any, builds: SQLMetric)(
      build: PackedRows => T
  ): T =
    apply(carrier.value, key) {
      builds += 1
      build(SortedBuildRows.carriedRows(carrier.value.head.asInstanceOf[UnsafeRow]))
    }
}

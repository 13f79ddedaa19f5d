package rangejoin.faults

import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}
import java.util.concurrent.atomic.AtomicBoolean

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler._

/**
 * Watches the stages that run a query's join (those whose RDD names `isJoinStage` accepts): calls
 * `onFirstTask` once, at the first start of a task of such a stage that `trigger` accepts, and
 * keeps the task starts and ends of those stages. Events arrive in order on the listener bus, so
 * a stage is known before its tasks start.
 */
final class StageWatch(
    isJoinStage: Seq[String] => Boolean,
    onFirstTask: TaskInfo => Unit = _ => (),
    trigger: TaskInfo => Boolean = _ => true
) extends SparkListener {
  private val stages = ConcurrentHashMap.newKeySet[Int]()
  private val fired = new AtomicBoolean
  private val started = new ConcurrentLinkedQueue[SparkListenerTaskStart]
  private val ended = new ConcurrentLinkedQueue[SparkListenerTaskEnd]

  override def onStageSubmitted(event: SparkListenerStageSubmitted): Unit =
    if (isJoinStage(event.stageInfo.rddInfos.map(_.name))) stages.add(event.stageInfo.stageId)

  override def onTaskStart(event: SparkListenerTaskStart): Unit =
    if (stages.contains(event.stageId)) {
      started.add(event)
      if (trigger(event.taskInfo) && fired.compareAndSet(false, true)) onFirstTask(event.taskInfo)
    }

  override def onTaskEnd(event: SparkListenerTaskEnd): Unit =
    if (stages.contains(event.stageId)) ended.add(event)

  /** Whether `onFirstTask` has been called. */
  def joinTaskStarted: Boolean = fired.get

  /** The join stages' task starts so far. */
  def taskStarts: Seq[SparkListenerTaskStart] = started.asScala.toSeq

  /** The join stages' task ends so far. */
  def taskEnds: Seq[SparkListenerTaskEnd] = ended.asScala.toSeq

  /** The join stages' tasks started and not ended. */
  def running: Int = started.size - ended.size
}

package rangejoin.outside

import scala.collection.mutable

import org.scalatest.{Args, Reporter, Suite}
import org.scalatest.events._

/** How one test of a suite ended. */
sealed trait Outcome
object Outcome {
  case object Passed extends Outcome
  final case class Failed(message: String) extends Outcome

  /** Ignored, canceled (an `assume` that did not hold) or pending: not run to an answer. */
  final case class NotRun(why: String) extends Outcome
}

/** The outcomes of one run of a suite, by test name, and why the suite aborted if it did. */
final case class SuiteOutcomes(tests: Seq[(String, Outcome)], aborted: Option[String]) {
  def count(p: Outcome => Boolean): Int = tests.count { case (_, o) => p(o) }
  def passed: Int = count(_ == Outcome.Passed)
  def failed: Seq[(String, String)] = tests.collect { case (t, Outcome.Failed(m)) => t -> m }
  def notRun: Int = count(_.isInstanceOf[Outcome.NotRun])
}

object SuiteOutcomes {

  /**
   * Runs the ScalaTest suite `className` (all its tests, or only `only`) in this JVM and returns
   * how each test ended.
   */
  def run(className: String, only: Option[String] = None): SuiteOutcomes = {
    val recorder = new Recorder
    val suite = Class.forName(className).getDeclaredConstructor().newInstance().asInstanceOf[Suite]
    try suite.run(only, Args(recorder)).waitUntilCompleted()
    catch {
      case e: Throwable =>
        e.printStackTrace()
        recorder.abort(s"${e.getClass.getName}: ${e.getMessage}")
    }
    recorder.outcomes
  }

  private final class Recorder extends Reporter {
    private val tests = mutable.ArrayBuffer.empty[(String, Outcome)]
    private var aborted: Option[String] = None

    def abort(why: String): Unit = synchronized { if (aborted.isEmpty) aborted = Some(why) }

    def outcomes: SuiteOutcomes = synchronized(SuiteOutcomes(tests.toList, aborted))

    override def apply(event: Event): Unit = synchronized {
      event match {
        case e: TestSucceeded => tests += e.testName -> Outcome.Passed
        case e: TestFailed => tests += e.testName -> Outcome.Failed(firstLine(e.message))
        case e: TestIgnored => tests += e.testName -> Outcome.NotRun("ignored")
        case e: TestCanceled => tests += e.testName -> Outcome.NotRun(firstLine(e.message))
        case e: TestPending => tests += e.testName -> Outcome.NotRun("pending")
        case e: SuiteAborted =>
          e.throwable.foreach(_.printStackTrace())
          abort(firstLine(e.message))
        case _ =>
      }
    }

    private def firstLine(message: String): String =
      message.linesIterator.find(_.trim.nonEmpty).getOrElse("").take(300)
  }
}

package rangejoin.outside

/**
 * The tests of Spark's suites that fail with the plugin on, each with the failure it gives and
 * the reason. Only a test that asserts which physical operator Spark itself plans may be here:
 * the plugin planned its own operator for that join. [[SparkSuites]] checks that every test
 * listed here fails with the plugin on with this failure, and passes with the plugin off.
 */
object ExpectedDifferences {

  /** A listed test: the start of the message it fails with, and why it differs. */
  final case class Difference(test: String, failure: String, reason: String)

  private val bySuite: Map[String, Seq[Difference]] = Map(
    "JoinSuite" -> Seq(
      Difference(
        "join operator selection",
        "0 did not equal 1",
        "counts Spark's join operators by class for each query; for the inequality joins " +
          "(`key > a`, `key < a` and the like) the plugin plans its own operator instead of " +
          "BroadcastNestedLoopJoinExec or CartesianProductExec"
      ),
      Difference(
        "cross join with broadcast",
        "0 did not equal 1",
        "expects BroadcastNestedLoopJoinExec for `testData JOIN testData2 WHERE key > a`; the " +
          "plugin plans its own operator for that inequality join"
      )
    ),
    "JoinHintSuite" -> Seq(
      Difference(
        "join strategy hint - broadcast",
        "List() had size 0 instead of expected size 1",
        "expects BroadcastNestedLoopJoinExec for a hinted inequality join; the plugin honours " +
          "the BROADCAST hint with its broadcast range join (the hinted side is broadcast)"
      )
    )
  )

  /** The listed tests of suite `suite` (its simple class name). */
  def of(suite: String): Seq[Difference] = bySuite.getOrElse(suite, Nil)

  def find(suite: String, test: String): Option[Difference] = of(suite).find(_.test == test)
}

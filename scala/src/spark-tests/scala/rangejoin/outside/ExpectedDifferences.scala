package rangejoin.outside

/**
 * The tests of Spark's suites that fail with the plugin on, each with the reason. Only a test that
 * asserts which physical operator Spark itself plans may be here: the plugin planned its own
 * operator for that join and the answers are equal. [[SparkSuites]] checks that every test listed
 * here fails with the plugin on and passes with it off.
 */
object ExpectedDifferences {

  private val bySuite: Map[String, Seq[(String, String)]] = Map()

  /** The listed tests of suite `suite` (its simple class name), with their reasons. */
  def of(suite: String): Seq[(String, String)] = bySuite.getOrElse(suite, Nil)

  def reason(suite: String, test: String): Option[String] =
    of(suite).collectFirst { case (t, why) if t == test => why }
}

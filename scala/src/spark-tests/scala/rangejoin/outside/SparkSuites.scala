package rangejoin.outside

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import org.apache.spark.SPARK_VERSION

/**
 * Runs Spark's own join suites, from the test jars Spark publishes, with the plugin installed in
 * every session they build ([[PluginSettings]]), and checks each outcome:
 *
 *  - every test passes, except those [[ExpectedDifferences]] lists, each with its reason;
 *  - every listed test that ran fails with the plugin on and passes with it off (run again alone
 *    with `spark.rangejoin.enabled=false`), so the difference is the plugin's planning and the
 *    list holds no stale entry;
 *  - no suite aborts.
 *
 * Usage: `SparkSuites <results.json> <suite class>...`. Writes the counts per suite to the JSON
 * file (the documentation's page is rendered from it) and exits with 1 if a check fails.
 */
object SparkSuites {

  final case class SuiteRow(
      suite: String,
      present: Boolean,
      run: Int,
      passed: Int,
      notRun: Int,
      expected: Seq[(String, String)],
      problems: Seq[String],
      queries: Long,
      pluginQueries: Long,
      operators: Seq[String]
  )

  def main(args: Array[String]): Unit = {
    require(args.length >= 2, "usage: SparkSuites <results.json> <suite class>...")
    val out = Paths.get(args(0))
    val rows = args.toSeq.drop(1).map(check)
    write(out, rows)
    val problems = rows.flatMap(r => r.problems.map(p => s"${r.suite}: $p"))
    rows.foreach { r =>
      println(
        f"${r.suite}%-60s run ${r.run}%4d passed ${r.passed}%4d expected to differ " +
          f"${r.expected.size}%3d not run ${r.notRun}%3d queries ${r.queries}%5d with the plugin's " +
          f"operators ${r.pluginQueries}%5d"
      )
    }
    if (problems.nonEmpty) {
      problems.foreach(p => System.err.println(s"FAILED $p"))
      sys.exit(1)
    }
  }

  private def check(suite: String): SuiteRow = {
    val simple = suite.split('.').last
    if (!exists(suite)) {
      println(s"$suite: not in Spark $SPARK_VERSION's test jar")
      return SuiteRow(simple, present = false, 0, 0, 0, Nil, Nil, 0, 0, Nil)
    }
    PluginSettings.install(on = true)
    PluginPlans.enter(suite)
    val outcomes = SuiteOutcomes.run(suite)
    val problems = Seq.newBuilder[String]
    outcomes.aborted.foreach(why => problems += s"aborted: $why")
    val expected = Seq.newBuilder[(String, String)]
    outcomes.failed.foreach { case (test, message) =>
      ExpectedDifferences.find(simple, test) match {
        case None => problems += s"'$test' failed: $message"
        case Some(d) if !message.startsWith(d.failure) =>
          problems += s"'$test' (expected to differ) failed otherwise than listed: $message"
        case Some(d) =>
          if (passesWithPluginOff(suite, test)) expected += test -> d.reason
          else problems += s"'$test' (expected to differ) fails with the plugin off too"
      }
    }
    val ran = outcomes.tests.map(_._1).toSet
    ExpectedDifferences.of(simple).foreach { d =>
      if (ran.contains(d.test) && !outcomes.failed.exists(_._1 == d.test))
        problems += s"'${d.test}' is listed as expected to differ but passed with the plugin on"
    }
    val run = outcomes.tests.size - outcomes.notRun
    SuiteRow(
      simple,
      present = true,
      run,
      outcomes.passed,
      outcomes.notRun,
      expected.result(),
      problems.result(),
      PluginPlans.queriesOf(suite),
      PluginPlans.acceleratedOf(suite),
      PluginPlans.operatorsOf(suite)
    )
  }

  private def passesWithPluginOff(suite: String, test: String): Boolean = {
    PluginSettings.install(on = false)
    PluginPlans.enter(s"$suite (plugin off)")
    try {
      val again = SuiteOutcomes.run(suite, Some(test))
      again.aborted.isEmpty && again.passed == 1
    } finally PluginSettings.install(on = true)
  }

  private def exists(className: String): Boolean =
    try { Class.forName(className); true }
    catch { case _: ClassNotFoundException => false }

  private def write(out: Path, rows: Seq[SuiteRow]): Unit = {
    val suites = rows.map { r =>
      val expected = r.expected.map { case (t, why) =>
        s"""{"test": ${Json.str(t)}, "reason": ${Json.str(why)}}"""
      }
      s"""{"suite": ${Json.str(r.suite)}, "present": ${r.present}, "run": ${r.run}, """ +
        s""""passed": ${r.passed}, "not_run": ${r.notRun}, "queries": ${r.queries}, "plugin_queries": ${r.pluginQueries}, """ +
        s""""operators": [${r.operators.map(Json.str).mkString(", ")}], """ +
        s""""problems": [${r.problems.map(Json.str).mkString(", ")}], """ +
        s""""expected_to_differ": [${expected.mkString(", ")}]}"""
    }
    Json.writeResults(out, "suites", suites)
  }
}

/** Just enough JSON for the results files: string literals, and the file itself. */
object Json {

  /**
   * Writes a results file: the Spark version, the plugin's settings ([[PluginSettings]]) and
   * `entries` (JSON objects) under `key`.
   */
  def writeResults(out: Path, key: String, entries: Seq[String]): Unit = {
    val settings = PluginSettings.describe.map(str).mkString(", ")
    val text = s"""{"spark": ${str(SPARK_VERSION)}, "settings": [$settings],
                  |"$key": [
                  |${entries.mkString(",\n")}
                  |]}
                  |""".stripMargin
    Files.createDirectories(out.toAbsolutePath.getParent)
    Files.write(out, text.getBytes(StandardCharsets.UTF_8))
  }

  def str(s: String): String = {
    val b = new StringBuilder("\"")
    s.foreach {
      case '"' => b.append("\\\"")
      case '\\' => b.append("\\\\")
      case '\n' => b.append("\\n")
      case '\r' => b.append("\\r")
      case '\t' => b.append("\\t")
      case c if c < ' ' => b.append(f"\\u${c.toInt}%04x")
      case c => b.append(c)
    }
    b.append('"').toString
  }
}

package rangejoin.outside

import java.nio.file.{Files, Path, Paths, StandardCopyOption}

import scala.util.control.NonFatal

import org.apache.spark.{SPARK_VERSION, SparkException}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.{HiveResult, SQLExecution}

import rangejoin.config.RangeJoinConf

/**
 * Replays SQL golden files of Spark's test jar with the plugin installed ([[PluginSettings]]):
 * every query of each file, in every round of its settings ([[GoldenFile.rounds]]), compared
 * with the schema and rows Spark recorded (rows as a multiset, in Spark's own string form), or,
 * for a query Spark recorded as failing, the exception's class. Every query whose plan holds a
 * plugin operator runs again with `spark.rangejoin.enabled=false` and must give the same answer.
 *
 * A query that differs from its golden file counts against the plugin only if the plugin off
 * answers otherwise; one that differs as much with the plugin off (this runner is not Spark's own
 * golden-file suite, whose every setting it does not reproduce) is reported with both answers.
 *
 * A query whose answer SQL leaves open (a `LIMIT` without `ORDER BY` inside a correlated
 * subquery) may differ between the plugin on and off only if [[ConformanceDifferences]] lists it,
 * with the reason.
 *
 * Usage: `Conformance <results.json> <file under sql-tests/inputs>...`; exits with 1 on a wrong
 * answer (plugin on and off disagree) or a file that cannot run.
 */
object Conformance {

  /** A query's answer: its schema and sorted rows, or the class of the exception it threw. */
  sealed trait Answer
  final case class Rows(schema: String, rows: Seq[String]) extends Answer
  final case class Failed(exception: String) extends Answer

  final case class FileRow(
      file: String,
      present: Boolean,
      rounds: Int,
      queries: Int,
      passed: Int,
      pluginQueries: Int,
      operators: Seq[String],
      differsWithPluginOff: Seq[String],
      expectedToDiffer: Seq[String],
      wrong: Seq[String]
  )

  def main(args: Array[String]): Unit = {
    require(args.length >= 2, "usage: Conformance <results.json> <input file>...")
    PluginSettings.install(on = true)
    val spark = SparkSession
      .builder()
      .master("local[2]")
      .appName("conformance")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "4")
      // As Spark's test sessions, which recorded the golden files: local relations stay
      // projections over a table scan, as their EXPLAIN output shows.
      .config(
        "spark.sql.optimizer.excludedRules",
        "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"
      )
      .config("spark.sql.warehouse.dir", Files.createTempDirectory("conformance").toString)
      .getOrCreate()
    try {
      PostgresTables.create(spark)
      val rows = args.toSeq.drop(1).map(f => replay(spark, f))
      write(Paths.get(args(0)), rows)
      rows.foreach { r =>
        println(
          f"${r.file}%-60s rounds ${r.rounds}%d queries ${r.queries}%5d passed ${r.passed}%5d " +
            f"with the plugin's operators ${r.pluginQueries}%4d differ with the plugin off " +
            f"${r.differsWithPluginOff.size}%3d expected to differ ${r.expectedToDiffer.size}%d " +
            f"wrong ${r.wrong.size}%d"
        )
      }
      val wrong = rows.flatMap(r => r.wrong.map(w => s"${r.file}: $w"))
      val missing = rows.filterNot(_.present).map(_.file)
      if (wrong.nonEmpty || missing.nonEmpty) {
        wrong.foreach(w => System.err.println(s"WRONG $w"))
        missing.foreach(m => System.err.println(s"MISSING $m: not in Spark $SPARK_VERSION's jar"))
        sys.exit(1)
      }
    } finally spark.stop()
  }

  private def replay(spark: SparkSession, file: String): FileRow =
    GoldenFile.load(file) match {
      case None => FileRow(file, present = false, 0, 0, 0, 0, Nil, Nil, Nil, Nil)
      case Some(golden) =>
        var queries, passed, accelerated = 0
        val operators = scala.collection.mutable.SortedSet.empty[String]
        val differs, expected, wrong = Seq.newBuilder[String]
        for (round <- golden.rounds) {
          val session = spark.newSession()
          if (file.startsWith("postgreSQL/")) {
            session.conf.set("spark.sql.ansi.enabled", "true")
            session.conf.set("spark.sql.legacy.interval.enabled", "true")
          }
          round.foreach { case (k, v) => session.conf.set(k, v) }
          for (c <- golden.cases) {
            queries += 1
            val (on, plugin) = answer(session, c.sql)
            if (plugin.nonEmpty) {
              accelerated += 1
              operators ++= plugin
            }
            lazy val off = {
              session.conf.set(RangeJoinConf.Enabled.key, "false")
              try answer(session, c.sql)._1
              finally session.conf.set(RangeJoinConf.Enabled.key, "true")
            }
            val recorded = c.error match {
              case Some(e) => Failed(e)
              case None => Rows(c.schema, c.output.sorted)
            }
            val settings = round.map { case (k, v) => s"$k=$v" }.mkString(", ")
            val where = s"[$settings] ${c.sql.replaceAll("\\s+", " ").take(200)}"
            val listed = ConformanceDifferences.find(file, c.sql)
            if (plugin.nonEmpty && !same(on, off) && listed.nonEmpty)
              expected += s"$where: ${listed.get}"
            else if (plugin.nonEmpty && !same(on, off))
              wrong += s"$where: plugin on ${brief(on)}, off ${brief(off)}"
            else if (same(on, recorded)) passed += 1
            else if (same(off, on)) differs += s"$where: ${brief(on)}, recorded ${brief(recorded)}"
            else wrong += s"$where: plugin on ${brief(on)}, off ${brief(off)}"
          }
        }
        FileRow(
          file,
          present = true,
          golden.rounds.size,
          queries,
          passed,
          accelerated,
          operators.toSeq,
          differs.result(),
          expected.result(),
          wrong.result()
        )
    }

  private def same(a: Answer, b: Answer): Boolean = (a, b) match {
    case (Failed(x), Failed(y)) => x == y
    case (Rows(s1, r1), Rows(s2, r2)) => s1 == s2 && r1 == r2
    case _ => false
  }

  private def brief(a: Answer): String = a match {
    case Failed(e) => s"fails with $e"
    case Rows(schema, rows) => s"$schema, ${rows.size} rows: ${rows.take(3).mkString(" | ")}"
  }

  /** `sql`'s answer in `session`, and the plugin operators its executed plan holds. */
  private def answer(session: SparkSession, sql: String): (Answer, Seq[String]) =
    try {
      val df: DataFrame = session.sql(sql)
      val rows = SQLExecution.withNewExecutionId(df.queryExecution, Some(sql)) {
        HiveResult.hiveResultString(df.queryExecution.executedPlan)
      }
      val plan = df.queryExecution.executedPlan
      // A golden file holds the output's lines, trailing whitespace dropped (an EXPLAIN's one
      // row is many lines).
      val text = rows.map(normalized).mkString("\n").replaceAll("\\s+$", "")
      val lines = if (text.isEmpty) Seq.empty[String] else text.split("\n").toSeq
      (Rows(df.schema.catalogString, lines.sorted), PluginOperators.in(plan))
    } catch {
      case e: SparkException if e.getCause != null && !e.getClass.getName.contains("Analysis") =>
        (Failed(e.getCause.getClass.getName), Nil)
      case NonFatal(e) => (Failed(e.getClass.getName), Nil)
    }

  /**
   * `line` without what differs between two runs of one plan: expression and plan ids, and the
   * random seeds of nondeterministic expressions (`uuid(Some(<seed>))`), as the golden files
   * record them.
   */
  private def normalized(line: String): String =
    line
      .replaceAll("#\\d+", "#x")
      .replaceAll("Some\\(-?\\d+\\)", "Some(x)")
      .replaceAll("plan_id=\\d+", "plan_id=x")
      .replaceAll("\\*\\(\\d+\\) ", "*")

  private def write(out: Path, rows: Seq[FileRow]): Unit = {
    val files = rows.map { r =>
      def list(xs: Seq[String]) = xs.map(Json.str).mkString("[", ", ", "]")
      s"""{"file": ${Json.str(r.file)}, "present": ${r.present}, "rounds": ${r.rounds}, """ +
        s""""queries": ${r.queries}, "passed": ${r.passed}, "plugin_queries": ${r.pluginQueries}, """ +
        s""""operators": ${list(r.operators)}, "differ_with_plugin_off": """ +
        s"""${list(r.differsWithPluginOff)}, "expected_to_differ": ${list(
            r.expectedToDiffer
          )}, """ +
        s""""wrong": ${list(r.wrong)}}"""
    }
    Json.writeResults(out, "files", files)
  }
}

/**
 * The tables `onek` and `tenk1` the PostgreSQL golden files read, loaded from the tab-separated
 * files of Spark's test jar as Spark's golden-file suite loads them.
 */
object PostgresTables {
  private val columns =
    "unique1 int, unique2 int, two int, four int, ten int, twenty int, hundred int, " +
      "thousand int, twothousand int, fivethous int, tenthous int, odd int, even int, " +
      "stringu1 string, stringu2 string, string4 string"

  def create(spark: SparkSession): Unit =
    Seq("onek" -> "onek.data", "tenk1" -> "tenk.data").foreach { case (table, data) =>
      val in = getClass.getClassLoader.getResourceAsStream(s"test-data/postgresql/$data")
      require(in != null, s"test-data/postgresql/$data is not in Spark's test jar")
      val file = Files.createTempFile(table, ".data")
      try Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING)
      finally in.close()
      spark.read
        .option("delimiter", "\t")
        .option("header", "false")
        .schema(columns)
        .csv(file.toString)
        .write
        .format("parquet")
        .saveAsTable(table)
    }
}

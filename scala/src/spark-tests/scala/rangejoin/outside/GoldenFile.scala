package rangejoin.outside

import scala.io.Source

/**
 * A SQL golden file of Spark's test jar: the queries of `sql-tests/inputs/<name>`, the settings
 * its comment lines ask for, and the schema and output Spark recorded for each query in
 * `sql-tests/results/<name>.out`.
 */
final case class GoldenFile(
    name: String,
    settings: Seq[(String, String)],
    dimensions: Seq[Seq[Seq[(String, String)]]],
    cases: Seq[GoldenFile.Case]
) {

  /**
   * The settings of each round: round `i` takes the `i`-th value of every `--CONFIG_DIM` line
   * group (cycling), so every value of every dimension runs once, in as many rounds as the
   * largest dimension has values (Spark runs their full product).
   */
  def rounds: Seq[Seq[(String, String)]] = {
    val count = (1 +: dimensions.map(_.size)).max
    (0 until count).map(i => settings ++ dimensions.flatMap(d => d(i % d.size)))
  }
}

object GoldenFile {

  /** One query: its SQL, the schema recorded (`struct<>` for commands) and its output lines. */
  final case class Case(sql: String, schema: String, output: Seq[String]) {

    /** The exception class Spark recorded, when the query failed. */
    def error: Option[String] =
      output.headOption.filter(l =>
        schema == "struct<>" && ExceptionClass.pattern.matcher(l).matches()
      )
  }

  private val ExceptionClass = """[a-z][\w.]*\.[A-Z]\w*(Exception|Error)""".r

  /** The file `name` (its path under `sql-tests/inputs/`), or None if the jar has no such file. */
  def load(name: String): Option[GoldenFile] =
    for {
      input <- resource(s"sql-tests/inputs/$name")
      results <- resource(s"sql-tests/results/$name.out")
    } yield {
      val comments = input.linesIterator.filter(_.startsWith("--")).toSeq
      def pairs(text: String): Seq[(String, String)] = text.split(",").toSeq.map { kv =>
        val (k, v) = kv.span(_ != '=')
        k.trim -> v.drop(1).trim
      }
      val settings = comments.filter(_.startsWith("--SET ")).flatMap(l => pairs(l.drop(6)))
      val dimensions = comments
        .filter(_.startsWith("--CONFIG_DIM"))
        .map(l => l.drop("--CONFIG_DIM".length).span(_ != ' '))
        .groupBy(_._1)
        .toSeq
        .sortBy(_._1)
        .map { case (_, values) => values.map(v => pairs(v._2.trim)) }
      GoldenFile(name, settings, dimensions, parse(results))
    }

  /** The cases of a results file: `-- !query`, `-- !query schema`, `-- !query output` blocks. */
  def parse(results: String): Seq[Case] = {
    val blocks = results.split("\n-- !query", -1).toSeq.drop(1).map("-- !query" + _)
    blocks
      .map(_.linesIterator.toSeq)
      .grouped(3)
      .collect {
        case Seq(q, s, o) if s.headOption.contains("-- !query schema") =>
          val output = o.drop(1).mkString("\n").replaceAll("\\s+$", "")
          Case(
            q.drop(1).mkString("\n").trim,
            s.drop(1).mkString("\n").trim,
            if (output.isEmpty) Nil else output.split("\n").toSeq
          )
      }
      .toSeq
  }

  private def resource(path: String): Option[String] =
    Option(getClass.getClassLoader.getResourceAsStream(path)).map { in =>
      try Source.fromInputStream(in, "UTF-8").mkString
      finally in.close()
    }
}

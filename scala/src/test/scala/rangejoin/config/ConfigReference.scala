package rangejoin.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

/**
 * The configuration reference of the documentation site (`docs/configuration.md`), generated
 * from [[RangeJoinConf.all]]: a table of every key with its type, default and allowed values,
 * then a section per key with its documentation. `make config-docs` writes the page;
 * `ConfigReferenceSuite` fails when the page and the code differ.
 */
object ConfigReference {

  val pagePath = "docs/configuration.md"

  /** The page, as `make config-docs` writes it. */
  def markdown: String = {
    val intro =
      """# Configuration
        |
        |<!-- Generated from RangeJoinConf by `make config-docs`; edit the code, not this page. -->
        |
        |Every key is read from the session's SQL configuration each time a query is planned, so
        |`spark.conf.set(key, value)` takes effect on the next query; for as-of joins,
        |`spark.rangejoin.enabled` and `spark.rangejoin.asOfJoin.enabled` are read when the
        |DataFrame is analyzed. Keys can be set in `spark-defaults.conf`, with `--conf` or on a
        |session builder. A value that does not parse fails planning with a message that names the
        |key and its allowed values; a `spark.rangejoin.*` key that does not exist fails when the
        |session starts, naming the closest key. `conf/spark-defaults.conf` in the repository sets
        |every key to its default.
        |""".stripMargin
    val table = Seq("| key | type | default | allowed values |", "|---|---|---|---|") ++
      RangeJoinConf.all.map { entry =>
        s"| [`${entry.key}`](#${anchor(entry.key)}) | ${typeName(entry)} | `${entry.default}` | " +
          s"${entry.allowed} |"
      }
    val sections = RangeJoinConf.all.map { entry =>
      val renamed =
        if (entry.deprecatedKeys.isEmpty) Nil
        else
          Seq(
            s"Also read under its deprecated name " +
              s"${entry.deprecatedKeys.map(k => s"`$k`").mkString(", ")} when this key is " +
              "unset, with a warning.",
            ""
          )
      Seq(
        s"## `${entry.key}`",
        "",
        s"${typeName(entry)}, default `${entry.default}`; allowed: ${entry.allowed}.",
        "",
        entry.doc,
        ""
      ) ++ renamed
    }
    (intro +: table ++: "" +: sections.flatten).mkString("\n")
  }

  /** The anchor mkdocs gives a key's heading: its letters and digits, lower-cased. */
  def anchor(key: String): String = key.toLowerCase.filter(_.isLetterOrDigit)

  private def typeName(entry: ConfEntry[_]): String = entry.default match {
    case _: Boolean => "boolean"
    case _: Int => "int"
    case _: Long => "long"
    case _: Double => "double"
    case other => other.getClass.getSimpleName
  }

  /** Writes the page to the path given, or to [[pagePath]]. */
  def main(args: Array[String]): Unit = {
    val path = Paths.get(args.headOption.getOrElse(pagePath))
    Files.write(path, markdown.getBytes(StandardCharsets.UTF_8))
    println(s"wrote $path")
  }
}

package rangejoin.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

/**
 * The documentation's configuration page, and the example `conf/spark-defaults.conf`, list
 * exactly the keys of [[RangeJoinConf]], with their defaults.
 */
class ConfigReferenceSuite extends AnyFunSuite {

  private def read(path: String) =
    new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8)

  test("docs/configuration.md is the page generated from RangeJoinConf") {
    assert(
      read(ConfigReference.pagePath) == ConfigReference.markdown,
      s"${ConfigReference.pagePath} differs from RangeJoinConf: run `make config-docs`"
    )
  }

  test("the page has a row and a section for every key, with its default and allowed values") {
    val page = ConfigReference.markdown
    RangeJoinConf.all.foreach { entry =>
      assert(page.contains(s"| `${entry.default}` | ${entry.allowed} |"), entry.key)
      assert(page.contains(s"## `${entry.key}`\n"), entry.key)
      assert(page.contains(entry.doc), entry.key)
    }
    val rows = "(?m)^\\| \\[`(spark\\.rangejoin\\.[^`]+)`\\]".r.findAllMatchIn(page).map(_.group(1))
    assert(rows.toSeq == RangeJoinConf.all.map(_.key))
  }

  test("conf/spark-defaults.conf sets every key to its default and nothing else") {
    val set = "(?m)^(spark\\.rangejoin\\.\\S+)\\s+(\\S+)\\s*$".r
      .findAllMatchIn(read("conf/spark-defaults.conf"))
      .map(m => m.group(1) -> m.group(2))
      .toMap
    assert(set == RangeJoinConf.all.map(e => e.key -> e.default.toString).toMap)
  }
}

package rangejoin

import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

import rangejoin.config.RangeJoinConf

/**
 * The README's configuration table, and the example `conf/spark-defaults.conf`, list exactly the
 * keys of [[RangeJoinConf]], with their defaults.
 */
class ReadmeSuite extends AnyFunSuite {

  private lazy val readme = new String(Files.readAllBytes(Paths.get("README.md")), "UTF-8")

  test("every configuration key is in the README table with its default and documentation") {
    RangeJoinConf.all.foreach { entry =>
      val row = s"| `${entry.key}` | `${entry.default}` | ${entry.doc} |"
      assert(readme.contains(row), s"README.md lacks the row:\n$row")
    }
  }

  test("the README table has no key the code does not define") {
    val documented =
      "(?m)^\\| `(spark\\.rangejoin\\.[^`]+)`".r.findAllMatchIn(readme).map(_.group(1))
    assert(documented.toSet == RangeJoinConf.all.map(_.key).toSet)
  }

  test("conf/spark-defaults.conf sets every key to its default and nothing else") {
    val defaults = new String(Files.readAllBytes(Paths.get("conf/spark-defaults.conf")), "UTF-8")
    val set = "(?m)^(spark\\.rangejoin\\.\\S+)\\s+(\\S+)\\s*$".r
      .findAllMatchIn(defaults)
      .map(m => m.group(1) -> m.group(2))
      .toMap
    assert(set == RangeJoinConf.all.map(e => e.key -> e.default.toString).toMap)
  }
}

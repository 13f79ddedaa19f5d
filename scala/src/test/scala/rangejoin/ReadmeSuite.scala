package rangejoin

import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

import rangejoin.config.RangeJoinConf

/** The README's configuration table lists exactly the keys of [[RangeJoinConf]]. */
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
}

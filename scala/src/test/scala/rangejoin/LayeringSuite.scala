package rangejoin

import java.nio.file.{Files, Paths}

import scala.collection.immutable.ListMap
import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

object LayeringSuite {

  /**
   * The packages of the main sources depend on each other in one direction only:
   * {{{
   *   condition <- planning -> execution -> {keyed, broadcast -> runtime -> blocks} -> local
   *                adaptive -> execution
   * }}}
   * with `config`, `condition` and Spark's `org.apache.spark.sql.execution.rangejoin` bridges
   * beneath everything but `local`, and the root package `rangejoin` (the extensions) above all.
   * Each package may use its own package and packages of a lower rank in this table;
   * packages of equal rank do not use each other. `local` is Spark-free and the Spark bridges use no
   * `rangejoin` package. `shims`, what differs between Spark versions (the folders of
   * `scala/src/shims`, each checked whatever the version built), sits beside `local` and uses no
   * other `rangejoin` package.
   *
   * A file's package comes from its `package` clauses; what it uses, from its imports and the
   * fully qualified names in its code (`rangejoin.x.Y`, `_root_.rangejoin.x.Y`, and names relative
   * to its package such as `blocks.Block` in `rangejoin.execution`), with comments and string
   * literals left out. A file in a package that is not ranked fails the test, so a new package
   * must be given its place.
   */
  val layers: ListMap[String, Layer] = ListMap(
    "rangejoin.local" -> Layer(0, usesSpark = false),
    "rangejoin.shims" -> Layer(0, usesRangejoin = false),
    "rangejoin.condition" -> Layer(1),
    "rangejoin.config" -> Layer(1),
    "org.apache.spark.sql.execution.rangejoin" -> Layer(1, usesRangejoin = false),
    "rangejoin.execution.blocks" -> Layer(2),
    "rangejoin.execution.runtime" -> Layer(3),
    "rangejoin.execution.keyed" -> Layer(4),
    "rangejoin.execution.broadcast" -> Layer(4),
    "rangejoin.execution" -> Layer(5),
    "rangejoin.planning" -> Layer(6),
    "rangejoin.adaptive" -> Layer(6),
    "rangejoin" -> Layer(7)
  )

  /** One package's place: its rank, and whether it may use Spark and other rangejoin packages. */
  final case class Layer(rank: Int, usesSpark: Boolean = true, usesRangejoin: Boolean = true)
}

/** The main sources respect the layers of [[LayeringSuite.layers]]. */
class LayeringSuite extends AnyFunSuite {
  import LayeringCheck._
  import LayeringSuite._

  test("every main source uses only its own package and packages of a lower rank") {
    val roots = Seq(Paths.get("scala/src/main/scala"), Paths.get("scala/src/shims"))
    for (root <- roots) assert(Files.isDirectory(root), s"run from the repository root: no $root")
    val files =
      roots.flatMap(Files.walk(_).iterator().asScala.filter(_.toString.endsWith(".scala")))
    assert(files.size > 30, s"only ${files.size} sources under ${roots.mkString(", ")}")
    val found = files.sortBy(_.toString).flatMap { path =>
      violations(path.toString, new String(Files.readAllBytes(path), "UTF-8"))
    }
    assert(found.isEmpty, found.mkString("layering violations:\n  ", "\n  ", "\n"))
    val packages = files.map(p => packageOf(new String(Files.readAllBytes(p), "UTF-8"))).toSet
    assert(layers.keySet.subsetOf(packages), s"ranked but empty: ${layers.keySet -- packages}")
  }

  test("the check reports upward, sideways, unknown and Spark uses, and only in code") {
    def check(source: String) = violations("F.scala", source)

    assert(check("package rangejoin.execution.blocks\nimport rangejoin.local.RadixSort\n").isEmpty)
    assert(
      check("package rangejoin.execution.blocks\n\nimport rangejoin.execution.runtime.{A, B}\n")
        == Seq("F.scala:3: rangejoin.execution.blocks (rank 2) uses rangejoin.execution.runtime " +
          "(rank 3): import rangejoin.execution.runtime.{A, B}")
    )
    // Equal ranks.
    assert(check("package rangejoin.planning\nimport rangejoin.adaptive.X\n").size == 1)
    assert(check("package rangejoin.config\nimport rangejoin.condition._\n").size == 1)
    // Fully qualified names in code, selectors that are packages, relative names.
    assert(check("package rangejoin.local\nobject A { val c = rangejoin.config.X }\n").size == 1)
    assert(check("package rangejoin.local\nobject A { _root_.rangejoin.condition.X }\n").size == 1)
    assert(check("package rangejoin\nimport rangejoin.{config, local}\n").isEmpty)
    assert(check("package rangejoin.execution\nimport rangejoin.{config, planning}\n").size == 1)
    assert(check("package rangejoin\npackage condition\nobject A { planning.X }\n").size == 1)
    assert(check("package rangejoin.execution\nobject A { blocks.Block(runtime.R) }\n").isEmpty)
    // Spark in local; rangejoin in the Spark bridges.
    assert(check("package rangejoin.local\nimport org.apache.spark.sql.Row\n").size == 1)
    assert(check("package rangejoin.local\nobject A { org.apache.spark.X }\n").size == 1)
    assert(check("package rangejoin.local\nimport org.apache.spark.{SparkEnv}\n").size == 1)
    val bridge = "package org.apache.spark.sql.execution.rangejoin\n"
    assert(check(bridge + "import org.apache.spark.TaskContext\n").isEmpty)
    assert(check(bridge + "import rangejoin.local.InequalityOp\n").size == 1)
    val sorter = "import org.apache.spark.sql.execution.rangejoin.ExternalSorters\n"
    assert(check("package rangejoin.execution.blocks\n" + sorter).isEmpty)
    assert(check("package rangejoin.local\n" + sorter).size == 1)
    // Unknown packages, as the file's own or as a use.
    assert(
      check("package rangejoin.util\n") == Seq("F.scala:1: package rangejoin.util has no rank")
    )
    assert(check("package rangejoin.execution\nimport rangejoin.util.X\n").size == 1)
    // Comments and strings are not uses.
    val quiet = "package rangejoin.local\n// import rangejoin.config.X\n/* rangejoin.planning.Y\n" +
      " * [[rangejoin.condition.Inequality]] */\nobject A { val k = \"rangejoin.config.X\" }\n"
    assert(check(quiet).isEmpty)
  }

  test("a use that breaks the layers is found in a real source, with its line") {
    val file = "scala/src/main/scala/rangejoin/execution/blocks/BlockStats.scala"
    val source = new String(Files.readAllBytes(Paths.get(file)), "UTF-8")
    assert(violations(file, source).isEmpty)
    val lines = source.split("\n", -1).toSeq
    val withImport = (lines.take(1) ++ Seq("", "import rangejoin.execution.keyed.KeyGroups") ++
      lines.drop(1)).mkString("\n")
    assert(
      violations(file, withImport) == Seq(
        s"$file:3: rangejoin.execution.blocks (rank 2) uses rangejoin.execution.keyed (rank 4): " +
          "import rangejoin.execution.keyed.KeyGroups"
      )
    )
    def withCode(code: String) = violations(file, source + s"\nobject Probe { $code }\n")
    assert(withCode("val x = _root_.rangejoin.config.RangeJoinConf.BlockRows").isEmpty)
    assert(
      withCode("val x = rangejoin.planning.RangeJoinStrategy") ==
        Seq(
          s"$file:${lines.size + 1}: rangejoin.execution.blocks (rank 2) uses rangejoin.planning " +
            "(rank 6): object Probe { val x = rangejoin.planning.RangeJoinStrategy }"
        )
    )
  }
}

/** Reads a source file's package and the packages it uses, and checks them against the layers. */
private object LayeringCheck {
  import LayeringSuite._

  private val Spark = "org.apache.spark"

  /** Whether a fully qualified name is in this project's namespace (ranked or not). */
  private def ours(name: String): Boolean =
    name == "rangejoin" || name.startsWith("rangejoin.") ||
      layers.keys.exists(p => name == p || name.startsWith(p + "."))

  /** The package a qualified name points into: its leading segments that start in lower case. */
  private def packagePart(name: String): String =
    name.split('.').takeWhile(s => s.nonEmpty && s.head.isLower).mkString(".")

  /** The package of a file, its clauses joined (`package a` then `package b` is `a.b`). */
  def packageOf(source: String): String = packageClauses(codeOnly(source)).map(_._2).mkString(".")

  private def packageClauses(code: String): Seq[(Int, String)] =
    """(?m)^\s*package\s+(?!object\b)([\w.]+)""".r
      .findAllMatchIn(code)
      .map(m => (m.start(1), m.group(1)))
      .toSeq

  /** `file:line: explanation` for each use `file` makes that its layer does not allow. */
  def violations(file: String, source: String): Seq[String] = {
    val code = codeOnly(source)
    val lines = source.split("\n", -1)
    def lineOf(offset: Int): Int = code.substring(0, offset).count(_ == '\n') + 1
    def at(offset: Int, msg: String) = s"$file:${lineOf(offset)}: $msg"

    val clauses = packageClauses(code)
    val pkg = clauses.map(_._2).mkString(".")
    layers.get(pkg) match {
      case None =>
        val name = if (pkg.isEmpty) "(none)" else pkg
        Seq(at(clauses.headOption.fold(0)(_._1), s"package $name has no rank"))
      case Some(layer) =>
        // Each package clause makes its package's subpackages visible by their simple names.
        val scopes = clauses.indices.map(i => clauses.take(i + 1).map(_._2).mkString(".")).reverse
        val found = for {
          (offset, name) <- qualifiedNames(code)
          why <- problem(pkg, layer, resolve(name, scopes))
        } yield at(offset, s"$pkg (rank ${layer.rank}) $why: ${lines(lineOf(offset) - 1).trim}")
        found.distinct
    }
  }

  /** What a dotted name uses. */
  private sealed trait Use
  private case object Other extends Use
  private final case class SparkUse(name: String) extends Use
  private final case class PackageUse(pkg: String) extends Use

  private def isSpark(name: String) = name == Spark || name.startsWith(Spark + ".")

  /** The ranked package that contains `full`, the innermost one. */
  private def rankedContaining(full: String): Option[String] =
    layers.keys.filter(p => full == p || full.startsWith(p + ".")).toSeq.sortBy(
      -_.length
    ).headOption

  /**
   * `name` as written in a file whose package clauses open `scopes` (innermost first): a name in
   * this project's namespace, a Spark name, a name relative to a scope that lies in a ranked
   * subpackage of it (`blocks.Block` in rangejoin.execution), or anything else.
   */
  private def resolve(name: String, scopes: Seq[String]): Use = {
    val absolute = name.stripPrefix("_root_.")
    if (ours(absolute)) PackageUse(packagePart(absolute))
    else if (isSpark(absolute)) SparkUse(absolute)
    else if (absolute != name) Other
    else
      scopes.iterator
        .flatMap(s => rankedContaining(s"$s.$name").filter(_.startsWith(s + ".")))
        .toList
        .headOption
        .fold[Use](Other)(PackageUse(_))
  }

  /** Why a file of package `pkg` may not make `use`, if it may not. */
  private def problem(pkg: String, layer: Layer, use: Use): Option[String] = use match {
    case Other => None
    case SparkUse(_) => if (layer.usesSpark) None else Some("uses Spark")
    case PackageUse(target) if target == pkg => None
    case PackageUse(target) =>
      layers.get(target) match {
        case None => Some(s"uses $target, which has no rank")
        case Some(_) if !layer.usesRangejoin => Some(s"uses $target")
        case Some(other) if other.rank >= layer.rank => Some(s"uses $target (rank ${other.rank})")
        case Some(_) => None
      }
  }

  /**
   * Each dotted name in `code` with its offset, plus, for an import selector list
   * `a.b.{c, D => E}`, the names `a.b.c` and `a.b.D` (a selector may be a package).
   */
  private def qualifiedNames(code: String): Seq[(Int, String)] = {
    val dotted = """(?<![\w.$])((?:_root_\.)?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)""".r
    val plain = dotted.findAllMatchIn(code).map(m => (m.start, m.group(1)))
    val selectors = """\bimport\s+([\w.]+)\.\{([^}]*)\}""".r.findAllMatchIn(code).flatMap { m =>
      m.group(2).split(',').map(_.split("=>").head.trim).filter(s => s.nonEmpty && s != "_").map {
        s => (m.start, s"${m.group(1)}.$s")
      }
    }
    val packageLines = packageClauses(code).map(_._1).toSet
    (plain ++ selectors).filterNot { case (offset, _) => packageLines(offset) }.toSeq
  }

  /**
   * `source` with comments and string and character literals blanked out, line breaks kept so
   * that offsets keep their line numbers.
   */
  def codeOnly(source: String): String = {
    val out = new StringBuilder(source.length)
    def blank(c: Char): Char = if (c == '\n') '\n' else ' '
    var i = 0
    var commentDepth = 0
    while (i < source.length) {
      val rest = source.substring(i, (i + 3).min(source.length))
      if (commentDepth > 0) {
        if (rest.startsWith("*/")) { commentDepth -= 1; out ++= "  "; i += 2 }
        else if (rest.startsWith("/*")) { commentDepth += 1; out ++= "  "; i += 2 }
        else { out += blank(source(i)); i += 1 }
      } else if (rest.startsWith("/*")) { commentDepth = 1; out ++= "  "; i += 2 }
      else if (rest.startsWith("//")) {
        while (i < source.length && source(i) != '\n') { out += ' '; i += 1 }
      } else if (rest == "\"\"\"") {
        val end = source.indexOf("\"\"\"", i + 3)
        val stop = if (end < 0) source.length else end + 3
        source.substring(i, stop).foreach(c => out += blank(c))
        i = stop
      } else if (rest.startsWith("\"")) {
        var j = i + 1
        while (j < source.length && source(j) != '"' && source(j) != '\n') {
          j += (if (source(j) == '\\') 2 else 1)
        }
        val stop = (j + 1).min(source.length)
        source.substring(i, stop).foreach(c => out += blank(c))
        i = stop
      } else if (rest.length == 3 && rest(0) == '\'' && rest(2) == '\'') {
        out ++= "   "; i += 3
      } else if (rest.startsWith("'\\")) {
        val end = source.indexOf('\'', i + 2)
        val stop = if (end < 0) source.length else end + 1
        source.substring(i, stop).foreach(c => out += blank(c))
        i = stop
      } else { out += source(i); i += 1 }
    }
    out.result()
  }
}

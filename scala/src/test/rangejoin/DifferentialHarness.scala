package rangejoin

import scala.util.Random

import org.apache.spark.sql.types.DataType

/**
 * Random range-join queries over random tables, for differential testing against vanilla Spark.
 *
 * Each query draws a key type, two tables `l` and `r` (duplicates, NULLs, NaN; see
 * [[RandomTables]]), a join shape (inner, left, right, full, semi, anti, EXISTS, NOT EXISTS,
 * EXISTS in a disjunction, which Spark plans as an existence join), one to three inequalities
 * in random orientation, and maybe a residual. The operator it must plan follows from the
 * number of inequalities.
 */
object DifferentialHarness {

  final case class Query(seed: Long, dataType: DataType, sql: String, operator: String)

  private val ops = Seq("<", "<=", ">", ">=")
  private val mirror = Map("<" -> ">", "<=" -> ">=", ">" -> "<", ">=" -> "<=")

  private val shapes: Seq[String => String] = Seq(
    c => s"SELECT l.id, l.a, r.id, r.b FROM l JOIN r ON $c",
    c => s"SELECT l.id, l.a, r.id, r.b FROM l LEFT JOIN r ON $c",
    c => s"SELECT l.id, l.a, r.id, r.b FROM l RIGHT JOIN r ON $c",
    c => s"SELECT l.id, l.a, r.id, r.b FROM l FULL JOIN r ON $c",
    c => s"SELECT l.* FROM l LEFT SEMI JOIN r ON $c",
    c => s"SELECT l.* FROM l LEFT ANTI JOIN r ON $c",
    c => s"SELECT l.id, l.b FROM l WHERE EXISTS (SELECT 1 FROM r WHERE $c)",
    c => s"SELECT l.id, l.c FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE $c)",
    c => s"SELECT l.id FROM l WHERE l.id % 4 = 0 OR EXISTS (SELECT 1 FROM r WHERE $c)"
  )

  /** The query for `seed`; registers its tables as `l` and `r` in `spark` first. */
  def query(spark: org.apache.spark.sql.SparkSession, seed: Long): Query = {
    val rnd = new Random(seed)
    val dataType = RandomTables.types(rnd.nextInt(RandomTables.types.size))
    RandomTables.table(
      spark,
      dataType,
      5 + rnd.nextInt(90),
      rnd.nextLong()
    ).createOrReplaceTempView("l")
    RandomTables.table(
      spark,
      dataType,
      5 + rnd.nextInt(90),
      rnd.nextLong()
    ).createOrReplaceTempView("r")
    val columns = rnd.shuffle(Seq("a", "b", "c")).take(1 + rnd.nextInt(3))
    val inequalities = columns.map { col =>
      val op = ops(rnd.nextInt(4))
      if (rnd.nextBoolean()) s"l.$col $op r.$col" else s"r.$col ${mirror(op)} l.$col"
    }
    val residual = rnd.nextInt(3) match {
      case 0 => Seq("(l.id + r.id) % 3 <> 0")
      case 1 if !columns.contains("c") => Seq("(l.c IS NULL OR l.c <> r.c)")
      case _ => Nil
    }
    val condition = rnd.shuffle(inequalities ++ residual).mkString(" AND ")
    val sql = shapes(rnd.nextInt(shapes.size))(condition)
    Query(seed, dataType, sql, if (inequalities.size >= 2) "IEJoin" else "PiecewiseMergeJoin")
  }
}

package rangejoin

import scala.util.Random

import org.apache.spark.sql.types._

/**
 * Random range-join queries over random tables, for differential testing against vanilla Spark.
 *
 * Each query draws a key type, two tables `l` and `r` (duplicates, NULLs, NaN; see
 * [[RandomTables]]), a join shape (inner, left, right, full, semi, anti, EXISTS, NOT EXISTS,
 * EXISTS in a disjunction, which Spark plans as an existence join), one to three inequalities
 * in random orientation, and maybe a residual. The operator it must plan follows from the
 * number of inequalities.
 *
 * A quarter of the seeds whose type allows it write their condition as differences, `abs`,
 * `datediff`, `unix_timestamp` or open ends instead ([[RewrittenForms]]). Of the others, a third
 * (both drawn apart from the rest, so other seeds keep their queries) add the
 * equality key `l.c = r.c`, plus either a window on column `a` (two opposite bounds with
 * constant offsets, or `BETWEEN`) and maybe an inequality on `b`, which must plan
 * SlidingWindowJoin, or inequalities on `a` and `b`, which must plan KeyGroupIEJoin; half of
 * those whose type has a 64-bit code (drawn apart) put `l.a` in `[r.a, r.b]` or `r.a` in
 * `[l.a, l.b]` with an open end instead, which must plan KeyedIntervalJoin. With ANSI
 * off, integral and decimal offsets make no window unless both bounds have the same one (see
 * `SlidingWindow.column`), so such bounds must plan KeyGroupIEJoin too; the session's
 * `spark.sql.ansi.enabled` when the query is drawn decides. An eighth of the rest (drawn apart
 * too) join `l` with itself on swapped keys, which must plan IEJoin.
 *
 * Half of all seeds (drawn apart) read their tables from Parquet files, whose scans give
 * column batches, so that block joins of those inputs cut their blocks from the batches
 * ([[rangejoin.execution.ColumnBatchScan]]).
 */
object DifferentialHarness {

  /**
   * A drawn query; `rewritten` when its condition is written in [[RewrittenForms]], `selfJoin`
   * when it joins `l` with itself on swapped keys, `fromFiles` when its tables are read from
   * Parquet files.
   */
  final case class Query(
      seed: Long,
      dataType: DataType,
      sql: String,
      operator: String,
      rewritten: Boolean = false,
      selfJoin: Boolean = false,
      fromFiles: Boolean = false
  )

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

  /** The shapes whose join only asks whether a left row matched: semi, anti and existence. */
  private val existenceShapes = Set(4, 5, 6, 7, 8)

  /** The query for `seed`; registers its tables as `l` and `r` in `spark` first. */
  def query(spark: org.apache.spark.sql.SparkSession, seed: Long): Query = {
    val rnd = new Random(seed)
    val dataType = RandomTables.types(rnd.nextInt(RandomTables.types.size))
    val fromFiles = new Random((seed ^ 0xf11e5L) * 0x9e3779b97f4a7c15L).nextBoolean()
    for (view <- Seq("l", "r")) {
      val table = RandomTables.table(spark, dataType, 5 + rnd.nextInt(90), rnd.nextLong())
      register(spark, table, view, fromFiles)
    }
    query(spark, seed, dataType, rnd).copy(fromFiles = fromFiles)
  }

  /** `table` as the view `view`, written to Parquet and read back when `fromFiles`. */
  private def register(
      spark: org.apache.spark.sql.SparkSession,
      table: org.apache.spark.sql.DataFrame,
      view: String,
      fromFiles: Boolean
  ): Unit =
    if (!fromFiles) table.createOrReplaceTempView(view)
    else {
      val dir = files.resolve(view).toString
      table.write.mode("overwrite").parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView(view)
    }

  private lazy val files = java.nio.file.Files.createTempDirectory("rangejoin-differential")

  private def query(
      spark: org.apache.spark.sql.SparkSession,
      seed: Long,
      dataType: DataType,
      rnd: Random
  ): Query = {
    val ansi = spark.sessionState.conf.ansiEnabled
    // Seeds scrambled first: java.util.Random's first draw barely differs between close seeds.
    val rewritten = new Random(seed * 0x9e3779b97f4a7c15L).nextInt(4) == 0 &&
      RewrittenForms.supports(dataType)
    if (rewritten) rewrittenQuery(seed, dataType, rnd, ansi)
    else if (new Random(seed ^ 0x5eedL).nextInt(3) == 0) keyedQuery(seed, dataType, rnd, ansi)
    else if (new Random((seed ^ 0x5e1fL) * 0x9e3779b97f4a7c15L).nextInt(8) == 0) {
      selfJoinQuery(seed, dataType, rnd, spark)
    } else {
      val columns = rnd.shuffle(Seq("a", "b", "c")).take(1 + rnd.nextInt(3))
      val inequalities = columns.map(inequality(_, rnd))
      val residual = rnd.nextInt(3) match {
        case 0 => Seq("(l.id + r.id) % 3 <> 0")
        case 1 if !columns.contains("c") => Seq("(l.c IS NULL OR l.c <> r.c)")
        case _ => Nil
      }
      val condition = rnd.shuffle(inequalities ++ residual).mkString(" AND ")
      val shape = rnd.nextInt(shapes.size)
      val operator =
        if (inequalities.size >= 2) "IEJoin"
        else if (residual.isEmpty && existenceShapes(shape)) "BoundFilterJoin"
        else "PiecewiseMergeJoin"
      Query(seed, dataType, shapes(shape)(condition), operator)
    }
  }

  /**
   * A self-join of `l` whose right keys are its left keys 0 and 1 swapped, `l.a op1 r.b AND
   * l.b op2 r.a`, maybe with `l.c op3 r.c` and a residual: IEJoin, which loads `l` once where the
   * optimizer leaves both inputs the same ([[rangejoin.planning.SelfJoinInputs]]).
   */
  private def selfJoinQuery(
      seed: Long,
      dataType: DataType,
      rnd: Random,
      spark: org.apache.spark.sql.SparkSession
  ): Query = {
    spark.table("l").createOrReplaceTempView("r")
    def op() = ops(rnd.nextInt(4))
    val swapped = Seq(s"l.a ${op()} r.b", s"l.b ${op()} r.a")
    val third = if (rnd.nextBoolean()) Seq(inequality("c", rnd)) else Nil
    val residual = if (rnd.nextBoolean()) Seq("l.id <> r.id") else Nil
    val condition = (swapped ++ third ++ residual).mkString(" AND ")
    Query(seed, dataType, shapes(rnd.nextInt(shapes.size))(condition), "IEJoin", selfJoin = true)
  }

  private def inequality(col: String, rnd: Random): String = {
    val op = ops(rnd.nextInt(4))
    if (rnd.nextBoolean()) s"l.$col $op r.$col" else s"r.$col ${mirror(op)} l.$col"
  }

  /**
   * A query over conditions written as differences, `abs`, `datediff`, `unix_timestamp` or open
   * ends ([[RewrittenForms]]), on columns `a` and `b`, maybe with `l.c = r.c`. Each form stays a
   * residual and adds one or two candidate inequalities, which decide the operator: without the
   * key, IEJoin for two or more and PiecewiseMergeJoin for one; with it, SlidingWindowJoin for a
   * band whose keys are monotone, else KeyGroupIEJoin (the key only with two or more, open ends
   * not counted).
   */
  private def rewrittenQuery(seed: Long, dataType: DataType, rnd: Random, ansi: Boolean)
      : Query = {
    val forms = Seq("a", "b").take(1 + rnd.nextInt(2)).map(RewrittenForms.draw(dataType, _, rnd))
    val candidates = forms.map(_.candidates).sum
    val window = forms.exists(_.window(ansi))
    val keyedCandidates = forms.filterNot(_.openEnd).map(_.candidates).sum
    val keyed = (window || keyedCandidates >= 2) && rnd.nextInt(3) == 0
    val residual = if (rnd.nextBoolean()) Seq("(l.id + r.id) % 3 <> 0") else Nil
    val equality = if (keyed) Seq("l.c = r.c") else Nil
    val condition = rnd.shuffle(equality ++ forms.map(_.sql) ++ residual).mkString(" AND ")
    val operator =
      if (!keyed) { if (candidates >= 2) "IEJoin" else "PiecewiseMergeJoin" }
      else if (window) "SlidingWindowJoin"
      else "KeyGroupIEJoin"
    // A correlated EXISTS or NOT EXISTS over such a condition, Spark may decorrelate into a join
    // of the distinct outer values with `r` and a second join back: JOIN syntax only.
    Query(seed, dataType, shapes(rnd.nextInt(6))(condition), operator, rewritten = true)
  }

  private def keyedQuery(seed: Long, dataType: DataType, rnd: Random, ansi: Boolean): Query =
    if (
      new Random((seed ^ 0x1e7e5L) * 0x9e3779b97f4a7c15L).nextInt(2) == 0 &&
      rangejoin.condition.PointInInterval.codable(dataType)
    ) intervalQuery(seed, dataType, rnd)
    else keyedInequalitiesQuery(seed, dataType, rnd, ansi)

  /**
   * `l.c = r.c` and a point `a` of one input in the interval `[a, b]` of the other, with either
   * end open (`... OR b IS NULL`), strict or not, maybe with a residual, in a join shape that
   * streams the point's input: KeyedIntervalJoin.
   */
  private def intervalQuery(seed: Long, dataType: DataType, rnd: Random): Query = {
    val pointIsLeft = rnd.nextBoolean()
    val (p, i) = if (pointIsLeft) ("l", "r") else ("r", "l")
    def op() = if (rnd.nextBoolean()) "<" else "<="
    def either(a: String, b: String) = if (rnd.nextBoolean()) s"($a OR $b)" else s"($b OR $a)"
    val (lowerOp, upperOp) = (op(), op())
    val lower = s"$i.a $lowerOp $p.a"
    val upper = if (rnd.nextBoolean()) s"$p.a $upperOp $i.b" else s"$i.b ${mirror(upperOp)} $p.a"
    val bounds =
      if (rnd.nextInt(4) == 0) Seq(either(lower, s"$i.a IS NULL"), upper)
      else Seq(lower, either(upper, s"$i.b IS NULL"))
    val residual = if (rnd.nextBoolean()) Seq("(l.id + r.id) % 3 <> 0") else Nil
    val condition = rnd.shuffle(Seq("l.c = r.c") ++ bounds ++ residual).mkString(" AND ")
    // Inner joins either way; the other shapes stream only their left (right) input.
    val streaming = if (pointIsLeft) Seq(0, 1, 4, 5, 6, 7, 8) else Seq(0, 2)
    // Outputs of the intervals' columns only, inner and outer: the point rows are not kept once
    // they have probed, and (with no residual) a pair is the index's row.
    val outer = if (pointIsLeft) "LEFT" else "RIGHT"
    val intervalColumnsOnly: Seq[String => String] = Seq(
      c => s"SELECT $i.id, $i.b FROM l JOIN r ON $c",
      c => s"SELECT $i.id, $i.b FROM l $outer JOIN r ON $c"
    )
    val drawn = streaming.map(shapes) ++ intervalColumnsOnly
    Query(seed, dataType, drawn(rnd.nextInt(drawn.size))(condition), "KeyedIntervalJoin")
  }

  private def keyedInequalitiesQuery(seed: Long, dataType: DataType, rnd: Random, ansi: Boolean)
      : Query = {
    val window = if (rnd.nextBoolean()) Some(windowBounds(dataType, rnd, ansi)) else None
    val inequalities = window match {
      case Some((bounds, _)) => bounds ++ Seq(inequality("b", rnd)).filter(_ => rnd.nextBoolean())
      case None => Seq(inequality("a", rnd), inequality("b", rnd))
    }
    val residual = if (rnd.nextBoolean()) Seq("(l.id + r.id) % 3 <> 0") else Nil
    val condition = rnd.shuffle(Seq("l.c = r.c") ++ inequalities ++ residual).mkString(" AND ")
    val sql = shapes(rnd.nextInt(shapes.size))(condition)
    Query(seed, dataType, sql, if (window.exists(_._2)) "SlidingWindowJoin" else "KeyGroupIEJoin")
  }

  /**
   * A lower and an upper bound of `r.a` around `l.a`, with offsets the type allows, and whether
   * they form a window. With ANSI off an integral or decimal `r.a + c` may wrap around, so it is
   * no constant offset of `r.a`; two equal offsets still bound the column `r.a + c` itself.
   */
  private def windowBounds(dataType: DataType, rnd: Random, ansi: Boolean)
      : (Seq[String], Boolean) = {
    def offset(): String = {
      val n = rnd.nextInt(3)
      val sign = if (rnd.nextBoolean()) "+" else "-"
      dataType match {
        case ByteType | ShortType | IntegerType | LongType => s" $sign $n"
        case FloatType | DoubleType | _: DecimalType => s" $sign ${n * 0.75}"
        case DateType => s" $sign INTERVAL $n DAY"
        case TimestampType | TimestampNTZType => s" $sign INTERVAL $n SECONDS"
        case _ => ""
      }
    }
    val (lo, hi) = (offset(), offset())
    // The same offset on both sides with a strict bound is a contradiction the optimizer removes
    // (`x <= l.a AND l.a < x`); keep such windows non-strict, which leaves `l.a = r.a + x`.
    val strict = lo != hi
    val wraps = dataType match {
      case ByteType | ShortType | IntegerType | LongType | _: DecimalType => !ansi
      case _ => false
    }
    val bounds =
      if (rnd.nextInt(3) == 0) Seq(s"l.a BETWEEN r.a$lo AND r.a$hi")
      else {
        val lower = if (strict && rnd.nextBoolean()) "<" else "<="
        val upper = if (strict && rnd.nextBoolean()) ">" else ">="
        Seq(
          if (rnd.nextBoolean()) s"l.a $lower r.a$lo" else s"r.a$lo ${mirror(lower)} l.a",
          if (rnd.nextBoolean()) s"l.a $upper r.a$hi" else s"r.a$hi ${mirror(upper)} l.a"
        )
      }
    (bounds, !wraps || lo == hi)
  }
}

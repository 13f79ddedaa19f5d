package rangejoin

import scala.util.Random

import org.apache.spark.sql.types._

import rangejoin.config.RangeJoinConf

/**
 * IEJoinExec against vanilla Spark on random tables: every operator pair in both orientations,
 * every supported key type, residuals, expressions over one side, and empty or all-NULL sides.
 */
class IEJoinDifferentialSuite extends RangeJoinTestBase {

  private val ops = Seq("<", "<=", ">", ">=")
  private val mirror = Map("<" -> ">", "<=" -> ">=", ">" -> "<", ">=" -> "<=")

  private def register(dt: DataType, seed: Long, leftRows: Int = 70, rightRows: Int = 55): Unit = {
    RandomTables.table(spark, dt, leftRows, seed).createOrReplaceTempView("l")
    RandomTables.table(spark, dt, rightRows, seed + 1000).createOrReplaceTempView("r")
  }

  /** `l.col op r.col`, written with the right side first when `flipped`. */
  private def cond(col: String, op: String, flipped: Boolean): String =
    if (flipped) s"r.$col ${mirror(op)} l.$col" else s"l.$col $op r.$col"

  test("all 16 operator pairs, both orientations, match vanilla (int keys)") {
    register(IntegerType, seed = 1)
    val sizes = for (op1 <- ops; op2 <- ops; flip <- Seq(false, true)) yield {
      checkAgainstVanilla(
        s"SELECT l.id, r.id FROM l JOIN r ON ${cond("a", op1, flip)} AND ${cond("b", op2, !flip)}"
      )
    }
    assert(sizes.count(_ > 0) == sizes.size, "every query should have matches")
  }

  for (dt <- RandomTables.types) {
    test(s"${dt.simpleString} keys: random operator pairs over several seeds match vanilla") {
      val rnd = new Random(dt.simpleString.hashCode)
      val sizes = for (seed <- 1 to 3; _ <- 1 to 3) yield {
        register(dt, seed * 17L)
        val (op1, op2) = (ops(rnd.nextInt(4)), ops(rnd.nextInt(4)))
        val q = s"SELECT l.*, r.* FROM l JOIN r ON ${cond("a", op1, rnd.nextBoolean())} " +
          s"AND ${cond("b", op2, rnd.nextBoolean())}"
        checkAgainstVanilla(q)
      }
      assert(sizes.exists(_ > 0))
    }
  }

  test("residual conditions are applied to candidate pairs") {
    register(DoubleType, seed = 5)
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b >= r.b AND l.c <> r.c"
    )
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a <= r.a AND r.b < l.b AND (l.id + r.id) % 3 = 0"
    )
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a > r.a AND l.b > r.b AND (l.c IS NULL OR r.c < 1)"
    )
  }

  test("three or more inequalities: the extra ones are residuals and prune blocks") {
    register(LongType, seed = 6)
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a AND l.b > r.b AND l.c <= r.c"
    )
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a <= r.a AND l.b >= r.b AND l.c > r.c AND l.a < r.c"
    )
  }

  test("BETWEEN becomes two inequalities (band join)") {
    register(IntegerType, seed = 7, leftRows = 200, rightRows = 150)
    assert(checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a BETWEEN r.a - 1 AND r.a + 1"
    ) > 0)
    checkAgainstVanilla("SELECT l.id, r.id FROM l, r WHERE r.b BETWEEN l.a AND l.b")
  }

  test("keys may be any deterministic expression over one side") {
    register(IntegerType, seed = 8)
    checkAgainstVanilla("SELECT l.id, r.id FROM l JOIN r ON l.a + 5 < r.a * 2 AND l.b > r.b - 1")
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON CAST(l.a AS DOUBLE) / 2 <= r.b AND l.b > abs(r.a)"
    )
    register(DateType, seed = 9)
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON date_add(l.a, 1) <= r.a AND l.b > date_sub(r.b, 2)"
    )
    register(StringType, seed = 10)
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON concat(l.a, 'x') < r.a AND upper(l.b) >= r.b"
    )
  }

  test("mixed key types across the two inequalities") {
    val rnd = new Random(12)
    for (seed <- 1 to 3) {
      RandomTables.table(spark, TimestampType, 60, seed).createOrReplaceTempView("t")
      RandomTables.table(spark, StringType, 60, seed + 1).createOrReplaceTempView("s")
      spark.sql("SELECT t.id, t.a AS ts, s.a AS str FROM t JOIN s ON t.id = s.id")
        .createOrReplaceTempView("l")
      spark.sql("SELECT t.id, t.b AS ts, s.b AS str FROM t JOIN s ON t.id = s.id")
        .createOrReplaceTempView("r")
      val (op1, op2) = (ops(rnd.nextInt(4)), ops(rnd.nextInt(4)))
      checkAgainstVanilla(s"SELECT l.id, r.id FROM l JOIN r ON l.ts $op1 r.ts AND l.str $op2 r.str")
    }
  }

  test("empty sides and all-NULL keys give no rows") {
    // Built from range(), so that the optimizer cannot see that a side is empty or all NULL.
    spark.range(0, 70).selectExpr("id", "id % 9 AS a", "id % 5 AS b").createOrReplaceTempView("f")
    spark
      .range(0, 40)
      .selectExpr("id", "IF(id < 0, id, NULL) AS a", "IF(id < -5, id, NULL) AS b")
      .createOrReplaceTempView("n")
    val empty = "(SELECT * FROM f WHERE id > 1000)"
    val queries = Seq(
      s"SELECT x.id, y.id FROM f x JOIN $empty y ON x.a < y.a AND x.b > y.b",
      s"SELECT x.id, y.id FROM $empty x JOIN f y ON x.a < y.a AND x.b > y.b",
      "SELECT f.id, n.id FROM f JOIN n ON f.a < n.a AND f.b > n.b",
      "SELECT f.id, n.id FROM n JOIN f ON n.a <= f.a AND n.b >= f.b"
    )
    // Adaptive execution would replace a join with an empty side by an empty relation; without
    // it, IEJoinExec itself meets the empty input.
    withConf("spark.sql.adaptive.enabled" -> "false") {
      queries.foreach(q => assert(checkAgainstVanilla(q) == 0))
    }
  }

  test("a self-join with heavy duplicates across many blocks") {
    spark
      .range(0, 3000)
      .selectExpr("id", "id % 37 AS a", "(id * 7) % 23 AS b")
      .createOrReplaceTempView("d")
    withConf(RangeJoinConf.BlockRows.key -> "100", "spark.sql.shuffle.partitions" -> "16") {
      checkAgainstVanilla(
        "SELECT x.id, y.id FROM d x JOIN d y ON x.a < y.a AND x.b >= y.b AND x.id % 10 = 0"
      )
      checkAgainstVanilla("SELECT count(*) FROM d x JOIN d y ON x.a <= y.a AND x.b > y.b")
    }
  }

  test("a self-join whose right keys are its left keys swapped loads once: join types, key types") {
    val joins =
      Seq("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN")
    val rnd = new Random(23)
    // Read from files: the optimizer would apply a filter to rows in the plan at once.
    val dir = java.nio.file.Files.createTempDirectory("rangejoin-self").toString
    for (dt <- RandomTables.types) {
      val seed = dt.simpleString.hashCode.toLong
      RandomTables.table(spark, dt, 150, seed).write.mode("overwrite").parquet(dir)
      spark.read.parquet(dir).createOrReplaceTempView("l")
      withConf(RangeJoinConf.BlockRows.key -> (1 + rnd.nextInt(30)).toString) {
        for (join <- joins) {
          val (op1, op2) = (ops(rnd.nextInt(4)), ops(rnd.nextInt(4)))
          val columns = if (join.contains("SEMI") || join.contains("ANTI")) "x.id" else "x.id, y.id"
          val q = s"SELECT $columns FROM l x $join l y ON x.a $op1 y.b AND x.b $op2 y.a " +
            "AND x.id <> y.id"
          val (_, plan) = checkOperatorPlan(q, Some("IEJoin"))
          val node = ieJoins(plan).head.simpleString(100)
          assert(node.contains("right the left's blocks, keys 0 and 1 swapped"), node)
        }
      }
    }
    // The optimizer's IS NOT NULL filters on a left, right or anti join's inner side are left out
    // (the test above), and so is one the query states on a key; one on another column stays,
    // and the sides then load their own blocks.
    val keyFilter = "SELECT x.id, y.id FROM l x LEFT JOIN l y ON x.a < y.b AND x.b > y.a " +
      "AND y.b IS NOT NULL"
    val kept = checkOperatorPlan(keyFilter, Some("IEJoin"))._2
    assert(ieJoins(kept).head.simpleString(100).contains("keys 0 and 1 swapped"))
    val otherFilter = "SELECT x.id, y.id FROM l x LEFT JOIN l y ON x.a < y.b AND x.b > y.a " +
      "AND y.c IS NOT NULL"
    val filtered = checkOperatorPlan(otherFilter, Some("IEJoin"))._2
    assert(!ieJoins(filtered).head.simpleString(100).contains("the left's blocks"))
    // Another table with the same keys loads its own blocks.
    register(IntegerType, seed = 3)
    val (_, plan) = checkOperatorPlan(
      "SELECT l.id, r.id FROM l JOIN r ON l.a < r.b AND l.b > r.a",
      Some("IEJoin")
    )
    assert(!ieJoins(plan).head.simpleString(100).contains("the left's blocks"))
  }

  test("random queries over many seeds: types, operators, orientations, residuals, sizes") {
    val seeds = 1 to 40
    val sizes = seeds.map { seed =>
      val rnd = new Random(seed * 7919L)
      val dt = RandomTables.types(rnd.nextInt(RandomTables.types.size))
      register(dt, seed * 31L, leftRows = 5 + rnd.nextInt(120), rightRows = 5 + rnd.nextInt(120))
      val inequalities = Seq("a", "b", "c").take(2 + rnd.nextInt(2)).map { col =>
        cond(col, ops(rnd.nextInt(4)), rnd.nextBoolean())
      }
      val residual = if (rnd.nextBoolean()) Seq("(l.id + r.id) % 4 <> 1") else Nil
      val where = (inequalities ++ residual).mkString(" AND ")
      withConf(RangeJoinConf.BlockRows.key -> (1 + rnd.nextInt(40)).toString) {
        checkAgainstVanilla(s"SELECT l.id, l.a, r.id, r.b FROM l JOIN r ON $where")
      }
    }
    assert(sizes.count(_ > 0) >= seeds.size / 2, s"too few queries with matches: $sizes")
  }

  test("output read after the query's execution ended (toLocalIterator) is still exact") {
    // toLocalIterator computes partitions after the SQL execution, and so the block cache, has
    // ended: blocks are rebuilt from the input and must hold the same rows as before.
    spark
      .range(0, 2000)
      .selectExpr("id", "id % 13 AS a", "id % 7 AS b")
      .createOrReplaceTempView("t")
    val q = "SELECT x.id, y.id FROM t x LEFT JOIN t y ON x.a < y.a AND x.b > y.b AND y.id < 50"
    withConf(RangeJoinConf.BlockRows.key -> "100") {
      import scala.jdk.CollectionConverters._
      val streamed = multisetOf(spark.sql(q).toLocalIterator().asScala.toSeq)
      val vanilla = withConf(RangeJoinConf.Enabled.key -> "false")(multiset(spark.sql(q)))
      assert(streamed == vanilla && vanilla.nonEmpty)
    }
  }

  test("a scalar subquery inside an inequality key is planned and evaluated") {
    register(IntegerType, seed = 15)
    checkAgainstVanilla(
      "SELECT l.id, r.id FROM l JOIN r ON l.a < r.a + (SELECT max(id) % 3 FROM r) AND l.b > r.b"
    )
  }
}

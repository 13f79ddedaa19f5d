package rangejoin

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/**
 * Conditions written as differences, `abs`, `datediff` and open ends plan range-join operators
 * through candidate inequalities (see `rangejoin.condition.DifferenceBounds` and `OpenEnds`),
 * and answer exactly as vanilla Spark: every join type, ANSI on and off, whole-stage codegen on
 * and off, and values where Spark's arithmetic wraps around or rounds.
 */
class RewrittenConditionsSuite extends RangeJoinTestBase {

  /**
   * ANSI on and off by codegen on and off; "codegen off" also evaluates expressions (the
   * candidate keys among them) interpreted, and "on" fails instead of falling back to that.
   */
  private val codegenModes = Seq(true, false).map { codegen =>
    Seq(
      SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> codegen.toString,
      SQLConf.CODEGEN_FACTORY_MODE.key -> (if (codegen) "CODEGEN_ONLY" else "NO_CODEGEN")
    )
  }
  private val modes = for (ansi <- Seq(true, false); codegen <- codegenModes)
    yield (SQLConf.ANSI_ENABLED.key -> ansi.toString) +: codegen

  /** Random tables `l` and `r` of `dt` (duplicates, NULLs, NaN, -0.0; see [[RandomTables]]). */
  private def tables(dt: DataType, seed: Long): Unit = {
    RandomTables.table(spark, dt, 60, seed).createOrReplaceTempView("l")
    RandomTables.table(spark, dt, 50, seed + 1).createOrReplaceTempView("r")
  }

  /**
   * Checks `condition` in every join shape on random tables of `dt`, each shape in two of the four
   * modes, ANSI on and off, with codegen on for one shape and off for the next (with two shapes
   * or more, every mode runs); `operator` gives the operator to plan from whether ANSI is on.
   * Returns the rows of all queries.
   */
  private def check(
      dt: DataType,
      condition: String,
      operator: Boolean => String,
      shapes: Seq[String => String] = joinShapes
  ): Int =
    (for {
      seed <- Seq(1L)
      (shape, s) <- shapes.zipWithIndex
      mode <- Seq(modes(s % modes.size), modes((s + modes.size / 2) % modes.size))
    } yield withConf(mode: _*) {
      tables(dt, seed * 31)
      val ansi = spark.sessionState.conf.ansiEnabled
      withClue(s"$dt, seed $seed, $mode: ") {
        checkOperator(shape(condition), Some(operator(ansi)))
      }
    }).sum

  private def always(operator: String): Boolean => String = _ => operator

  // Each form JoinConditionAnalysis rewrites into candidate inequalities, one test each.

  test("abs(l.a - r.a) <= c on integers plans IEJoin") {
    for (dt <- Seq(IntegerType, LongType, ShortType, ByteType)) {
      assert(check(dt, "abs(l.a - r.a) <= 2", always("IEJoin")) > 0)
    }
  }

  test("l.a - r.a BETWEEN c1 AND c2, and the reverse difference, plan IEJoin") {
    assert(check(IntegerType, "l.a - r.a BETWEEN -2 AND 1", always("IEJoin")) > 0)
    assert(check(LongType, "r.b - l.a BETWEEN 0 AND 2000000014", always("IEJoin")) > 0)
  }

  test("abs of a float or double difference (NaN, infinities, -0.0) plans IEJoin") {
    assert(check(DoubleType, "abs(l.a - r.a) <= 0.5", always("IEJoin")) > 0)
    assert(check(FloatType, "abs(r.b - l.a) < 1.5", always("IEJoin")) > 0)
  }

  test("datediff BETWEEN plans IEJoin") {
    assert(check(DateType, "datediff(l.a, r.a) BETWEEN 0 AND 3", always("IEJoin")) > 0)
  }

  test("a difference of unix_timestamp plans IEJoin") {
    val condition = "unix_timestamp(l.a) - unix_timestamp(r.b) BETWEEN -2 AND 3"
    assert(check(TimestampType, condition, always("IEJoin")) > 0)
  }

  test("a one-sided difference with another inequality plans IEJoin on both") {
    assert(check(IntegerType, "l.a - r.a < 3 AND l.a > r.a", always("IEJoin")) > 0)
    // Alone, a one-sided bound is one inequality: PiecewiseMergeJoin. For doubles, `>=` holds
    // for NaN differences, which the lower key must admit.
    assert(check(DoubleType, "l.a - r.b >= 0.5", always("PiecewiseMergeJoin")) > 0)
    assert(check(DoubleType, "1.5 > r.b - l.b", always("PiecewiseMergeJoin")) > 0)
  }

  test("an equality key with abs() plans SlidingWindowJoin, or KeyGroupIEJoin where it wraps") {
    // With ANSI off an integer difference may wrap around: its keys are guarded and not
    // monotone, so no sliding window (see DifferenceBounds).
    val window: Boolean => String = ansi => if (ansi) "SlidingWindowJoin" else "KeyGroupIEJoin"
    assert(check(IntegerType, "l.c = r.c AND abs(l.a - r.a) <= 2", window) > 0)
    assert(check(
      DoubleType,
      "l.c = r.c AND abs(l.a - r.a) <= 1.0",
      always("SlidingWindowJoin")
    ) > 0)
    // In an EXISTS within a disjunction, Spark decorrelates this subquery into a join of the
    // distinct `l.a` values with `r` that has no equality key: not the keyed join asked for here.
    val datediff = "l.c = r.c AND datediff(l.a, r.a) BETWEEN -1 AND 2"
    assert(check(DateType, datediff, always("KeyGroupIEJoin"), joinShapes.take(6)) > 0)
  }

  // Timestamps and dates bounded by interval constants.

  private val sessionZone = SQLConf.SESSION_LOCAL_TIMEZONE.key

  /** Zones with one offset, with daylight saving time, and with a half-hour change of clocks. */
  private val zones = Seq("UTC", "America/Los_Angeles", "Australia/Lord_Howe")

  /**
   * Tables `l` and `r` whose timestamps `a` and `b` lie within three hours of a change of clocks
   * in one of [[zones]] (2021), at whole minutes or a second off them, so that differences fall
   * on and next to the bounds; NULLs, and `c`, a key of two values. `ntz`: as `TIMESTAMP_NTZ`.
   */
  private def clockChangeTables(seed: Long, ntz: Boolean = false): Unit = {
    val changes = Seq("2021-03-14T10:00:00Z", "2021-11-07T09:00:00Z", "2021-04-03T15:00:00Z")
      .map(java.time.Instant.parse(_).getEpochSecond)
    val random = new scala.util.Random(seed)
    def instant(): java.lang.Long =
      if (random.nextInt(12) == 0) null
      else changes(random.nextInt(3)) + random.nextInt(361) * 60 - 10800 + random.nextInt(3) - 1
    val timestamp = if (ntz) "TIMESTAMP_NTZ" else "TIMESTAMP"
    for ((name, rows) <- Seq("l" -> 45, "r" -> 40)) {
      val values = (0 until rows).map(id => (id, instant(), instant(), id % 2))
      spark
        .createDataFrame(values)
        .toDF("id", "a", "b", "c")
        .selectExpr(
          "id",
          s"CAST(timestamp_seconds(a) AS $timestamp) AS a",
          s"CAST(timestamp_seconds(b) AS $timestamp) AS b",
          "c"
        )
        .localCheckpoint()
        .createOrReplaceTempView(name)
    }
  }

  test("timestamp differences against intervals plan IEJoin in every zone, across clock changes") {
    // In a zone with daylight saving time `ts1 - ts2` is a difference of wall-clock times, up to
    // an hour away from the difference of the instants near a change of clocks.
    // Every mode where clocks change by an hour, one each in the other zones.
    for ((zone, i) <- zones.zipWithIndex) withConf(sessionZone -> zone) {
      clockChangeTables(seed = 11)
      val zoneModes = if (zone == "America/Los_Angeles") modes else Seq(modes(i))
      for (mode <- zoneModes) withConf(mode: _*) {
        withClue(s"$zone, $mode: ") {
          val both = "abs(l.a - r.a) <= INTERVAL 30 MINUTES"
          assert(joinShapes.map(shape => checkOperator(shape(both), Some("IEJoin"))).sum > 0)
          val between = "l.a - r.b BETWEEN INTERVAL '-1' HOUR AND INTERVAL '59:59' MINUTE TO SECOND"
          assert(checkOperator(joinShapes.head(between), Some("IEJoin")) > 0)
          val oneSided = "r.a - l.b < INTERVAL 2 HOURS AND l.b < r.a"
          assert(checkOperator(joinShapes(1)(oneSided), Some("IEJoin")) > 0)
        }
      }
    }
  }

  test("TIMESTAMP_NTZ differences against intervals plan IEJoin") {
    for (zone <- zones.take(2)) withConf(sessionZone -> zone) {
      clockChangeTables(seed = 12, ntz = true)
      for (mode <- modes) withConf(mode: _*) {
        val condition = "abs(l.a - r.b) < INTERVAL '01:30' HOUR TO MINUTE"
        assert(joinShapes.map(shape => checkOperator(shape(condition), Some("IEJoin"))).sum > 0)
      }
    }
  }

  test("date differences against intervals plan IEJoin on whole days") {
    // `d1 - d2` is whole days in microseconds: 36 hours admits a difference of one day.
    assert(check(DateType, "abs(l.a - r.a) < INTERVAL 36 HOURS", always("IEJoin")) > 0)
    val between = "l.a - r.b BETWEEN INTERVAL '-2' DAY AND INTERVAL '1 00:00:01' DAY TO SECOND"
    assert(check(DateType, between, always("IEJoin"), joinShapes.take(2)) > 0)
    val strict = "l.a - r.a < INTERVAL 2 DAYS AND l.a > r.b"
    assert(check(DateType, strict, always("IEJoin"), joinShapes.take(2)) > 0)
  }

  test("an equality key with a timestamp tolerance: SlidingWindowJoin, KeyGroupIEJoin with DST") {
    // Wall-clock keys in a zone with daylight saving time are not monotone: no sliding window.
    for (zone <- zones.take(2)) withConf(sessionZone -> zone) {
      clockChangeTables(seed = 13)
      val operator = if (zone == "UTC") "SlidingWindowJoin" else "KeyGroupIEJoin"
      for (mode <- modes; shape <- joinShapes.take(6)) withConf(mode: _*) {
        val condition = "l.c = r.c AND abs(l.a - r.a) <= INTERVAL 20 MINUTES"
        checkOperator(shape(condition), Some(operator))
      }
    }
  }

  test("timestamps next to the long range: wall-clock keys saturate and are guarded") {
    // Within a day of the long range a timestamp's wall-clock microseconds do not fit in a long.
    val nearMin = Seq(
      "-9223372036854775808",
      "-9223372036854775807",
      "-9223372036854775000",
      "-9223372030000000000",
      "-9223372000000000000"
    )
    val nearMax = Seq(
      "9223372036854775807",
      "9223372036854775806",
      "9223372036854775000",
      "9223372030000000000",
      "9223372000000000000"
    )
    // Los Angeles is behind UTC there (by its local mean time), Tokyo ahead of it.
    for ((zone, values) <- Seq("America/Los_Angeles" -> nearMin, "Asia/Tokyo" -> nearMax)) {
      withConf(sessionZone -> zone) {
        val timestamps = values.map(v => s"timestamp_micros(CAST($v AS BIGINT))") :+ "NULL"
        extremeTables(timestamps, "TIMESTAMP")
        assert(eachShape("abs(l.a - r.a) <= INTERVAL 3 HOURS", "IEJoin") > 0)
        assert(eachShape("l.a - r.a <= INTERVAL 1 SECOND", "PiecewiseMergeJoin") > 0)
      }
    }
  }

  test("an open end, `x < e OR e IS NULL`, plans IEJoin with the other bound") {
    for (dt <- Seq(IntegerType, DateType, TimestampType, DoubleType)) {
      assert(check(dt, "l.a >= r.a AND (l.a < r.b OR r.b IS NULL)", always("IEJoin")) > 0)
      assert(check(dt, "(r.b IS NULL OR r.b >= l.b) AND l.b > r.a", always("IEJoin")) > 0)
    }
  }

  test("with equality keys an open end and one other bound plan KeyedIntervalJoin") {
    // A type-2 dimension looked up on its key; on doubles the join stays with Spark.
    tables(IntegerType, 3)
    checkOperator(
      "SELECT l.id, r.id FROM l JOIN r ON l.c = r.c AND l.a >= r.a AND " +
        "(l.a < r.b OR r.b IS NULL)",
      Some("KeyedIntervalJoin")
    )
    tables(DoubleType, 3)
    checkOperator(
      "SELECT l.id, r.id FROM l JOIN r ON l.c = r.c AND l.a >= r.a AND " +
        "(l.a < r.b OR r.b IS NULL)",
      None
    )
  }

  test("an open end alone plans PiecewiseMergeJoin; a NULL x meets a NULL end") {
    assert(check(IntegerType, "l.a <= r.b OR r.b IS NULL", always("PiecewiseMergeJoin")) > 0)
    assert(check(DoubleType, "l.a IS NULL OR l.a > r.b", always("PiecewiseMergeJoin")) > 0)
  }

  test("forms that are not rewritten stay with Spark") {
    tables(DecimalType(10, 2), 5)
    checkOperator("SELECT l.id, r.id FROM l JOIN r ON abs(l.a - r.a) <= 1", None)
    tables(IntegerType, 5)
    checkOperator("SELECT l.id, r.id FROM l JOIN r ON abs(l.a - r.a) > 1", None)
    checkOperator("SELECT l.id, r.id FROM l JOIN r ON abs(l.a - r.a) <= r.b", None)
    checkOperator("SELECT l.id, r.id FROM l JOIN r ON l.a < r.a OR l.b IS NULL", None)
  }

  // Values where Spark's arithmetic wraps around, saturates or rounds.

  private def extremeTables(values: Seq[String], dt: String): Unit = {
    val rows = values.zipWithIndex.map { case (v, i) => s"($i, CAST($v AS $dt))" }.mkString(", ")
    Seq("l", "r").foreach { name =>
      spark.sql(s"SELECT * FROM VALUES $rows AS t(id, a)").localCheckpoint()
        .selectExpr("id", "a", "a AS b", "CAST(id % 2 AS INT) AS c")
        .createOrReplaceTempView(name)
    }
  }

  /** Checks `condition` in every join shape, codegen on and off, in the session's ANSI mode. */
  private def eachShape(condition: String, operator: String): Int =
    (for (mode <- codegenModes; shape <- joinShapes)
      yield withConf(mode: _*)(checkOperator(shape(condition), Some(operator)))).sum

  test("ANSI off: integer differences that wrap around match as in Spark") {
    val ints = Seq(
      "-2147483648",
      "-2147483647",
      "-1073741825",
      "-1073741824",
      "-1",
      "0",
      "1",
      "1073741823",
      "1073741824",
      "2147483646",
      "2147483647",
      "NULL"
    )
    withConf(SQLConf.ANSI_ENABLED.key -> "false") {
      extremeTables(ints, "INT")
      // 2147483647 - (-2147483648) wraps to -1: inside the band, found only through the guard.
      assert(eachShape("l.a - r.a BETWEEN -2 AND 2", "IEJoin") > 0)
      assert(eachShape("l.a - r.a < 2", "PiecewiseMergeJoin") > 0)
      assert(eachShape("abs(l.a - r.a) <= 1", "IEJoin") > 0)
      assert(eachShape("abs(l.a - r.a) < -5", "IEJoin") > 0) // abs(MIN_VALUE) is negative
      assert(eachShape("l.c = r.c AND abs(r.a - l.a) <= 3", "KeyGroupIEJoin") > 0)
      extremeTables(ints.map(v => if (v == "NULL") v else s"date_from_unix_date($v)"), "DATE")
      assert(eachShape("datediff(l.a, r.a) BETWEEN -1 AND 1", "IEJoin") > 0)
      val longs = Seq(
        "-9223372036854775808",
        "-4611686018427387905",
        "-1",
        "0",
        "4611686018427387904",
        "9223372036854775806",
        "9223372036854775807",
        "NULL"
      )
      extremeTables(longs, "BIGINT")
      assert(eachShape("l.a - r.a BETWEEN 0 AND 9223372036854775807", "IEJoin") > 0)
      assert(eachShape("abs(l.a - r.a) <= 1", "IEJoin") > 0)
    }
  }

  test("ANSI on: bounds next to the long range saturate instead of overflowing") {
    // No pair's difference overflows, so vanilla Spark succeeds; y + c would overflow in long.
    withConf(SQLConf.ANSI_ENABLED.key -> "true") {
      extremeTables(
        Seq(
          "9223372036854775800",
          "9223372036854775805",
          "9223372036854775807",
          "9223372036854775806",
          "NULL"
        ),
        "BIGINT"
      )
      assert(eachShape("l.a - r.a BETWEEN -3 AND 9223372036854775807", "IEJoin") > 0)
      extremeTables(
        Seq(
          "-9223372036854775800",
          "-9223372036854775805",
          "-9223372036854775808",
          "-9223372036854775806",
          "NULL"
        ),
        "BIGINT"
      )
      assert(eachShape("l.a - r.a >= -9223372036854775807 AND l.a > r.b", "IEJoin") > 0)
    }
  }

  test("rounding: differences of doubles close to the bound") {
    val doubles = (0 to 30).map(i => s"${i / 10.0}") ++ Seq(
      "0.30000000000000004",
      "1e16",
      "1.0000000000000002e16",
      "-0.0",
      "'NaN'",
      "'Infinity'",
      "'-Infinity'",
      "NULL"
    )
    extremeTables(doubles, "DOUBLE")
    assert(eachShape("abs(l.a - r.a) <= 0.1", "IEJoin") > 0)
    assert(eachShape("l.a - r.a BETWEEN 0.1 AND 0.3", "IEJoin") > 0)
    assert(eachShape("l.a - r.a > 0.2", "PiecewiseMergeJoin") > 0)
    // 0.9 - 0.2 <= 0.7 though 0.2 + 0.7 < 0.9; 1.7 - 0.6 >= 1.1 though 0.6 + 1.1 > 1.7: found
    // only through keys rounded outwards.
    assert(eachShape("l.a - r.a <= 0.7", "PiecewiseMergeJoin") > 0)
    assert(eachShape("l.a - r.a BETWEEN 1.1 AND 1.3", "IEJoin") > 0)
    // NaN - x >= 2.0 holds in Spark: a NaN right row meets every left row.
    assert(eachShape("l.a - r.a >= 2.0", "PiecewiseMergeJoin") > 0)
    extremeTables(doubles, "FLOAT")
    assert(eachShape("abs(l.a - r.a) <= 0.1", "IEJoin") > 0)
    assert(eachShape("l.a - r.a < 0.3", "PiecewiseMergeJoin") > 0)
  }
}

package rangejoin

import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.ProjectExec
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.internal.SQLConf

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{JoinMetric, KeyClusteredJoinExec, KeyedIntervalJoinExec}

/**
 * Joins with equality keys plus inequalities: SlidingWindowJoinExec for a window on one
 * column pair, KeyedIntervalJoinExec for a point in an interval with an open end,
 * KeyGroupIEJoinExec for other inequalities, every join type, against vanilla Spark.
 */
class KeyedJoinSuite extends RangeJoinTestBase {

  /**
   * Events: `k` one of `keys` keys or NULL, `ts` a timestamp, `v` a double with NaN and -0.0,
   * `[s, e]` an interval; NULLs in `ts`. Checkpointed, so the optimizer sees plain columns.
   */
  private def events(name: String, rows: Int, keys: Int, seed: Int): Unit =
    spark
      .range(0, rows)
      .selectExpr(
        "id",
        s"CASE WHEN id % 17 = 3 THEN NULL ELSE CAST(hash(id, $seed) % $keys AS INT) END AS k",
        s"CASE WHEN id % 23 = 5 THEN NULL ELSE " +
          s"timestamp_seconds(1700000000 + pmod(hash(id, $seed + 1), 200)) END AS ts",
        s"CASE WHEN id % 29 = 7 THEN double('NaN') WHEN id % 31 = 1 THEN -0.0 " +
          s"ELSE pmod(hash(id, $seed + 2), 100) / 4.0 END AS v",
        s"pmod(hash(id, $seed + 3), 150) AS s",
        s"pmod(hash(id, $seed + 3), 150) + pmod(hash(id, $seed + 4), 20) AS e"
      )
      .localCheckpoint()
      .createOrReplaceTempView(name)

  /** Checks `condition` in every join shape; returns the rows of all of them. */
  private def eachShape(condition: String, operator: String): Int =
    joinShapes.map(shape => checkOperator(shape(condition), Some(operator))).sum

  test("a time window per key plans SlidingWindowJoinExec, every join type", EveryLine) {
    events("l", 300, 5, 1)
    events("r", 250, 5, 2)
    val rows = eachShape(
      "l.k = r.k AND l.ts >= r.ts AND l.ts < r.ts + INTERVAL 10 SECONDS",
      "SlidingWindowJoin"
    )
    assert(rows > 0)
  }

  test("a window larger than the buffer's spill threshold spills and still matches", Spills) {
    // Each pass over a spilled window opens a reader per spill file, which Spark keeps until
    // the task ends (as for its sort-merge join buffer): a few spill files only.
    events("l", 120, 1, 9)
    events("r", 120, 1, 10)
    withConf(
      "spark.sql.sortMergeJoinExec.buffer.in.memory.threshold" -> "8",
      "spark.sql.sortMergeJoinExec.buffer.spill.threshold" -> "48"
    ) {
      val query =
        "SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k AND l.s BETWEEN r.s AND r.s + 90"
      assert(checkOperator(query, Some("SlidingWindowJoin")) > 0)
      val df = spark.sql(query)
      df.collect()
      val spilled = collect(df.queryExecution.executedPlan) {
        case j: rangejoin.execution.SlidingWindowJoinExec => j.metrics("spillSize").value
      }
      assert(spilled.sum > 0)
    }
  }

  test("BETWEEN with constant offsets on doubles (NaN, -0.0) and a residual") {
    events("l", 300, 4, 3)
    events("r", 300, 4, 4)
    eachShape(
      "l.k = r.k AND l.v BETWEEN r.v - 1.5 AND r.v + 0.25 AND (l.id + r.id) % 3 <> 0",
      "SlidingWindowJoin"
    )
    eachShape("r.k = l.k AND r.v > l.v - 2 AND l.v > r.v - 2", "SlidingWindowJoin")
  }

  /**
   * The versions of a type-2 dimension: `k` one of `keys` keys or NULL, each key's versions
   * `[s, e)` back to back in order of `s`, the last one open (`e` NULL); every 13th version
   * overlaps the next ones, every 31st has a NULL start. `s` and `e` of type `dataType`.
   */
  private def versions(name: String, rows: Int, keys: Int, seed: Int, dataType: String): Unit = {
    spark
      .range(0, rows)
      .selectExpr(
        "id",
        s"CAST(pmod(hash(id, $seed), $keys) AS INT) AS k0",
        s"pmod(hash(id, $seed + 1), 4000) AS s0"
      )
      .createOrReplaceTempView("raw_versions")
    spark
      .sql(
        s"SELECT id, CASE WHEN id % 37 = 3 THEN NULL ELSE k0 END AS k, " +
          s"CASE WHEN id % 31 = 1 THEN NULL ELSE ${typed("s0", dataType)} END AS s, " +
          s"CASE WHEN id % 13 = 2 THEN ${typed("s0 + 250", dataType)} ELSE " +
          s"${typed("lead(s0) OVER (PARTITION BY k0 ORDER BY s0, id)", dataType)} END AS e " +
          "FROM raw_versions"
      )
      .localCheckpoint()
      .createOrReplaceTempView(name)
  }

  /** Facts: `k` one of `keys` keys or NULL, a point `p` of type `dataType` or NULL. */
  private def facts(name: String, rows: Int, keys: Int, seed: Int, dataType: String): Unit =
    spark
      .range(0, rows)
      .selectExpr(
        "id",
        s"CASE WHEN id % 17 = 3 THEN NULL ELSE CAST(pmod(hash(id, $seed), $keys) AS INT) END AS k",
        s"CASE WHEN id % 23 = 5 THEN NULL ELSE " +
          s"${typed(s"pmod(hash(id, $seed + 1), 4200) - 100", dataType)} END AS p"
      )
      .localCheckpoint()
      .createOrReplaceTempView(name)

  private def typed(value: String, dataType: String): String = dataType match {
    case "int" => s"CAST($value AS INT)"
    case "date" => s"date_add(DATE'2020-01-01', CAST($value AS INT))"
    case "timestamp" => s"timestamp_seconds(1700000000 + $value)"
  }

  test("a type-2 dimension lookup plans KeyedIntervalJoinExec, broadcast or partitioned") {
    val types = Seq("int", "date", "timestamp")
    for ((dataType, t) <- types.zipWithIndex) {
      facts("f", 900, 20, 21 + t, dataType)
      versions("d", 2000, 20, 31 + t, dataType)
      // Each type in its own session mode, ANSI and whole-stage codegen on and off.
      withConf(
        SQLConf.ANSI_ENABLED.key -> (t != 1).toString,
        SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> (t != 2).toString
      ) {
        for (threshold <- Seq("-1", "32m")) withConf(
          RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> threshold
        ) {
          spark.table("f").createOrReplaceTempView("l")
          spark.table("d").createOrReplaceTempView("r")
          val pointLeft = Seq(
            "l.k = r.k AND l.p >= r.s AND (l.p < r.e OR r.e IS NULL)",
            "r.k = l.k AND (r.e IS NULL OR r.e >= l.p) AND r.s < l.p AND (l.id + r.id) % 5 <> 0"
          )
          for ((shape, s) <- joinShapes.zipWithIndex; condition <- pointLeft) {
            // A right or full outer join preserves the versions, which the operator indexes.
            val operator = if (s == 2 || s == 3) Nil else Seq("KeyedIntervalJoin")
            checkOperatorsPlan(shape(condition), operator)
          }
          val inner = s"SELECT l.id, r.id FROM l JOIN r ON ${pointLeft.head}"
          val (rows, plan) = checkOperatorPlan(inner, Some("KeyedIntervalJoin"))
          assert(rows > 500)
          val joins = collect(plan) { case j: KeyedIntervalJoinExec => j }
          assert(joins.map(_.broadcast) == Seq(threshold != "-1"))
          // Non-overlapping versions: a point meets its version and at most one more, except
          // near the few versions that overlap the next ones.
          val walked = joins.head.metrics("candidatesWalked").value
          assert(walked > 0 && walked < 3 * 900, s"$walked candidates for 900 facts")
          // The point on the right: the versions are the left input.
          spark.table("d").createOrReplaceTempView("l")
          spark.table("f").createOrReplaceTempView("r")
          val pointRight = "l.k = r.k AND r.p >= l.s AND (r.p < l.e OR l.e IS NULL)"
          for (shape <- Seq(joinShapes(0), joinShapes(2))) {
            assert(checkOperator(shape(pointRight), Some("KeyedIntervalJoin")) > 500)
          }
        }
      }
    }
  }

  test("broadcast versions, sorted on the driver, are indexed as they arrive") {
    facts("f", 900, 20, 41, "int")
    versions("d", 2000, 20, 42, "int")
    spark.table("f").createOrReplaceTempView("l")
    // The versions in random order: each executor would have to sort them itself.
    spark.table("d").orderBy(expr("hash(id, 7)")).localCheckpoint().createOrReplaceTempView("r")
    val condition = "l.k = r.k AND l.p >= r.s AND (l.p < r.e OR r.e IS NULL)"
    for (threshold <- Seq("32m", "-1")) {
      withConf(RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> threshold) {
        val query = s"SELECT l.id, r.id FROM l JOIN r ON $condition"
        val (rows, plan) = checkOperatorPlan(query, Some("KeyedIntervalJoin"))
        assert(rows > 500)
        val join = collect(plan) { case j: KeyedIntervalJoinExec => j }.head
        val sorted = join.metrics(JoinMetric.IndexRowsSorted.key).value
        assert(join.broadcast == (threshold != "-1"))
        assert(if (join.broadcast) sorted == 0 else sorted > 1000, s"$sorted rows sorted")
      }
    }
  }
  test("a dimension looked up twice, its broadcast reused, is indexed once per executor") {
    facts("f", 900, 20, 51, "int")
    versions("d", 2000, 20, 52, "int")
    // Two roles of one dimension: the second broadcast reuses the first under other names.
    val query = "SELECT f.id, a.id, b.id FROM (SELECT *, p - 50 AS q FROM f) f " +
      "JOIN d a ON f.k = a.k AND f.p >= a.s AND (f.p < a.e OR a.e IS NULL) " +
      "JOIN d b ON f.k = b.k AND f.q >= b.s AND (f.q < b.e OR b.e IS NULL)"
    withConf(RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> "32m") {
      val (rows, plan) =
        checkOperatorsPlan(query, Seq("KeyedIntervalJoin", "KeyedIntervalJoin"))
      assert(rows > 300)
      assert(collect(plan) { case r: ReusedExchangeExec => r }.nonEmpty, s"no reuse in\n$plan")
      val joins = collect(plan) { case j: KeyedIntervalJoinExec => j }
      assert(joins.forall(_.broadcast))
      // One executor in local mode: one index for both joins.
      val builds = joins.map(_.metrics(JoinMetric.IndexBuilds.key).value)
      assert(builds.sum == 1, s"index builds per join: $builds")
    }
  }

  test(
    "a keyed interval's strict and open bounds hold at the ends of the type's range",
    EveryLine
  ) {
    // Bounds and points at and next to each end of the range, where a strict bound's inclusive
    // code (`s + 1`, `e - 1`) would wrap, and a strict open end must still admit the largest
    // point. Every pair of bounds, one key.
    for (
      (dataType, min, max) <- Seq(
        ("int", Int.MinValue.toLong, Int.MaxValue.toLong),
        ("bigint", Long.MinValue, Long.MaxValue)
      )
    ) {
      val values = Seq(min, min + 1, -1L, 0L, max - 1, max).map(v => s"CAST('$v' AS $dataType)") :+
        s"CAST(NULL AS $dataType)"
      def table(name: String, columns: String, rows: Seq[String]): Unit = {
        val tuples = rows.zipWithIndex.map { case (row, i) => s"($i, 0, $row)" }
        spark.sql(s"SELECT * FROM VALUES ${tuples.mkString(", ")} AS t(id, k, $columns)")
          .createOrReplaceTempView(name)
      }
      table("l", "p", values)
      table("r", "s, e", for (s <- values; e <- values) yield s"$s, $e")
      for {
        condition <- Seq(
          "l.k = r.k AND l.p > r.s AND (l.p < r.e OR r.e IS NULL)",
          "l.k = r.k AND l.p >= r.s AND (r.e IS NULL OR l.p <= r.e)",
          "l.k = r.k AND (r.s IS NULL OR r.s < l.p) AND l.p < r.e",
          "l.k = r.k AND (l.p >= r.s OR r.s IS NULL) AND l.p <= r.e AND l.id <> r.id % 7"
        )
        shape <- Seq(joinShapes(0), joinShapes(1), joinShapes(5))
        threshold <- Seq("-1", "32m")
      } withConf(RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> threshold) {
        checkOperator(shape(condition), Some("KeyedIntervalJoin"))
      }
    }
  }

  test("an index of several probe regions, one key larger than a region, answers as Spark") {
    // Versions of about 380 bytes of index each (the padding is in the output, so it stays in
    // the index's rows): a region holds about 1,400. Key 0: 3,000 back-to-back versions, more
    // than a region, so its points find their regions by interpolation; keys 1 to 200: 5
    // versions each, some open or overlapping. About 1.5 MB of index: three regions.
    spark
      .range(0, 4000)
      .selectExpr(
        "id",
        "CASE WHEN id < 3000 THEN 0 WHEN id % 41 = 0 THEN NULL " +
          "ELSE CAST(1 + id % 200 AS INT) END AS k",
        "CAST(IF(id < 3000, id * 3, pmod(hash(id, 61), 9000)) AS INT) AS s",
        "CASE WHEN id >= 3000 AND id % 7 = 0 THEN NULL " +
          "ELSE CAST(IF(id < 3000, id * 3 + 3, pmod(hash(id, 61), 9000) + 900) AS INT) END AS e",
        "repeat('x', 300) AS pad"
      )
      .localCheckpoint()
      .createOrReplaceTempView("r")
    // A quarter of the points on key 0, the others on small keys, some absent, some NULL.
    spark
      .range(0, 2000)
      .selectExpr(
        "id",
        "CASE WHEN id % 4 = 0 THEN 0 WHEN id % 53 = 0 THEN NULL " +
          "ELSE CAST(1 + pmod(hash(id, 62), 210) AS INT) END AS k",
        "CASE WHEN id % 59 = 0 THEN NULL ELSE CAST(pmod(hash(id, 63), 9400) - 200 AS INT) END AS p"
      )
      .localCheckpoint()
      .createOrReplaceTempView("l")
    val condition = "l.k = r.k AND l.p >= r.s AND (l.p < r.e OR r.e IS NULL)"
    for (threshold <- Seq("-1", "32m")) withConf(
      RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> threshold
    ) {
      val rows = Seq("JOIN", "LEFT JOIN").map { join =>
        val query = s"SELECT l.id, r.id, length(r.pad) FROM l $join r ON $condition"
        checkOperator(query, Some("KeyedIntervalJoin"))
      }
      assert(rows.head > 400, s"$rows")
      // Outputs of only the intervals' columns (a projection above keeps them): the probe drops
      // each point after its probe, and a join's pairs are the index's rows.
      for (
        query <- Seq(
          s"SELECT r.id, r.e FROM l JOIN r ON $condition",
          s"SELECT count(*), count(r.id), sum(r.s) FROM l LEFT JOIN r ON $condition",
          s"SELECT r.id, r.e FROM l LEFT JOIN r ON $condition",
          s"SELECT count(*) FROM l LEFT SEMI JOIN r ON $condition",
          s"SELECT count(*) FROM l LEFT ANTI JOIN r ON $condition"
        )
      ) {
        val (_, plan) = checkOperatorPlan(query, Some("KeyedIntervalJoin"))
        val join = collect(plan) { case j: KeyedIntervalJoinExec => j }.head
        assert(!join.readsStreamedColumns, query)
        // Pairs of only indexed columns are the index's rows, projected once to those columns.
        assert(
          join.indexWritten.isDefined == !(query.contains(" SEMI ") || query.contains(" ANTI "))
        )
      }
    }
  }

  test("a keyed interval join writes only the columns a projection above it keeps") {
    facts("l", 900, 20, 71, "int")
    versions("r", 2000, 20, 72, "int")
    val condition = "l.k = r.k AND l.p >= r.s AND (l.p < r.e OR r.e IS NULL)"
    // Each query with the columns its join writes; the second keeps l.k, on which the
    // partitioned join's point input is clustered.
    val queries = Seq(
      s"SELECT r.id, l.p FROM l JOIN r ON $condition" -> Seq("r.id", "l.p"),
      s"SELECT l.k, r.e FROM l LEFT JOIN r ON $condition AND (l.id + r.id) % 5 <> 0" ->
        Seq("l.k", "r.e"),
      s"SELECT count(*), count(r.id) FROM l LEFT JOIN r ON $condition" -> Seq("r.id"),
      s"SELECT l.id FROM l LEFT ANTI JOIN r ON $condition" -> Seq("l.id")
    )
    // Partitions not coalesced: a single one would be clustered on any column.
    for (threshold <- Seq("-1", "32m")) withConf(
      RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> threshold,
      SQLConf.COALESCE_PARTITIONS_ENABLED.key -> "false"
    ) {
      for ((query, columns) <- queries) {
        val (_, plan) = checkOperatorPlan(query, Some("KeyedIntervalJoin"))
        val join = collect(plan) { case j: KeyedIntervalJoinExec => j }.head
        val written = join.output.map { a =>
          (if (join.left.outputSet.contains(a)) "l." else "r.") + a.name
        }
        assert(written == columns, query)
        assert(collect(plan) { case p: ProjectExec if p.find(_ eq join).isDefined => p }.isEmpty)
        val kept = join.output.map(_.sql).mkString("[", ", ", "]")
        assert(join.simpleString(100).contains(s"output: only the columns read above $kept"))
        val clustered = join.outputPartitioning.isInstanceOf[HashPartitioning]
        assert(clustered == (threshold == "-1" && columns.contains("l.k")), s"$query\n$plan")
      }
      // A projection that computes stays above the join, which writes every column.
      val (_, plan) = checkOperatorPlan(
        s"SELECT l.id + r.id FROM l JOIN r ON $condition",
        Some("KeyedIntervalJoin")
      )
      val join = collect(plan) { case j: KeyedIntervalJoinExec => j }.head
      assert(join.output.size == 7 && join.simpleString(100).contains("output: all columns"))
    }
  }

  test("a broadcast keyed interval join runs in its stage's generated code, every join type") {
    facts("f", 900, 20, 81, "int")
    versions("d", 2000, 20, 82, "int")
    val interval = "l.p >= r.s AND (l.p < r.e OR r.e IS NULL)"
    // One integral key (looked up by value), two keys and a string key (by key row).
    val keys = Seq("l.k = r.k", "l.k = r.k AND l.id % 2 = r.id % 2", "string(l.k) = string(r.k)")
    val queries = keys.flatMap { key =>
      val on = s"$key AND $interval"
      Seq(0, 1, 4, 5, 6).map(s => joinShapes(s)(on)) ++ Seq(
        s"SELECT l.id, r.id FROM l JOIN r ON $on AND (l.id + r.id) % 5 <> 0",
        s"SELECT count(*), sum(r.id), count(r.e) FROM l LEFT JOIN r ON $on",
        // A filter above an outer join: its `continue` skips a pair or the padded row.
        s"SELECT l.id, r.id FROM l LEFT JOIN r ON $on WHERE r.id IS NULL OR r.id % 4 <> 0",
        s"SELECT r.id FROM r RIGHT JOIN l ON $on"
      )
    }
    spark.table("f").createOrReplaceTempView("l")
    spark.table("d").createOrReplaceTempView("r")
    withConf(RangeJoinConf.KeyedIntervalBroadcastThreshold.key -> "32m") {
      for (on <- Seq(true, false); query <- queries) wholeStageCodegen(on) {
        withClue(s"$query (whole-stage codegen $on)\n") {
          val (_, plan) = checkOperatorPlan(query, Some("KeyedIntervalJoin"))
          val joins = collect(plan) { case j: KeyedIntervalJoinExec => j }
          val generated = generatedStages(plan).flatten.collect { case j: KeyedIntervalJoinExec =>
            j
          }
          assert(joins.forall(_.broadcast) && generated.size == (if (on) joins.size else 0), plan)
        }
      }
    }
  }

  test("a point in an interval per key without an open end stays KeyGroupIEJoinExec") {
    facts("l", 300, 5, 41, "int")
    versions("r", 300, 5, 42, "int")
    checkOperator(
      "SELECT l.id, r.id FROM l JOIN r ON l.k = r.k AND l.p >= r.s AND l.p < r.e",
      Some("KeyGroupIEJoin")
    )
    withConf(RangeJoinConf.KeyedIntervalJoinEnabled.key -> "false") {
      checkOperatorsPlan(
        "SELECT l.id, r.id FROM l JOIN r " +
          "ON l.k = r.k AND l.p >= r.s AND (l.p < r.e OR r.e IS NULL)",
        Nil
      )
    }
  }

  test("interval overlap per key plans KeyGroupIEJoinExec, every join type", EveryLine) {
    events("l", 300, 3, 5)
    events("r", 280, 3, 6)
    eachShape("l.k = r.k AND l.s <= r.e AND l.e >= r.s", "KeyGroupIEJoin")
    eachShape("l.k = r.k AND l.s < r.s AND l.e > r.e AND l.id <> r.id", "KeyGroupIEJoin")
  }

  test("two equality keys, empty sides, and a disabled window operator") {
    events("l", 200, 3, 7)
    events("r", 200, 3, 8)
    val window = "l.k = r.k AND l.id % 2 = r.id % 2 AND l.s BETWEEN r.s - 10 AND r.s + 10"
    eachShape(window, "SlidingWindowJoin")
    withConf(RangeJoinConf.SlidingWindowJoinEnabled.key -> "false") {
      checkOperator(s"SELECT l.id, r.id FROM l JOIN r ON $window", Some("KeyGroupIEJoin"))
    }
    // Adaptive execution would replace a join with an empty side by an empty relation.
    withConf("spark.sql.adaptive.enabled" -> "false") {
      spark.sql("SELECT * FROM r WHERE id < 0").createOrReplaceTempView("r")
      eachShape("l.k = r.k AND l.s <= r.e AND l.e >= r.s", "KeyGroupIEJoin")
      eachShape(window, "SlidingWindowJoin")
      events("r", 200, 3, 8)
      spark.sql("SELECT * FROM l WHERE id < 0").createOrReplaceTempView("l")
      eachShape("l.k = r.k AND l.s <= r.e AND l.e >= r.s", "KeyGroupIEJoin")
      eachShape(window, "SlidingWindowJoin")
    }
  }

  test("a hot key's skewed partitions split over tasks where the join type allows it") {
    // A third of each side has key 0; six map tasks, so its partition splits into pieces.
    def hotKey(name: String, seed: Int): Unit =
      spark
        .range(0, 600, 1, 6)
        .selectExpr(
          "id",
          s"CASE WHEN id % 3 = 0 THEN 0 WHEN id % 41 = 1 THEN NULL " +
            s"ELSE CAST(pmod(hash(id, $seed), 40) AS INT) END AS k",
          s"pmod(hash(id, $seed + 1), 150) AS s",
          s"pmod(hash(id, $seed + 1), 150) + pmod(hash(id, $seed + 2), 20) AS e"
        )
        .localCheckpoint()
        .createOrReplaceTempView(name)
    hotKey("l", 11)
    hotKey("r", 12)
    val conditions = Seq(
      "l.k = r.k AND l.s BETWEEN r.s - 3 AND r.s + 2" -> "SlidingWindowJoin",
      "l.k = r.k AND l.s <= r.e AND l.e >= r.s" -> "KeyGroupIEJoin"
    )
    // Per join shape: whether a side may be split (a full outer join's may not).
    val splits = Seq(true, true, true, false, true, true, true)
    withConf(
      "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes" -> "1000",
      "spark.sql.adaptive.skewJoin.skewedPartitionFactor" -> "2",
      "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "1000"
    ) {
      for ((shape, split) <- joinShapes.zip(splits); (condition, operator) <- conditions) {
        val query = shape(condition)
        assert(checkOperator(query, Some(operator)) > 0)
        val df = spark.sql(query)
        df.collect()
        val plan = df.queryExecution.executedPlan
        val joins = collect(plan) { case j: KeyClusteredJoinExec => j.skewSplit }
        assert(joins == Seq(split), s"skew split expected: $split in\n$plan")
      }
      // An aggregate on the key above the join needs its rows clustered by the key: with the
      // hot key's rows split over tasks, each key must still be counted once.
      for ((condition, operator) <- conditions)
        checkOperator(
          s"SELECT l.k, count(*) FROM l JOIN r ON $condition GROUP BY l.k",
          Some(operator)
        )
    }
  }
}

/** The spill tests of [[KeyedJoinSuite]] with local disk I/O encrypted. */
class EncryptedKeyedJoinSuite extends KeyedJoinSuite with EncryptedSpills

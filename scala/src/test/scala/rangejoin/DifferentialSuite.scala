package rangejoin

import rangejoin.config.RangeJoinConf

/**
 * The differential harness with fixed seeds: random queries over every join type and both
 * operators must return exactly what vanilla Spark returns. `make fuzz` runs the same suite with
 * more seeds (`RANGEJOIN_FUZZ_QUERIES`, `RANGEJOIN_FUZZ_FIRST_SEED`).
 */
class DifferentialSuite extends RangeJoinTestBase {

  private val queries = sys.env.get("RANGEJOIN_FUZZ_QUERIES").map(_.toInt).getOrElse(300)
  private val firstSeed = sys.env.get("RANGEJOIN_FUZZ_FIRST_SEED").map(_.toLong).getOrElse(1L)

  test(s"$queries random range-join queries match vanilla Spark") {
    val counts = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    var withRows = 0
    for (seed <- firstSeed until firstSeed + queries) {
      val q = DifferentialHarness.query(spark, seed)
      withClue(s"seed $seed (${q.dataType.simpleString}): ${q.sql}\n") {
        withConf(
          RangeJoinConf.BlockRows.key -> (1 + (seed % 23)).toString,
          RangeJoinConf.RangePartitionMinRows.key -> (if (seed % 2 == 0) "1" else "1000")
        ) {
          if (checkOperator(q.sql, Some(q.operator)) > 0) withRows += 1
        }
      }
      counts(q.operator) += 1
    }
    info(s"ran $queries queries, all accelerated: ${counts.toSeq.sorted.mkString(", ")}; " +
      s"$withRows returned rows")
    assert(withRows > queries / 2)
  }

  /** Seeds that once found a bug, each with what it was. They run in every CI build. */
  private val regressionSeeds = Seq(
    1L -> "full outer join: NULL-padded columns bound as non-nullable read 0 instead of NULL"
  )

  for ((seed, bug) <- regressionSeeds) {
    test(s"regression seed $seed: $bug") {
      val q = DifferentialHarness.query(spark, seed)
      withConf(RangeJoinConf.BlockRows.key -> (1 + (seed % 23)).toString) {
        assert(checkOperator(q.sql, Some(q.operator)) > 0)
      }
    }
  }
}

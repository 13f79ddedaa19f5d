package rangejoin.execution.keyed

import org.apache.spark.SparkException

import rangejoin.{EncryptedSpills, OwnSession, RangeJoinTestBase, Spills}
import rangejoin.config.RangeJoinConf

/**
 * KeyGroupIEJoinExec in a task whose execution memory is small: a hot key group larger than the
 * memory fails with the documented error (never an OutOfMemoryError), and groups that fit give
 * vanilla Spark's answer.
 *
 * The small memory is a setting of the SparkContext, so this suite runs a session of its own.
 */
class KeyGroupMemorySuite extends RangeJoinTestBase with OwnSession {

  /** The memory the unified memory manager splits: 60% of it (about 29 MiB) is for execution. */
  private val systemMemory = 48L << 20

  // One task: it may take all of the execution memory, and no more.
  override def master: String = "local[1]"

  override def sessionSettings: Seq[(String, String)] = Seq(
    "spark.testing.memory" -> systemMemory.toString,
    "spark.testing.reservedMemory" -> "0",
    "spark.sql.shuffle.partitions" -> "4",
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    RangeJoinConf.MinCandidatePairs.key -> "0",
    RangeJoinConf.KeyedMinCandidatePairs.key -> "0"
  )

  /** Intervals `[a, b]` of `rows` rows over `keys` key values (`k`, NULL for every 97th row). */
  private def intervals(name: String, rows: Long, keys: Int, seed: Int): Unit =
    spark
      .range(0, rows, 1, 2)
      .selectExpr(
        "id",
        s"CASE WHEN id % 97 = 5 THEN NULL ELSE CAST(pmod(hash(id, $seed), $keys) AS INT) END AS k",
        s"pmod(hash(id, $seed + 1), 10000) AS a",
        s"pmod(hash(id, $seed + 1), 10000) + pmod(hash(id, $seed + 2), 20) AS b"
      )
      .createOrReplaceTempView(name)

  private val blockRowsKey = RangeJoinConf.BlockRows.key

  private val overlap = "l.k = r.k AND l.a <= r.b AND l.b >= r.a"

  test("one hot key larger than the task's memory fails with the documented error, no OOM") {
    // 400,000 rows on each side, all with key 0. The join reads (k, a, b), 32 bytes a row: the
    // stream side's rows alone pack into 12.8 MB, its sorted copy as much again, and both sides'
    // blocks take 41.6 MB; a few hundred MB of heap at most, but more than the task's execution
    // memory.
    for ((name, seed) <- Seq("l" -> 1, "r" -> 2))
      spark
        .range(0, 400000, 1, 2)
        .selectExpr(
          "id",
          "CAST(id DIV 400000 AS INT) AS k", // 0, and not a constant the optimizer folds
          s"pmod(hash(id, $seed), 1000000) AS a",
          s"pmod(hash(id, $seed), 1000000) + 5 AS b"
        )
        .createOrReplaceTempView(name)
    val df = spark.sql(s"SELECT count(*) FROM l JOIN r ON $overlap")
    assert(rangeJoins(df.queryExecution.executedPlan) == Seq("KeyGroupIEJoin"))
    val e = intercept[SparkException](df.collect())
    val chain = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toSeq
    assert(!chain.exists(_.isInstanceOf[OutOfMemoryError]), chain.mkString("\n"))
    val refused = chain.map(t => String.valueOf(t.getMessage)).find(_.contains(blockRowsKey))
    assert(refused.isDefined, chain.mkString("\n"))
    // The group was reserved as its rows arrived: the refused reservation is a step of it (at
    // most one array the load makes), where reserving the loaded blocks at once would ask for
    // all 41.6 MB.
    val needed = "needs (\\d+) more bytes".r.findFirstMatchIn(refused.get).map(_.group(1).toLong)
    assert(needed.exists(_ < systemMemory * 6 / 10), refused.get)
  }

  test("with the same small memory, key groups that fit give vanilla Spark's answer", Spills) {
    intervals("l", rows = 20000, keys = 40, seed = 3)
    intervals("r", rows = 15000, keys = 40, seed = 4)
    withConf(RangeJoinConf.BlockRows.key -> "64") { // a group spans several blocks
      val rows = Seq("JOIN", "LEFT JOIN", "FULL JOIN").map { join =>
        checkOperator(s"SELECT l.id, r.id FROM l $join r ON $overlap", Some("KeyGroupIEJoin"))
      }
      assert(rows.forall(_ > 0))
    }
  }
}

/** The spill tests of [[KeyGroupMemorySuite]] with local disk I/O encrypted. */
class EncryptedKeyGroupMemorySuite extends KeyGroupMemorySuite with EncryptedSpills

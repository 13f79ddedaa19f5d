package rangejoin.faults

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.TaskContext
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.rangejoin.AsOfJoins
import org.apache.spark.sql.functions.{expr, lit}
import org.apache.spark.sql.internal.SQLConf

import rangejoin.config.RangeJoinConf

/**
 * One join query of the fault tests.
 *
 * @param name how the tests name it
 * @param operators the range-join operators it plans, top down
 * @param joinStage whether a stage, given the names of its RDDs, is the one whose tasks run the
 *                  join (and evaluate `pause`, see [[Pause]])
 * @param conf SQL settings it runs with
 * @param run the query over the tables of [[FaultQueries.createTables]]
 */
final case class FaultQuery(
    name: String,
    operators: Seq[String],
    joinStage: Seq[String] => Boolean,
    conf: Seq[(String, String)],
    run: SparkSession => DataFrame
) {
  override def toString: String = name
}

/**
 * The tables and queries of the fault tests: block joins (IEJoin, with its block-pair tasks or
 * its loads as the stage under test, and a piecewise merge join), a sliding window join, a
 * key-group IEJoin, a broadcast range join and two as-of joins (right input broadcast, and
 * hash-partitioned). Each join's condition calls `pause(left id, right id)`, a UDF that is always
 * true but, when registered so ([[FaultQueries.registerPause]]), sleeps in the first call of a
 * task's first attempt: the join's tasks then run long enough to be lost, cancelled or outrun by
 * a speculative copy. It takes a column of each side, so that it stays in the join's condition
 * and runs in the join's tasks; `slowkey(x)`, `x` after the same sleep, slows the loads of a
 * block join when it is the inequalities' key.
 */
object FaultQueries {

  /**
   * Events `l` (600 rows) and `r` (500): key `k` (40 values, a few NULL), values `a` and `b` in
   * [0, 200), intervals `[s, e]`; `points` (3000 values, repartitioned: the broadcast join
   * streams a shuffle's output) and 40 disjoint `ranges` `[lo, hi)`; as-of tables `trades` and
   * `quotes`.
   */
  def createTables(spark: SparkSession): Unit = {
    def events(name: String, rows: Int, partitions: Int, seed: Int): Unit =
      spark
        .range(0, rows, 1, partitions)
        .selectExpr(
          "id",
          s"CASE WHEN id % 37 = 3 THEN NULL ELSE CAST(pmod(hash(id, $seed), 40) AS INT) END AS k",
          s"pmod(hash(id, $seed + 1), 200) AS a",
          s"pmod(hash(id, $seed + 2), 200) AS b",
          s"pmod(hash(id, $seed + 3), 1000) AS s",
          s"pmod(hash(id, $seed + 3), 1000) + pmod(hash(id, $seed + 4), 30) AS e"
        )
        .createOrReplaceTempView(name)
    events("l", 600, 4, 1)
    events("r", 500, 3, 11)
    spark
      .range(0, 3000, 1, 2)
      .selectExpr("id", "IF(id % 97 = 0, NULL, (id * 7919) % 5000) AS v")
      .repartition(4)
      .createOrReplaceTempView("points")
    spark
      .range(0, 40)
      .selectExpr("id AS rid", "id * 125 AS lo", "IF(id = 3, NULL, id * 125 + 60) AS hi")
      .createOrReplaceTempView("ranges")
    spark
      .range(0, 3000, 1, 2)
      .selectExpr("id", "id % 5 AS k", "(id * 7919) % 5000 AS t")
      .repartition(4)
      .createOrReplaceTempView("trades")
    spark
      .range(0, 400, 1, 2)
      .selectExpr("id AS qid", "id % 5 AS qk", "(id * 4999) % 5000 AS qt")
      .createOrReplaceTempView("quotes")
  }

  private def rdds(names: String*)(stage: Seq[String]): Boolean = names.forall(stage.contains)

  private val broadcastOn = Seq(
    RangeJoinConf.BroadcastEnabled.key -> "true",
    RangeJoinConf.BroadcastMaxRowsRatio.key -> "1e9"
  )

  val ieJoin: FaultQuery = FaultQuery(
    "IEJoin",
    Seq("IEJoin"),
    rdds("BlockPairRDD"),
    Nil,
    _.sql(
      "SELECT l.id, r.id FROM l LEFT JOIN r ON l.a < r.a AND l.b > r.b + 150 AND pause(l.id, r.id)"
    )
  )

  /**
   * [[ieJoin]] with `slowkey` on its first keys and both inputs coalesced: the loads of the
   * inputs' blocks are the stages that sleep.
   */
  val ieJoinLoads: FaultQuery = FaultQuery(
    "IEJoin (loading its blocks)",
    Seq("IEJoin"),
    stage => stage.contains("rangejoin sorted blocks") && !stage.contains("BlockPairRDD"),
    Seq(RangeJoinConf.RangePartitionMinRows.key -> "1000000"),
    _.sql(
      "SELECT l.id, r.id FROM l LEFT JOIN r ON slowkey(l.a) < slowkey(r.a) AND l.b > r.b + 150"
    )
  )

  val piecewiseMergeJoin: FaultQuery = FaultQuery(
    "PiecewiseMergeJoin",
    Seq("PiecewiseMergeJoin"),
    rdds("BlockPairRDD"),
    Nil,
    _.sql("SELECT l.id, r.id FROM l JOIN r ON l.a < r.a - 180 AND pause(l.id, r.id)")
  )

  val slidingWindowJoin: FaultQuery = FaultQuery(
    "SlidingWindowJoin",
    Seq("SlidingWindowJoin"),
    rdds("ZippedPartitionsRDD2"),
    Nil,
    _.sql(
      "SELECT l.id, r.id FROM l FULL JOIN r " +
        "ON l.k = r.k AND l.a BETWEEN r.a - 2 AND r.a + 2 AND pause(l.id, r.id)"
    )
  )

  val keyGroupIEJoin: FaultQuery = FaultQuery(
    "KeyGroupIEJoin",
    Seq("KeyGroupIEJoin"),
    rdds("ZippedPartitionsRDD2"),
    Nil,
    _.sql(
      "SELECT l.id, r.id FROM l LEFT JOIN r " +
        "ON l.k = r.k AND l.s <= r.e AND l.e >= r.s AND pause(l.id, r.id)"
    )
  )

  val broadcastRangeJoin: FaultQuery = FaultQuery(
    "BroadcastRangeJoin",
    Seq("BroadcastRangeJoin"),
    rdds("ShuffledRowRDD"),
    broadcastOn,
    _.sql(
      "SELECT p.id, r.rid FROM points p LEFT JOIN ranges r " +
        "ON p.v >= r.lo AND p.v < r.hi AND pause(p.id, r.rid)"
    )
  )

  private def asOf(spark: SparkSession): DataFrame = {
    val (t, q) = (spark.table("trades"), spark.table("quotes"))
    AsOfJoins.joinAsOf(
      t,
      q,
      t("t"),
      q("qt"),
      t("k") === q("qk") && expr("pause(id, qid)"),
      "left",
      lit(200L),
      true,
      "backward"
    )
  }

  val asOfJoinBroadcast: FaultQuery = FaultQuery(
    "AsOfJoin (right input broadcast)",
    Seq("AsOfJoin"),
    rdds("ShuffledRowRDD"),
    Nil,
    asOf
  )

  val asOfJoinShuffled: FaultQuery = FaultQuery(
    "AsOfJoin (hash-partitioned)",
    Seq("AsOfJoin"),
    rdds("ZippedPartitionsRDD2"),
    Seq(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1"),
    asOf
  )

  /** The queries of each operator family. */
  val all: Seq[FaultQuery] = Seq(
    ieJoin,
    ieJoinLoads,
    piecewiseMergeJoin,
    slidingWindowJoin,
    keyGroupIEJoin,
    broadcastRangeJoin,
    asOfJoinBroadcast,
    asOfJoinShuffled
  )

  /**
   * Registers `pause(a, b)` (true) and `slowkey(x)` (`x`) in `spark`: each sleeps `millis` in its
   * first call in the first attempt of a task of partition `partition` (any partition when
   * negative).
   */
  def registerPause(spark: SparkSession, millis: Long, partition: Int = -1): Unit = {
    spark.udf.register("pause", (_: Long, _: Long) => Pause(millis, partition))
    spark.udf.register("slowkey", (x: Long) => { Pause(millis, partition); x })
  }
}

/** The sleep of the `pause` UDF, once per task attempt, cut short when the task is killed. */
object Pause {
  private val paused = ConcurrentHashMap.newKeySet[Long]()

  def apply(millis: Long, partition: Int): Boolean = {
    val context = TaskContext.get()
    if (
      millis > 0 && context != null && context.attemptNumber() == 0 &&
      (partition < 0 || context.partitionId() == partition) &&
      paused.add(context.taskAttemptId())
    ) {
      val end = System.nanoTime() + millis * 1000000L
      while (System.nanoTime() < end && !context.isInterrupted()) Thread.sleep(10)
    }
    true
  }
}

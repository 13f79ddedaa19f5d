package rangejoin

import org.apache.spark.sql.{DataFrame, Encoders}
import org.apache.spark.sql.streaming.Trigger
import org.apache.spark.sql.execution.SparkPlan

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{BroadcastRangeJoinExec, JoinMetric}
import rangejoin.execution.broadcast.StableBroadcastExchangeExec
import rangejoin.shims.StreamingClasses._

/**
 * Structured Streaming with the extension on: a stream-static join with a range condition runs
 * on the plugin's operators in every micro-batch and answers as the same join over all the
 * stream's rows in batch with the extension off; a stream-stream join stays Spark's stateful
 * join and answers as with the extension off.
 */
class StreamingSuite extends RangeJoinTestBase {

  /** Ranges `[lo, hi)` of width 15 every 10 from 0: each value is in one or two of them. */
  private def ranges(rows: Int): DataFrame =
    spark.range(0, rows).selectExpr("id AS sid", "id * 10 AS lo", "id * 10 + 15 AS hi")

  private val batches: Seq[Seq[Long]] = Seq(
    Seq(5L, 5L, 17L, 3999L, 4000L, -1L),
    Seq.tabulate(300)(i => (i * 37L) % 5200),
    Nil,
    Seq(12L, 14L, 15L, 4990L, 5100L)
  )

  /**
   * `join` over a memory stream of `batches` (column `v`), one micro-batch each, into a memory
   * sink, calling `afterBatch` with each micro-batch's executed plan; its rows and the last
   * micro-batch's executed plan.
   */
  private def runStream(
      join: DataFrame => DataFrame,
      batches: Seq[Seq[Long]] = batches,
      afterBatch: SparkPlan => Unit = _ => ()
  ): (Seq[String], SparkPlan) = {
    val input = MemoryStream[Long](Encoders.scalaLong, spark.sqlContext)
    val query = join(input.toDF().withColumnRenamed("value", "v")).writeStream
      .format("memory")
      .queryName("stream_out")
      .outputMode("append")
      .start()
    try {
      def plan = query.asInstanceOf[StreamingQueryWrapper].streamingQuery.lastExecution
      for (batch <- batches) {
        input.addData(batch)
        query.processAllAvailable()
        afterBatch(plan.executedPlan)
      }
      (multiset(spark.table("stream_out")), plan.executedPlan)
    } finally query.stop()
  }

  /** Checks `join` streamed against the same join in batch with the extension off. */
  private def checkStreamStatic(join: DataFrame => DataFrame, operator: String): Unit = {
    val (rows, plan) = runStream(join)
    assert(rangeJoins(plan) == Seq(operator), plan)
    assert(rows == batchAnswer(join))
    assert(rows.nonEmpty)
  }

  /** `join` over all the stream's rows in one batch, with the extension off. */
  private def batchAnswer(join: DataFrame => DataFrame): Seq[String] =
    withConf(RangeJoinConf.Enabled.key -> "false") {
      multiset(join(spark.createDataset(batches.flatten)(Encoders.scalaLong).toDF("v")))
    }

  private def rangeJoin(static: DataFrame, condition: String, how: String)(stream: DataFrame) =
    stream.join(static, org.apache.spark.sql.functions.expr(condition), how)

  test("stream-static joins with a small static side broadcast it as a sorted index", EveryLine) {
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true") {
      for (how <- Seq("inner", "left_outer")) {
        checkStreamStatic(rangeJoin(ranges(600), "v >= lo AND v < hi", how), "BroadcastRangeJoin")
      }
    }
  }

  test(
    "a cached static side is broadcast and indexed once, then reused by every micro-batch",
    EveryLine
  ) {

    /** The indexes each micro-batch built (every batch has rows, so each one runs). */
    def indexBuilds(static: DataFrame): Seq[Long] = {
      val builds = Seq.newBuilder[Long]
      val join = rangeJoin(static, "v >= lo AND v < hi", "inner") _
      val (rows, last) = runStream(
        join,
        batches.filter(_.nonEmpty),
        plan =>
          builds ++= collect(plan) { case j: BroadcastRangeJoinExec =>
            j.metrics(JoinMetric.IndexBuilds.key).value
          }
      )
      assert(rows == batchAnswer(join) && rows.nonEmpty)
      assert(rangeJoins(last) == Seq("BroadcastRangeJoin"), last)
      val kept = collect(last) { case e: StableBroadcastExchangeExec => e }
      assert(kept.size == (if (static.storageLevel.useMemory) 1 else 0), last)
      builds.result()
    }
    withConf(RangeJoinConf.BroadcastEnabled.key -> "true") {
      val cached = ranges(600).cache()
      try {
        val reused = indexBuilds(cached)
        assert(reused == Seq(1L, 0L, 0L), s"indexes built per micro-batch: $reused")
      } finally cached.unpersist()
      // Read again in every micro-batch, as Spark reads it, and so indexed again; once per
      // executor, not once per task.
      val rebuilt = indexBuilds(ranges(600))
      assert(rebuilt == Seq(1L, 1L, 1L), s"indexes built per micro-batch: $rebuilt")
    }
  }

  test(
    "stream-static joins with a large static side run as IEJoin in each micro-batch",
    EveryLine
  ) {
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      for (how <- Seq("inner", "left_outer")) {
        checkStreamStatic(rangeJoin(ranges(600), "v >= lo AND v < hi", how), "IEJoin")
      }
      // A condition written as a difference, rewritten into candidate inequalities.
      checkStreamStatic(rangeJoin(ranges(600), "abs(v - lo) <= 3", "inner"), "IEJoin")
    }
  }

  /**
   * `join` of a stream over the whole of it, run with trigger available-now into a memory sink:
   * its rows, the input rows its progress reports counted, and the last micro-batch's plan.
   */
  private def runAvailableNow(stream: DataFrame, join: DataFrame => DataFrame) = {
    val query = join(stream).writeStream
      .format("memory")
      .queryName("available_now")
      .trigger(Trigger.AvailableNow())
      .start()
    try {
      query.awaitTermination()
      val plan = query.asInstanceOf[StreamingQueryWrapper].streamingQuery.lastExecution
      val inputRows = query.recentProgress.map(_.numInputRows).sum
      (multiset(spark.table("available_now")), inputRows, plan.executedPlan)
    } finally query.stop()
  }

  test(
    "a file source read once per micro-batch: answers and input rows as without the plugin",
    EveryLine
  ) {
    val dir = java.nio.file.Files.createTempDirectory("rangejoin-stream").toString
    val values = spark.range(0, 3000).selectExpr("(id * 7919) % 5200 AS v")
    values.repartition(3).write.mode("overwrite").parquet(dir)
    def stream = spark.readStream.schema(values.schema).parquet(dir)
    val static = ranges(600)
    for ((how, operator) <- Seq("inner" -> "IEJoin", "left_outer" -> "IEJoin")) {
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        val join = rangeJoin(static, "v >= lo AND v < hi", how) _
        val (rows, inputRows, plan) = runAvailableNow(stream, join)
        assert(rangeJoins(plan) == Seq(operator), plan)
        assert(inputRows == 3000, s"$how: $inputRows input rows reported for 3000")
        val expected = withConf(RangeJoinConf.Enabled.key -> "false") {
          multiset(join(spark.read.parquet(dir)))
        }
        assert(rows == expected)
      }
    }
  }

  test("the rate source read once per micro-batch: input rows as without the plugin", EveryLine) {
    def stream = spark.readStream
      .format("rate-micro-batch")
      .option("rowsPerBatch", "2000")
      .option("numPartitions", "2")
      .load()
      .selectExpr("value % 5200 AS v")
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      val join = rangeJoin(ranges(600), "v >= lo AND v < hi", "left_outer") _
      val (rows, inputRows, plan) = runAvailableNow(stream, join)
      assert(rangeJoins(plan) == Seq("IEJoin"), plan)
      val vanilla = withConf(RangeJoinConf.Enabled.key -> "false")(runAvailableNow(stream, join))
      assert(inputRows == vanilla._2 && inputRows > 0, s"$inputRows against ${vanilla._2}")
      assert(rows == vanilla._1 && rows.nonEmpty)
    }
  }

  test("a stream-stream join with watermarks stays Spark's and answers as without the plugin") {
    // A window, all columns kept; a point in an interval with an open end (a keyed interval join
    // in batch), two columns kept by a projection that the join must not take over.
    val joins = Seq(
      "ak = bk AND at BETWEEN bt - INTERVAL 3 SECONDS AND bt + INTERVAL 3 SECONDS" -> Nil,
      "ak = bk AND at >= bt AND (at < be OR be IS NULL)" -> Seq("av", "bv")
    )
    def streamStream(condition: String, kept: Seq[String]): (Seq[String], SparkPlan) = {
      val (a, b) = (
        MemoryStream[Long](Encoders.scalaLong, spark.sqlContext),
        MemoryStream[Long](Encoders.scalaLong, spark.sqlContext)
      )
      def events(s: MemoryStream[Long], p: String) = s.toDF().selectExpr(
        s"value % 5 AS ${p}k",
        s"timestamp_seconds(value) AS ${p}t",
        s"IF(value % 7 = 0, NULL, timestamp_seconds(value + 4)) AS ${p}e",
        s"value AS ${p}v"
      ).withWatermark(s"${p}t", "10 seconds")
      val both = events(a, "a").join(events(b, "b"), org.apache.spark.sql.functions.expr(condition))
      val joined = if (kept.isEmpty) both else both.select(kept.head, kept.tail: _*)
      val query = joined.writeStream.format("memory").queryName("stream_stream").start()
      try {
        for (i <- 0 until 4) {
          a.addData((i * 40L) until (i * 40L + 40))
          b.addData((i * 40L + 2) until (i * 40L + 42) by 3)
          query.processAllAvailable()
        }
        val plan = query.asInstanceOf[StreamingQueryWrapper].streamingQuery.lastExecution
        (multiset(spark.table("stream_stream")), plan.executedPlan)
      } finally query.stop()
    }
    for ((condition, kept) <- joins) {
      val (rows, plan) = streamStream(condition, kept)
      assert(rangeJoins(plan).isEmpty, plan)
      assert(collect(plan) { case j: StreamingSymmetricHashJoinExec => j }.size == 1, plan)
      val vanilla =
        withConf(RangeJoinConf.Enabled.key -> "false")(streamStream(condition, kept)._1)
      assert(rows == vanilla)
      assert(rows.nonEmpty)
    }
  }
}

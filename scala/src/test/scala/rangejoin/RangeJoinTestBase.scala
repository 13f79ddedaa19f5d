package rangejoin

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.{InputAdapter, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.funsuite.AnyFunSuite

import rangejoin.config.RangeJoinConf
import rangejoin.execution.{
  AsOfJoinExec,
  BlockRangeJoinExec,
  BoundFilterJoinExec,
  BroadcastRangeJoinExec,
  CountMatchesExec,
  IEJoinExec,
  KeyClusteredJoinExec,
  KeyedIntervalJoinExec
}

/**
 * A local session with the extension ([[TestSessions]]: a task that leaks execution memory
 * fails), and assertions that compare an accelerated query with the same query planned by
 * vanilla Spark (`spark.rangejoin.enabled=false`).
 *
 * Small `blockRows`, shuffle partitions and `rangePartitionMinRows` make even small test tables
 * span several blocks and range partitions, so block-pair pruning, multi-pair tasks and both
 * ways of preparing an input (range-partitioned, coalesced) are exercised.
 */
trait RangeJoinTestBase extends AnyFunSuite with AdaptiveSparkPlanHelper {

  /** The master of the suite's session. */
  def master: String = "local[2]"

  /**
   * The settings of the suite's session, after [[TestSessions.base]]. A suite whose session needs
   * settings of its SparkContext that others lack runs its own ([[OwnSession]]).
   */
  def sessionSettings: Seq[(String, String)] =
    Seq(
      "spark.sql.shuffle.partitions" -> "8",
      // Spark 4's default, set so that Spark 3.5 (ANSI off by default) plans the same operators:
      // whether `r.s + 90` can wrap decides between the window and the key-group join. Tests of
      // ANSI off set it themselves.
      "spark.sql.ansi.enabled" -> "true",
      // Parquet scans give batches of a few rows, so that a test table spans several.
      "spark.sql.parquet.columnarReaderBatchSize" -> "8",
      RangeJoinConf.BlockRows.key -> "16",
      RangeJoinConf.RangePartitionMinRows.key -> "40",
      // Two cores would coalesce every input that fits a task; range partitioning is tested.
      RangeJoinConf.CoalesceMaxParallelism.key -> "1",
      RangeJoinConf.MinCandidatePairs.key -> "0", // test tables are tiny
      RangeJoinConf.MinSmallSideRows.key -> "0",
      // Every test table is small enough to broadcast; the block joins are tested unless a test
      // turns the broadcast join on (BroadcastRangeJoinSuite).
      RangeJoinConf.BroadcastEnabled.key -> "false"
    )

  lazy val spark: SparkSession =
    TestSessions.getOrCreate(getClass.getSimpleName, master, sessionSettings)

  /** Runs `body` with the given SQL confs set, restoring the previous values afterwards. */
  def withConf[T](pairs: (String, String)*)(body: => T): T =
    TestSessions.withConf(spark, pairs: _*)(body)

  /**
   * A query of tables `l` and `r` joined on a condition, in each join type: inner, left, right
   * and full outer, left semi and anti (JOIN syntax, the first six), and an existence join (an
   * EXISTS within a disjunction).
   */
  val joinShapes: Seq[String => String] = Seq(
    c => s"SELECT l.id, r.id FROM l JOIN r ON $c",
    c => s"SELECT l.id, r.id FROM l LEFT JOIN r ON $c",
    c => s"SELECT l.id, r.id FROM l RIGHT JOIN r ON $c",
    c => s"SELECT l.id, r.id FROM l FULL JOIN r ON $c",
    c => s"SELECT l.id FROM l LEFT SEMI JOIN r ON $c",
    c => s"SELECT l.id FROM l LEFT ANTI JOIN r ON $c",
    c => s"SELECT l.id FROM l WHERE l.id % 3 = 0 OR EXISTS (SELECT 1 FROM r WHERE $c)"
  )

  def ieJoins(plan: SparkPlan): Seq[IEJoinExec] = collect(plan) { case j: IEJoinExec => j }

  /**
   * Runs `body` with whole-stage codegen on or off; on, a stage whose code does not compile fails
   * the query instead of falling back to the operators' `doExecute`.
   */
  def wholeStageCodegen[T](on: Boolean)(body: => T): T =
    withConf(
      "spark.sql.codegen.wholeStage" -> on.toString,
      "spark.sql.codegen.fallback" -> (!on).toString
    )(body)

  /** The operators each whole-stage codegen stage of `plan` generates code for. */
  def generatedStages(plan: SparkPlan): Seq[Seq[SparkPlan]] = {
    def inStage(p: SparkPlan): Seq[SparkPlan] = p match {
      case _: InputAdapter => Nil
      case other => other +: other.children.flatMap(inStage)
    }
    collect(plan) { case s: WholeStageCodegenExec => inStage(s.child) }
  }

  /**
   * The range-join operators in `plan`, by node name ("IEJoin", "SlidingWindowJoin", ...), and
   * the operator that counts a join's pairs without them ("CountMatches").
   */
  def rangeJoins(plan: SparkPlan): Seq[String] = collect(plan) {
    case j: BlockRangeJoinExec => j.nodeName
    case j: BoundFilterJoinExec => j.nodeName
    case j: BroadcastRangeJoinExec => j.nodeName
    case j: KeyClusteredJoinExec => j.nodeName
    case j: AsOfJoinExec => j.nodeName
    case j: KeyedIntervalJoinExec => j.nodeName
    case c: CountMatchesExec => c.nodeName
  }

  /** The rows of `df` as a sorted list of their string forms: a multiset, exact to the bit. */
  def multiset(df: DataFrame): Seq[String] = multisetOf(df.collect().toSeq)

  def multisetOf(rows: Seq[Row]): Seq[String] = rows.map(rowString).sorted

  private def rowString(row: Row): String = row.toSeq
    .map {
      case d: Double => java.lang.Double.doubleToRawLongBits(d).toString + "d" // keeps -0.0
      case f: Float => java.lang.Float.floatToRawIntBits(f).toString + "f"
      case v => String.valueOf(v)
    }
    .mkString("[", ",", "]")

  /**
   * Asserts that `query` plans an IEJoinExec exactly when `accelerated`, and returns the same
   * multiset of rows as with the extension disabled. Returns the number of rows.
   */
  def checkAgainstVanilla(query: String, accelerated: Boolean = true): Int =
    checkOperator(query, if (accelerated) Some("IEJoin") else None)

  /**
   * Asserts that `query` plans the range-join operator `operator` (None: no range-join operator
   * at all), and returns the same multiset of rows as with the extension disabled. Returns the
   * number of rows.
   */
  def checkOperator(query: String, operator: Option[String]): Int =
    checkOperatorPlan(query, operator)._1

  /**
   * [[checkOperator]], also returning the accelerated query's executed plan, taken after the
   * query ran (an adaptive plan is then final, with its whole-stage codegen stages).
   */
  def checkOperatorPlan(query: String, operator: Option[String]): (Int, SparkPlan) =
    checkOperatorsPlan(query, operator.toSeq)

  /**
   * [[checkOperatorPlan]] for a query with several joins: the plan's range-join operators are
   * `operators`, in the order [[rangeJoins]] finds them (top down).
   */
  def checkOperatorsPlan(query: String, operators: Seq[String]): (Int, SparkPlan) = {
    val df = spark.sql(query)
    val actual = multiset(df)
    val plan = df.queryExecution.executedPlan
    assert(rangeJoins(plan) == operators, s"expected operators $operators in\n$plan")
    val expected = withConf(RangeJoinConf.Enabled.key -> "false") {
      val vanilla = spark.sql(query)
      val rows = multiset(vanilla)
      assert(rangeJoins(vanilla.queryExecution.executedPlan).isEmpty)
      rows
    }
    if (actual != expected) {
      val missing = expected.diff(actual).take(10)
      val extra = actual.diff(expected).take(10)
      fail(
        s"""Answers differ for: $query
           |vanilla rows: ${expected.size}, accelerated rows: ${actual.size}
           |missing (first 10): ${missing.mkString(" ")}
           |extra (first 10): ${extra.mkString(" ")}
           |plan:
           |$plan""".stripMargin
      )
    }
    (actual.size, plan)
  }
}

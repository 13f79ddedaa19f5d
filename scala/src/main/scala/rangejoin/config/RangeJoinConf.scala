package rangejoin.config

import scala.util.Try

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf

/**
 * One typed configuration key: its name, documentation, default and parser.
 *
 * Keys are read from the session's SQL conf each time a query is planned, so
 * `spark.conf.set(key, value)` at runtime takes effect for the next query. A value that does not
 * parse fails with an error that names the key and the allowed values. A key that was renamed
 * keeps its old names as `deprecatedKeys`: they are read when the key itself is unset, with a
 * warning that names the new key.
 */
final case class ConfEntry[T](
    key: String,
    doc: String,
    default: T,
    allowed: String,
    parse: String => Option[T],
    deprecatedKeys: Seq[String] = Nil
) {

  /** This entry's value in `conf`, or its default when unset. */
  def get(conf: SQLConf): T = raw(conf) match {
    case None => default
    case Some((name, value)) => parsed(name, value)
  }

  /** `value`, set under `name` (this key or a deprecated one), parsed; fails if it does not. */
  def parsed(name: String, value: String): T =
    parse(value.trim).getOrElse(
      throw new IllegalArgumentException(
        s"Invalid value '$value' for configuration $name: allowed values are $allowed."
      )
    )

  /** The key that is set (this one first, then the deprecated ones) and its value. */
  private def raw(conf: SQLConf): Option[(String, String)] =
    (key +: deprecatedKeys).iterator
      .map(k => k -> conf.getConfString(k, null))
      .collectFirst { case (k, v) if v != null => k -> v }
      .map { case (k, v) =>
        if (k != key) RangeJoinConf.warnDeprecated(k, key)
        k -> v
      }
}

/**
 * Every configuration key of spark-rangejoin. Each entry's documentation is what the
 * configuration reference (docs/configuration.md) shows for the key.
 */
object RangeJoinConf extends Logging {
  private def booleanEntry(key: String, doc: String, default: Boolean): ConfEntry[Boolean] =
    ConfEntry[Boolean](
      key,
      doc,
      default,
      "true, false",
      _.toLowerCase match {
        case "true" => Some(true)
        case "false" => Some(false)
        case _ => None
      }
    )

  private def positiveIntEntry(key: String, doc: String, default: Int): ConfEntry[Int] =
    ConfEntry[Int](
      key,
      doc,
      default,
      "an integer from 1 to 2147483647",
      s => Try(s.toInt).toOption.filter(_ > 0)
    )

  private def nonNegativeLongEntry(key: String, doc: String, default: Long): ConfEntry[Long] =
    ConfEntry[Long](
      key,
      doc,
      default,
      "an integer from 0 to 9223372036854775807",
      s => Try(s.toLong).toOption.filter(_ >= 0)
    )

  private def positiveDoubleEntry(key: String, doc: String, default: Double): ConfEntry[Double] =
    ConfEntry[Double](
      key,
      doc,
      default,
      "a number greater than 0",
      s => Try(s.toDouble).toOption.filter(v => v > 0 && !v.isInfinite)
    )

  val Enabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.enabled",
    "Master switch. When false, every join is planned by Spark as if the extension were absent.",
    default = true
  )

  val IEJoinEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.iejoin.enabled",
    "Plan joins with two or more inequality conditions as IEJoinExec (with equality keys: " +
      "KeyGroupIEJoinExec).",
    default = true
  )

  val PiecewiseMergeJoinEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.piecewiseMergeJoin.enabled",
    "Plan joins with exactly one inequality condition as PiecewiseMergeJoinExec (left semi, " +
      "left anti and existence joins with no other condition: BoundFilterJoinExec).",
    default = true
  ).copy(deprecatedKeys = Seq("spark.rangejoin.pwmj.enabled"))

  val SlidingWindowJoinEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.slidingWindowJoin.enabled",
    "Plan joins with equality keys plus a window on one column pair (a lower and an upper " +
      "bound, BETWEEN too) as SlidingWindowJoinExec. When false they take " +
      "KeyGroupIEJoinExec, if spark.rangejoin.iejoin.enabled.",
    default = true
  ).copy(deprecatedKeys = Seq("spark.rangejoin.swhj.enabled"))

  val BroadcastEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.broadcast.enabled",
    "Plan joins without equality keys as BroadcastRangeJoinExec when an input that the join " +
      "type does not preserve is below spark.sql.autoBroadcastJoinThreshold and much the " +
      "smaller (spark.rangejoin.broadcast.maxRowsRatio), or has a BROADCAST hint: that input " +
      "is broadcast, each executor indexes it once on the first one or two inequalities, and " +
      "the other input probes the index where it is, with no shuffle and no sort.",
    default = true
  )

  val BroadcastMaxRowsRatio: ConfEntry[Double] = positiveDoubleEntry(
    "spark.rangejoin.broadcast.maxRowsRatio",
    "Without a BROADCAST hint, an input below spark.sql.autoBroadcastJoinThreshold is broadcast " +
      "only if its estimated rows are at most this times the other input's (or at most " +
      "spark.rangejoin.broadcast.ratioAboveRows, or it reads only cached data, or the other " +
      "input is a stream); otherwise both inputs are sorted in parallel tasks. A ratio of " +
      "estimated row counts. Broadcasting sorts the whole input on the driver, in one thread, " +
      "where the block join sorts both inputs in parallel tasks, so it pays only when the " +
      "broadcast input is much the smaller. The default is a design choice that no benchmark " +
      "target varies yet (see docs/design/planning.md).",
    default = 0.5
  )

  val BroadcastRatioAboveRows: ConfEntry[Long] = nonNegativeLongEntry(
    "spark.rangejoin.broadcast.ratioAboveRows",
    "spark.rangejoin.broadcast.maxRowsRatio applies only to an input estimated above this " +
      "many rows; a smaller one is broadcast whenever Spark would broadcast it. In rows. On " +
      "inputs this small the choice between broadcasting and the block join costs little " +
      "either way, so the ratio is not checked. The default comes from the broadcast-or-block " +
      "benchmark of make bench-defaults (see docs/benchmarks/defaults.md).",
    default = 16384L
  )

  val KeyedIntervalJoinEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.keyedIntervalJoin.enabled",
    "Plan joins with equality keys plus a point of one input between two columns of the " +
      "other, one of them an open end (f.k = d.k AND f.ts >= d.valid_from AND (f.ts < " +
      "d.valid_to OR d.valid_to IS NULL), the type-2 slowly changing dimension lookup) as " +
      "KeyedIntervalJoinExec: the intervals indexed by key and start, each point looking up " +
      "its key's intervals by binary search. When false such joins are left to Spark.",
    default = true
  )

  val KeyedIntervalBroadcastThreshold: ConfEntry[Long] = ConfEntry[Long](
    "spark.rangejoin.keyedIntervalJoin.broadcastThreshold",
    "KeyedIntervalJoinExec broadcasts the interval input, indexed once per executor, when Spark " +
      "estimates it at most this size, and the point input is then neither shuffled nor " +
      "sorted; a larger interval input is hash-partitioned on the keys with the point input. " +
      "In bytes, with an optional unit (32m, 1g); -1 never broadcasts. Above Spark's " +
      "spark.sql.autoBroadcastJoinThreshold because the index holds each interval once, where a " +
      "broadcast hash join would pair every point with every interval of its key.",
    32L << 20,
    "a size in bytes such as 33554432, 32m or 1g, or -1",
    s =>
      if (s == "-1") Some(-1L)
      else Try(org.apache.spark.network.util.JavaUtils.byteStringAsBytes(s)).toOption
  )

  val AsOfJoinEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.asOfJoin.enabled",
    "Plan Spark's as-of joins (DataFrame joinAsOf, pandas-on-Spark merge_asof) as AsOfJoinExec, " +
      "a nearest-match search per key, instead of Spark's rewrite into a join of every " +
      "distinct left as-of value with every right row. Read when the DataFrame is analyzed.",
    default = true
  )

  val PairFreeAggregates: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.pairFreeAggregates.enabled",
    "Answer count(*) above an inner join whose condition is a point in a range (lower op p op " +
      "upper, or one bound), grouped by one input's columns or not at all, as CountMatchesExec: " +
      "the rows of one input counted per row of the other from sorted keys, without forming " +
      "the pairs. One input must be estimated within spark.sql.autoBroadcastJoinThreshold; it " +
      "is indexed. A join that spark.rangejoin.minCandidatePairs or " +
      "spark.rangejoin.minSmallSideRows leaves to Spark is not rewritten either.",
    default = true
  )

  val ExplainDeclines: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.explainDeclines.enabled",
    "Log at WARN, for every join whose condition compares with <, <=, > or >= that the plugin " +
      "leaves to Spark, the rung of the decision ladder that decided and why, in words (at " +
      "DEBUG when false). From Python, rangejoin.explain_joins(df) gives the same reasons.",
    default = false
  )

  val BlockRows: ConfEntry[Int] = positiveIntEntry(
    "spark.rangejoin.blockRows",
    "Most rows in one sorted block: every partition of a join input is sorted on its first " +
      "inequality key and cut into blocks of at most blockRows rows. In rows. Smaller blocks " +
      "prune better; larger ones cost fewer block pairs. A block also bounds the memory of a " +
      "block-pair task's local join.",
    default = 32768
  )

  val SortSpillRows: ConfEntry[Int] = positiveIntEntry(
    "spark.rangejoin.sortSpillRows",
    "Most rows a task sorts in memory while cutting a partition of a join input into sorted " +
      "blocks; past it the sort spills a run to local disk. In rows. Spark's memory manager " +
      "makes the sort spill earlier whenever execution memory runs short, so the default, in " +
      "effect no row limit, spills only then, as Spark's own sorts do.",
    default = Int.MaxValue
  )

  val ColumnBatchesEnabled: ConfEntry[Boolean] = booleanEntry(
    "spark.rangejoin.columnBatches.enabled",
    "Cut an input that is not shuffled into sorted blocks straight from its scan's column " +
      "batches when it is a columnar scan (as Spark reads Parquet and ORC files with " +
      "whole-stage codegen on), at most under an IS NOT NULL filter, whose join keys are its " +
      "columns and whose every column has a fixed width (numbers, booleans, dates, timestamps, " +
      "intervals): the rows are written from the batches' columns instead of converted one at " +
      "a time. When false, or for other inputs, blocks are cut from the input's rows.",
    default = true
  )

  val RangePartitionMinRows: ConfEntry[Int] = positiveIntEntry(
    "spark.rangejoin.rangePartitionMinRows",
    "A side estimated at fewer rows is not shuffled: its partitions are coalesced to at most " +
      "the default parallelism and cut into sorted blocks as they are. In rows. Larger sides are " +
      "range-partitioned on their first inequality key into max(default parallelism, " +
      "estimated rows / blockRows) partitions, at most spark.sql.shuffle.partitions, unless " +
      "spark.rangejoin.coalesce.maxParallelism and spark.rangejoin.coalesce.maxMemoryFraction " +
      "let them be coalesced too.",
    default = 524288
  )

  val CoalesceMaxParallelism: ConfEntry[Int] = positiveIntEntry(
    "spark.rangejoin.coalesce.maxParallelism",
    "A side of rangePartitionMinRows rows or more is coalesced like a small one, not " +
      "range-partitioned, when the default parallelism is at most this and the side fits " +
      "spark.rangejoin.coalesce.maxMemoryFraction. A number of tasks (Spark's default " +
      "parallelism). Range partitioning reads the side twice (a sampling job, then the " +
      "shuffle) and writes it to shuffle files; coalesced, each block meets blocks of every " +
      "partition of the other side, so the join's work grows with the parallelism while the " +
      "cost of the shuffle does not shrink; on few cores the growth is small, on many the " +
      "shuffle pays. The default is a design choice that no benchmark target varies yet.",
    default = 16
  )

  val CoalesceMaxMemoryFraction: ConfEntry[Double] = positiveDoubleEntry(
    "spark.rangejoin.coalesce.maxMemoryFraction",
    "A side is coalesced instead of range-partitioned (see " +
      "spark.rangejoin.coalesce.maxParallelism) only if each task's share of it, by Spark's " +
      "size estimate, is at most this fraction of a task's share of an executor's execution " +
      "and storage memory: the estimate is of compressed files, and one task loads the share. " +
      "A fraction of that memory. The bound is relative to memory because the same share " +
      "that loads in a large executor fails its load in a small one; the default keeps the " +
      "20M x 20M band joins of make bench-scale range-partitioned in a 2 GiB driver (see " +
      "docs/benchmarks/scale.md).",
    default = 0.0625
  )

  val MinCandidatePairs: ConfEntry[Long] = nonNegativeLongEntry(
    "spark.rangejoin.minCandidatePairs",
    "A join without equality keys, of any type, whose estimated left rows x right rows is at " +
      "most this is left to Spark: its broadcast nested loop join compares that few pairs " +
      "faster than a range join pays its fixed cost. A number of candidate pairs. The default " +
      "is the crossover on point-in-period joins measured by make bench-defaults (see " +
      "docs/benchmarks/defaults.md). 0 accelerates every join but one with an input that " +
      "Spark estimates at under one row.",
    default = 30000000L
  )

  val MinSmallSideRows: ConfEntry[Long] = nonNegativeLongEntry(
    "spark.rangejoin.minSmallSideRows",
    "A join without equality keys, of any type, whose smaller input is estimated at most this " +
      "many rows is left to Spark, however large the other input: its broadcast nested loop " +
      "join compares each row with that few rows faster than the plugin probes an index or " +
      "sorts. In rows. The default is the tiny-side crossover measured by make " +
      "bench-defaults (see docs/benchmarks/defaults.md). 0 accelerates every join but one " +
      "with an input that Spark estimates at under one row.",
    default = 100L
  )

  val KeyedMinCandidatePairs: ConfEntry[Long] = nonNegativeLongEntry(
    "spark.rangejoin.keyed.minCandidatePairs",
    "A join with equality keys, of any type, whose estimated left rows x right rows / " +
      "distinct keys is at most this is left to Spark's hash and sort-merge joins, which are " +
      "faster on key groups that small. A number of candidate pairs that share a key. Where " +
      "the crossover lies on window joins is measured by make bench-defaults (see " +
      "docs/benchmarks/defaults.md). Applies only where Spark's statistics have distinct counts " +
      "for the keys (ANALYZE TABLE ... FOR COLUMNS with spark.sql.cbo.enabled). 0 accelerates " +
      "every join with equality keys but one with an input that Spark estimates at under one " +
      "row.",
    default = 20000000L
  )

  val all: Seq[ConfEntry[_]] =
    Seq(
      Enabled,
      IEJoinEnabled,
      PiecewiseMergeJoinEnabled,
      SlidingWindowJoinEnabled,
      BroadcastEnabled,
      BroadcastMaxRowsRatio,
      BroadcastRatioAboveRows,
      KeyedIntervalJoinEnabled,
      KeyedIntervalBroadcastThreshold,
      AsOfJoinEnabled,
      PairFreeAggregates,
      ExplainDeclines,
      BlockRows,
      SortSpillRows,
      ColumnBatchesEnabled,
      RangePartitionMinRows,
      CoalesceMaxParallelism,
      CoalesceMaxMemoryFraction,
      MinCandidatePairs,
      MinSmallSideRows,
      KeyedMinCandidatePairs
    )

  val Prefix = "spark.rangejoin."

  /**
   * Checks every `spark.rangejoin.*` setting among `settings`: a key that is none of [[all]]
   * (nor a deprecated name of one) fails naming the closest known key, so that a mistyped
   * `spark.rangejoin.enable=false` does not leave the plugin silently on; a value that does not
   * parse fails as `get` would. The extension checks the settings a session starts with, and
   * the planner the session's settings before each join it plans.
   */
  def validate(settings: Iterable[(String, String)]): Unit =
    settings.foreach { case (key, value) =>
      if (key.startsWith(Prefix)) {
        all.find(e => e.key == key || e.deprecatedKeys.contains(key)) match {
          case Some(entry) => entry.parsed(key, value)
          case None =>
            throw new IllegalArgumentException(
              s"Unknown configuration $key: spark-rangejoin has no such key. Did you mean " +
                s"${closest(key)}? Its keys are ${all.map(_.key).mkString(", ")}."
            )
        }
      }
    }

  /** The known key nearest to `key` by edit distance, ignoring case. */
  private def closest(key: String): String =
    all.map(_.key).minBy(k => editDistance(k.toLowerCase, key.toLowerCase))

  private def editDistance(a: String, b: String): Int = {
    var previous = Array.tabulate(b.length + 1)(identity)
    for (i <- 1 to a.length) {
      val current = new Array[Int](b.length + 1)
      current(0) = i
      for (j <- 1 to b.length) {
        val substitution = previous(j - 1) + (if (a(i - 1) == b(j - 1)) 0 else 1)
        current(j) = substitution.min(previous(j) + 1).min(current(j - 1) + 1)
      }
      previous = current
    }
    previous(b.length)
  }

  private val warned = java.util.concurrent.ConcurrentHashMap.newKeySet[String]()

  /** Logs once per JVM that `old` is read in place of its new name `key`. */
  private[config] def warnDeprecated(old: String, key: String): Unit =
    if (warned.add(old)) logWarning(s"Configuration $old is deprecated; use $key instead.")
}

package rangejoin.planning

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateExpression,
  Complete,
  Count,
  Sum
}
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.types.LongType

import rangejoin.condition.PointInRange
import rangejoin.config.RangeJoinConf
import rangejoin.execution.CountMatchesExec
import rangejoin.execution.broadcast.BroadcastRangeIndex
import rangejoin.local.RangeBounds

/**
 * Each row of `grouped` with `matches`, the number of rows of `counted` it joins under the
 * point-in-range condition (rows with no match left out): what [[PairFreeAggregates]] puts
 * under an aggregate in place of the inner join whose pairs it counted.
 * [[CountMatchesStrategy]] plans it as [[rangejoin.execution.CountMatchesExec]], whose fields it
 * carries.
 */
final case class CountMatches(
    point: Expression,
    lower: Option[Expression],
    upper: Option[Expression],
    bounds: RangeBounds,
    pointGrouped: Boolean,
    indexGrouped: Boolean,
    matches: Attribute,
    grouped: LogicalPlan,
    counted: LogicalPlan
) extends BinaryNode {
  override def left: LogicalPlan = grouped
  override def right: LogicalPlan = counted
  override def output: Seq[Attribute] = grouped.output :+ matches
  override def producedAttributes: AttributeSet = AttributeSet(matches)

  override protected def withNewChildrenInternal(newLeft: LogicalPlan, newRight: LogicalPlan)
      : CountMatches = copy(grouped = newLeft, counted = newRight)
}

/**
 * Answers a count of an inner join's pairs without the pairs: an `Aggregate` whose aggregates
 * are all `count(*)` (or `count` of a non-NULL constant) and whose grouping expressions read one
 * input of the inner join below it, or nothing (directly or through the projection that
 * computes them), becomes an aggregate of [[CountMatches]] over
 * that input, summing the counts (`coalesce(sum(matches), 0)`, 0 with no rows at all, as
 * `count(*)` gives). The join's condition must be a point in a range and nothing else
 * ([[rangejoin.condition.PointInRange]]), on a type with 64-bit codes, and one input must be
 * estimated within `spark.sql.autoBroadcastJoinThreshold`, to be indexed; of the ways that
 * qualify, the one that indexes the smallest input is taken. The date spine (`GROUP BY day` of
 * days in periods), events per window and the count of a band join then cost about a sort. A
 * join small enough for Spark to win (`spark.rangejoin.minCandidatePairs`,
 * `spark.rangejoin.minSmallSideRows`: rung 3 of the ladder) is not rewritten.
 *
 * A rule of Spark's optimizer, run once after the operator optimizations
 * (`injectPreCBORule`), when `spark.rangejoin.enabled` and
 * `spark.rangejoin.pairFreeAggregates.enabled` are on.
 */
final case class PairFreeAggregates(session: SparkSession) extends Rule[LogicalPlan] with Logging {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case a: Aggregate if joinBelow(a).isDefined =>
      // The settings are checked as before every join the strategy plans: a mistyped key or a
      // value that does not parse fails the query, whichever takes the join.
      val conf = session.sessionState.conf
      RangeJoinConf.validate(conf.getAllConfs)
      if (RangeJoinConf.Enabled.get(conf) && RangeJoinConf.PairFreeAggregates.get(conf)) {
        rewrite(a).getOrElse(a)
      } else a
  }

  /**
   * The join right below `a`, and the expressions of the projection between them, where Spark
   * computes grouping expressions.
   */
  private def joinBelow(a: Aggregate): Option[(Join, Seq[NamedExpression])] = a.child match {
    case j: Join => Some((j, Nil))
    case Project(list, j: Join) => Some((j, list))
    case _ => None
  }

  private def rewrite(a: Aggregate): Option[Aggregate] = {
    val (join, projected) = joinBelow(a).get
    for {
      j <- Some(join).filter(j => j.joinType == Inner && j.condition.isDefined)
      counts = a.aggregateExpressions.flatMap(_.collect { case e: AggregateExpression => e })
      if counts.nonEmpty && counts.forall(PairFreeAggregates.countsPairs)
      read = AttributeSet(
        a.groupingExpressions.flatMap(_.references) ++
          a.aggregateExpressions.flatMap(_.transformDown {
            case e: AggregateExpression => Literal(0L)
          }.references)
      )
      choice <- choose(j, projected.filterNot(_.isInstanceOf[Attribute]), read)
      if !smallForSpark(j)
    } yield {
      val matches = AttributeReference("matches", LongType, nullable = false)()
      val summed = Coalesce(Seq(Sum(matches).toAggregateExpression(), Literal(0L)))
      val aggregates = a.aggregateExpressions.map(_.transformDown {
        case e: AggregateExpression if PairFreeAggregates.countsPairs(e) => summed
      }.asInstanceOf[NamedExpression])
      logDebug(s"count of a join's pairs answered without the pairs: $choice")
      a.copy(aggregateExpressions = aggregates, child = choice.node(matches))
    }
  }

  /**
   * Whether the join is one the decision ladder leaves to Spark as small (rung 3): counting its
   * few pairs costs Spark no more than the index costs the plugin, so both are left to Spark.
   */
  private def smallForSpark(j: Join): Boolean = {
    val small = SmallJoins.leftToSpark(j, Nil, session.sessionState.conf)
    small.foreach(reason => logDebug(s"count of a join's pairs left to the join: $reason"))
    small.isDefined
  }

  import PairFreeAggregates.Choice

  /** The way that indexes the smallest input, of those that qualify; None if none does. */
  private def choose(j: Join, computed: Seq[NamedExpression], read: AttributeSet)
      : Option[Choice] = {
    val threshold = session.sessionState.conf.autoBroadcastJoinThreshold
    val readings = PointInRange
      .of(j.condition.get, j.left.outputSet, j.right.outputSet)
      .filter(r => BroadcastRangeIndex.indexable(r.point))
    // An input that can be grouped: it computes the projected expressions and has all `read`.
    val groupable = Seq(true, false).flatMap { left =>
      val input = if (left) j.left else j.right
      val grouped =
        if (computed.isEmpty) input else Project(input.output ++ computed, input)
      val computes = computed.forall(_.references.subsetOf(input.outputSet))
      if (computes && read.subsetOf(grouped.outputSet)) Some((left, grouped)) else None
    }
    val choices = for {
      range <- readings
      (left, grouped) <- groupable
      indexGrouped <- Seq(true, false)
    } yield Choice(range, grouped, if (left) j.right else j.left, indexGrouped, left)
    choices
      .filter(c => threshold >= 0 && c.indexed.stats.sizeInBytes <= threshold)
      .sortBy(_.indexed.stats.sizeInBytes)
      .headOption
  }
}

object PairFreeAggregates {

  /** A way to count: which input is grouped, which is indexed, and the condition's reading. */
  private final case class Choice(
      range: PointInRange,
      grouped: LogicalPlan,
      counted: LogicalPlan,
      indexGrouped: Boolean,
      groupedIsLeft: Boolean
  ) {
    def indexed: LogicalPlan = if (indexGrouped) grouped else counted
    def node(matches: Attribute): CountMatches = CountMatches(
      range.point,
      range.lower,
      range.upper,
      range.bounds,
      pointGrouped = range.pointIsLeft == groupedIsLeft,
      indexGrouped,
      matches,
      grouped,
      counted
    )
  }

  /** Whether `e` counts every row it sees: `count(*)`, `count(1)`, not DISTINCT, no FILTER. */
  def countsPairs(e: AggregateExpression): Boolean = e.aggregateFunction match {
    case Count(children) =>
      e.mode == Complete && !e.isDistinct && e.filter.isEmpty &&
      children.forall(c => c.foldable && !c.nullable)
    case _ => false
  }
}

/** Plans a [[CountMatches]] as [[rangejoin.execution.CountMatchesExec]]. */
final case class CountMatchesStrategy(session: SparkSession) extends SparkStrategy {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case c: CountMatches =>
      CountMatchesExec(
        c.point,
        c.lower,
        c.upper,
        c.bounds,
        c.pointGrouped,
        c.indexGrouped,
        c.matches,
        planLater(c.grouped),
        planLater(c.counted)
      ) :: Nil
    case _ => Nil
  }
}

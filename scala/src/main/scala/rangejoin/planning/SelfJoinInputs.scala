package rangejoin.planning

import org.apache.spark.sql.catalyst.expressions.{
  Attribute,
  Expression,
  ExpressionSet,
  IsNotNull,
  PredicateHelper
}
import org.apache.spark.sql.catalyst.plans._
import org.apache.spark.sql.catalyst.plans.logical.{
  ConstraintHelper,
  Filter,
  Join,
  LogicalPlan,
  Project
}

import rangejoin.execution.RightBlocks

/**
 * The inputs a block join plans for a self-join, so that it loads one input
 * ([[rangejoin.execution.RightBlocks]]) even when the optimizer filtered one side only.
 *
 * The optimizer infers `IS NOT NULL` filters on the join keys of the side whose unmatched rows a
 * join never outputs: the right side of a left outer, semi or anti join, the left side of a right
 * outer join. A self-join's two inputs then differ, and would load twice. Such a filter only
 * drops rows that cannot match (a NULL key satisfies no inequality), and rows that cannot match
 * are never output on that side, so the join is the same without it: the side is planned without
 * the filter when that makes both inputs the same plan. Its rows with a NULL key are then in the
 * blocks' `nullKeyRows` on both sides, which only the preserved side outputs.
 *
 * A filter is removed only if each of its conjuncts is `IS NOT NULL` of an attribute that the
 * join condition requires to be non-NULL, as the optimizer infers it (a conjunct that is NULL
 * when the attribute is: `r.start <= s.end` for `s.end`, or `r.id <> s.id` for `s.id`). A key
 * such as `coalesce(s.end, 0)` is not NULL when `s.end` is, and a stated `s.end IS NOT NULL`
 * then decides matches and stays.
 */
private[planning] object SelfJoinInputs extends PredicateHelper with ConstraintHelper {

  /** The left and right inputs to plan, and where the right input gets its blocks. */
  def apply(
      join: Join,
      leftKeys: Seq[Expression],
      rightKeys: Seq[Expression],
      swappable: Boolean
  ): (LogicalPlan, LogicalPlan, RightBlocks) = {
    val conjuncts = join.condition.toSeq.flatMap(splitConjunctivePredicates)
    def candidates(side: LogicalPlan, left: Boolean) =
      if (dropsUnmatched(join.joinType, left)) side +: withoutNullFilter(side, conjuncts).toSeq
      else Seq(side)
    // One filter at most: an input without its filter then equals the other input, which the
    // join reads whole anyway. Without both, a projection above them would meet rows that
    // neither input lets through (and could fail on them under ANSI).
    val reused = for {
      left <- candidates(join.left, left = true).iterator
      right <- candidates(join.right, left = false).iterator
      if (left eq join.left) || (right eq join.right)
      reuse = RightBlocks.of(left, right, leftKeys, rightKeys, swappable)
      if reuse != RightBlocks.Own
    } yield (left, right, reuse)
    if (reused.hasNext) reused.next() else (join.left, join.right, RightBlocks.Own)
  }

  /** Whether `joinType` never outputs the left (or right) input's rows that matched nothing. */
  private def dropsUnmatched(joinType: JoinType, left: Boolean): Boolean = joinType match {
    case Inner => true
    case LeftOuter | LeftSemi | LeftAnti => !left
    case RightOuter => left
    case _ => false
  }

  /**
   * `side` without its top filter (under the projection of the columns the join reads, if any),
   * if that filter only drops rows with a NULL in a column that the join condition `conjuncts`
   * requires to be non-NULL.
   */
  private def withoutNullFilter(side: LogicalPlan, conjuncts: Seq[Expression])
      : Option[LogicalPlan] = side match {
    case project @ Project(_, filter: Filter) =>
      withoutNullFilter(filter, conjuncts).map(child => project.copy(child = child))
    case Filter(condition, child) =>
      val implied = constructIsNotNullConstraints(ExpressionSet(conjuncts), child.output)
      val dropsOnlyNulls = splitConjunctivePredicates(condition).forall {
        case notNull @ IsNotNull(_: Attribute) => implied.contains(notNull)
        case _ => false
      }
      if (dropsOnlyNulls) Some(child) else None
    case _ => None
  }
}

package rangejoin.execution.runtime

import org.apache.spark.sql.catalyst.plans._

/**
 * What a task outputs for the rows of its stream blocks. The stream side is the side whose rows
 * the join type preserves or filters: the left input, except for a right outer join.
 */
sealed abstract class StreamEmit(val pairs: Boolean, val matched: Boolean, val unmatched: Boolean)
    extends Serializable

object StreamEmit {

  /** Inner join: every matching pair. */
  case object Pairs extends StreamEmit(pairs = true, matched = false, unmatched = false)

  /** Outer join, preserved side: every matching pair, then each unmatched row NULL-padded. */
  case object PairsAndUnmatched extends StreamEmit(pairs = true, matched = false, unmatched = true)

  /** Semi join: each row with at least one match, once. */
  case object Matched extends StreamEmit(pairs = false, matched = true, unmatched = false)

  /** Anti join: each row with no match (NULL keys included). */
  case object Unmatched extends StreamEmit(pairs = false, matched = false, unmatched = true)

  /** Existence join: every row, with whether it matched. */
  case object Existence extends StreamEmit(pairs = false, matched = true, unmatched = true)

  /** The stream emission for a join type (the first pass of a full outer join). */
  def of(joinType: JoinType): StreamEmit = joinType match {
    case _: InnerLike => Pairs
    case LeftOuter | RightOuter | FullOuter => PairsAndUnmatched
    case LeftSemi => Matched
    case LeftAnti => Unmatched
    case _: ExistenceJoin => Existence
    case x => throw new IllegalArgumentException(s"A range join should not take $x as the JoinType")
  }
}

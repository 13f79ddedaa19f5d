package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans._

/** The output columns of a join, per join type, as Spark's own joins produce them. */
object JoinOutput {

  /**
   * Inner: both sides. Outer joins: both sides, the NULL-padded side(s) nullable. Semi and anti:
   * the left side only. Existence: the left side and the `exists` flag.
   */
  def apply(joinType: JoinType, left: Seq[Attribute], right: Seq[Attribute]): Seq[Attribute] =
    joinType match {
      case _: InnerLike => left ++ right
      case LeftOuter => left ++ right.map(_.withNullability(true))
      case RightOuter => left.map(_.withNullability(true)) ++ right
      case FullOuter => (left ++ right).map(_.withNullability(true))
      case LeftSemi | LeftAnti => left
      case ExistenceJoin(exists) => left :+ exists
      case x =>
        throw new IllegalArgumentException(s"A range join should not take $x as the JoinType")
    }
}

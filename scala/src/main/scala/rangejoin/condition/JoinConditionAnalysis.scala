package rangejoin.condition

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

/**
 * A join condition split into the parts the operators use.
 *
 * @param equalities conjuncts `f(left) = g(right)` (also `<=>`), in condition order
 * @param inequalities conjuncts `f(left) op g(right)` with a key type the operators can sort,
 *   then the candidate inequalities that residual conjuncts imply (see
 *   [[JoinConditionAnalysis.analyze]])
 * @param residuals every other conjunct; evaluated on candidate pairs
 */
final case class JoinConjuncts(
    equalities: Seq[Equality],
    inequalities: Seq[Inequality],
    residuals: Seq[Expression]
)

/** `left = right` (or `left <=> right` when `nullSafe`), each side over one join input. */
final case class Equality(left: Expression, right: Expression, nullSafe: Boolean) {
  override def toString: String = s"${left.sql} ${if (nullSafe) "<=>" else "="} ${right.sql}"
}

/**
 * Classifies each conjunct of a join condition once.
 *
 * A conjunct is an inequality when it is `a op b` with `op` in `< <= > >=`, it is deterministic,
 * one operand references only the left input and the other only the right (each at least one
 * column), and the operands' type is one [[isSortableKeyType]] accepts. `BETWEEN` needs no case of
 * its own: Spark rewrites it into two such comparisons before planning.
 *
 * Conditions are often written in forms that are not such comparisons but imply them: a bounded
 * difference (`abs(l.t - r.t) <= 5`, `datediff(l.d, r.d) BETWEEN 0 AND 7`; [[DifferenceBounds]])
 * or an open end (`l.d < r.end OR r.end IS NULL`; [[OpenEnds]]). Such a conjunct stays a residual,
 * which decides, and adds candidate inequalities, which only narrow the pairs the operator looks
 * at. So the operators see inequalities whichever way the condition is written, and the answer
 * is the condition's own.
 */
object JoinConditionAnalysis extends PredicateHelper {

  def analyze(condition: Expression, left: AttributeSet, right: AttributeSet): JoinConjuncts = {
    val conjuncts = splitConjunctivePredicates(condition)
    val equalities = Seq.newBuilder[Equality]
    val inequalities = Seq.newBuilder[Inequality]
    val residuals = Seq.newBuilder[Expression]
    conjuncts.foreach { c =>
      equality(c, left, right) match {
        case Some(eq) => equalities += eq
        case None =>
          inequality(c, left, right) match {
            case Some(ineq) => inequalities += ineq
            case None => residuals += c
          }
      }
    }
    val rest = residuals.result()
    val candidates =
      DifferenceBounds.candidates(rest, left, right) ++ OpenEnds.candidates(rest, left, right)
    JoinConjuncts(equalities.result(), inequalities.result() ++ candidates, rest)
  }

  /** Types whose Spark ordering the operators reproduce exactly (see `KeyEncoder`). */
  def isSortableKeyType(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType => true
    case FloatType | DoubleType | DateType | TimestampType | TimestampNTZType => true
    case _: DecimalType | BinaryType => true
    case _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case st: StringType => st == StringType // the default, binary-ordered collation
    case _ => false
  }

  /**
   * Whether `a` reads only the left input and `b` only the right (Some(true)), the other way
   * round (Some(false)), or neither; each must reference at least one column.
   */
  private[condition] def sides(
      a: Expression,
      b: Expression,
      left: AttributeSet,
      right: AttributeSet
  )
      : Option[Boolean] = {
    def only(e: Expression, side: AttributeSet) =
      e.references.nonEmpty && e.references.subsetOf(side)
    if (only(a, left) && only(b, right)) Some(true)
    else if (only(a, right) && only(b, left)) Some(false)
    else None
  }

  private def equality(c: Expression, left: AttributeSet, right: AttributeSet)
      : Option[Equality] = {
    def oriented(a: Expression, b: Expression, nullSafe: Boolean) =
      sides(a, b, left, right).filter(_ => c.deterministic).map { leftFirst =>
        if (leftFirst) Equality(a, b, nullSafe) else Equality(b, a, nullSafe)
      }
    c match {
      case EqualTo(a, b) => oriented(a, b, nullSafe = false)
      case EqualNullSafe(a, b) => oriented(a, b, nullSafe = true)
      case _ => None
    }
  }

  private def inequality(c: Expression, left: AttributeSet, right: AttributeSet)
      : Option[Inequality] = c match {
    case Comparison(a, op, b) if c.deterministic && isSortableKeyType(a.dataType) =>
      sides(a, b, left, right).map { leftFirst =>
        if (leftFirst) Inequality(a, op, b) else Inequality(b, op.flip, a)
      }
    case _ => None
  }
}

package rangejoin

import rangejoin.OracleTables.Typed

/**
 * Join queries of views `l` and `r` ([[OracleTables]]) and their brute-force oracles, written
 * plainly in SQL: the matched pairs are a cross join filtered by the condition, the rows an outer
 * join pads are the rows for which no row of the other side satisfies the condition (`NOT
 * EXISTS`), and semi, anti and existence joins keep the rows for which one does (`EXISTS`) or
 * none does.
 */
object OracleQueries {

  /**
   * A join type: how the accelerated query writes a join of `l` and `r` on a condition, and how
   * its oracle writes the same answer. Both select the same columns: for joins that output pairs,
   * `l`'s id and its first column of the type, and `r`'s id and its second column; else `l`'s id
   * and its second column.
   */
  sealed abstract class Shape(val name: String) {
    def query(condition: String, t: Typed): String
    def oracle(condition: String, t: Typed): String

    /** Whether the join outputs pairs (two ids), so that its ordering columns are both ids. */
    def pairs: Boolean

    override def toString: String = name
  }

  private def pair(t: Typed) = s"l.id AS lid, l.${t.c1} AS lv, r.id AS rid, r.${t.c2} AS rv"
  private def leftOnly(t: Typed) = s"l.id AS lid, l.${t.c2} AS lv"

  private def matched(c: String, t: Typed) = s"SELECT ${pair(t)} FROM l CROSS JOIN r WHERE $c"
  private def leftUnmatched(c: String, t: Typed) =
    s"SELECT l.id, l.${t.c1}, NULL, NULL FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE $c)"
  private def rightUnmatched(c: String, t: Typed) =
    s"SELECT NULL, NULL, r.id, r.${t.c2} FROM r WHERE NOT EXISTS (SELECT 1 FROM l WHERE $c)"

  private final class PairShape(name: String, join: String, padLeft: Boolean, padRight: Boolean)
      extends Shape(name) {
    def query(c: String, t: Typed): String = s"SELECT ${pair(t)} FROM l $join r ON $c"
    def oracle(c: String, t: Typed): String = (
      Seq(matched(c, t)) ++
        Seq(leftUnmatched(c, t)).filter(_ => padLeft) ++
        Seq(rightUnmatched(c, t)).filter(_ => padRight)
    ).mkString(" UNION ALL ")
    def pairs: Boolean = true
  }

  private final class LeftShape(
      name: String,
      q: (String, Typed) => String,
      o: (String, Typed) => String
  ) extends Shape(name) {
    def query(c: String, t: Typed): String = q(c, t)
    def oracle(c: String, t: Typed): String = o(c, t)
    def pairs: Boolean = false
  }

  val inner: Shape = new PairShape("inner", "JOIN", padLeft = false, padRight = false)
  val left: Shape = new PairShape("left outer", "LEFT JOIN", padLeft = true, padRight = false)
  val right: Shape = new PairShape("right outer", "RIGHT JOIN", padLeft = false, padRight = true)
  val full: Shape = new PairShape("full outer", "FULL JOIN", padLeft = true, padRight = true)
  val semi: Shape = new LeftShape(
    "left semi",
    (c, t) => s"SELECT ${leftOnly(t)} FROM l LEFT SEMI JOIN r ON $c",
    (c, t) => s"SELECT ${leftOnly(t)} FROM l WHERE EXISTS (SELECT 1 FROM r WHERE $c)"
  )
  val anti: Shape = new LeftShape(
    "left anti",
    (c, t) => s"SELECT ${leftOnly(t)} FROM l LEFT ANTI JOIN r ON $c",
    (c, t) => s"SELECT ${leftOnly(t)} FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE $c)"
  )

  /** An EXISTS inside a disjunction, which Spark plans as an existence join. */
  val existence: Shape = new LeftShape(
    "existence",
    (c, t) =>
      s"SELECT ${leftOnly(t)} FROM l WHERE l.id % 3 = 0 OR EXISTS (SELECT 1 FROM r WHERE $c)",
    (c, t) =>
      s"SELECT ${leftOnly(t)} FROM l WHERE l.id % 3 = 0 UNION ALL " +
        s"SELECT ${leftOnly(t)} FROM l WHERE l.id % 3 <> 0 AND EXISTS (SELECT 1 FROM r WHERE $c)"
  )

  val shapes: Seq[Shape] = Seq(inner, left, right, full, semi, anti, existence)

  /** The join types that only ask whether a left row matched. */
  val existenceShapes: Set[Shape] = Set(semi, anti, existence)

  /**
   * A join condition, named for failure messages (its operators, say): `inequalities` between
   * the sides, maybe an equality key, and maybe a `residual` conjunct.
   */
  final case class Condition(
      label: String,
      sql: String,
      inequalities: Int,
      residual: Boolean = false
  )

  private val ops = Seq("<", "<=", ">", ">=")

  /** `l.c1 op1 r.c1 AND l.c2 op2 r.c2`, every pair of operators: 16 conditions. */
  def twoInequalities(t: Typed): Seq[Condition] =
    for (op1 <- ops; op2 <- ops)
      yield Condition(
        s"${t.name} $op1 $op2",
        s"l.${t.c1} $op1 r.${t.c1} AND l.${t.c2} $op2 r.${t.c2}",
        inequalities = 2
      )

  /**
   * A point in an interval, `r.c1 op1 l.c1 AND l.c1 op2 r.c2`: closed, half-open either way, and
   * open. Intervals whose ends are reversed hold no point.
   */
  def containment(t: Typed): Seq[Condition] =
    for (op1 <- Seq("<", "<="); op2 <- Seq("<", "<="))
      yield Condition(
        s"${t.name} r.lo $op1 l.p $op2 r.hi",
        s"r.${t.c1} $op1 l.${t.c1} AND l.${t.c1} $op2 r.${t.c2}",
        inequalities = 2
      )

  /**
   * A band of the type's half width around `r.c1`: `BETWEEN` for a closed band, else a strict
   * bound on either side or both.
   */
  def band(t: Typed): Seq[Condition] = {
    val w = t.offset.getOrElse(throw new IllegalArgumentException(s"no band on ${t.name}"))
    for (lower <- Seq(">=", ">"); upper <- Seq("<=", "<")) yield {
      val sql =
        if (lower == ">=" && upper == "<=") s"l.${t.c1} BETWEEN r.${t.c1} - $w AND r.${t.c1} + $w"
        else s"l.${t.c1} $lower r.${t.c1} - $w AND l.${t.c1} $upper r.${t.c1} + $w"
      Condition(s"${t.name} band $lower $upper", sql, inequalities = 2)
    }
  }

  /** One inequality, each operator. */
  def single(t: Typed): Seq[Condition] =
    ops.map(op => Condition(s"${t.name} $op", s"l.${t.c1} $op r.${t.c2}", inequalities = 1))

  /** `condition` with the equality key `l.k = r.k` in front. */
  def keyed(condition: Condition): Condition =
    condition.copy(label = s"k= ${condition.label}", sql = s"l.k = r.k AND ${condition.sql}")

  /** `condition` and a residual conjunct that no operator can drive with. */
  def withResidual(condition: Condition): Condition = condition.copy(
    label = s"${condition.label} +residual",
    sql = s"${condition.sql} AND (l.id + r.id) % 3 <> 0",
    residual = true
  )

  /**
   * The queries of `shape` on each condition as one query, each tagged with its condition's
   * position (`tag`), joined by UNION ALL: one query plans and runs a join per condition.
   */
  def tagged(conditions: Seq[Condition], sql: (String, Int) => String): String =
    conditions.indices.map(i => s"SELECT $i AS tag, * FROM (${sql(conditions(i).sql, i)}) AS q$i")
      .mkString(" UNION ALL ")
}

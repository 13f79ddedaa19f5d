package rangejoin.outside

/**
 * The golden-file queries whose answer SQL leaves open, so that the plugin on and off may both be
 * right and still differ: each with the reason. A query is matched by its file and a fragment of
 * its text.
 */
object ConformanceDifferences {

  private final case class Difference(file: String, fragment: String, reason: String)

  private val limitWithoutOrder =
    "the correlated subquery keeps any 2 of its rows (`LIMIT 2` without `ORDER BY`); Spark " +
      "decorrelates it into a row number per outer value over an inequality join, and which " +
      "rows get the first numbers follows the order that join emits, which SQL leaves open"

  private val listed = Seq(
    Difference(
      "subquery/in-subquery/in-limit.sql",
      "WHERE t1c IN (SELECT t2c FROM t2 WHERE t2b <= t1d LIMIT 2)",
      limitWithoutOrder
    ),
    Difference(
      "subquery/in-subquery/in-limit.sql",
      "WHERE t1b NOT IN (SELECT t2b FROM t2 WHERE t2b <= t1d LIMIT 2)",
      limitWithoutOrder
    )
  )

  /** Why query `sql` of `file` may differ, if it is listed. */
  def find(file: String, sql: String): Option[String] = {
    val text = sql.replaceAll("\\s+", " ")
    listed.collectFirst { case d if d.file == file && text.contains(d.fragment) => d.reason }
  }
}

package rangejoin

import org.scalatest.{Args, Filter, Status, Tag}

/**
 * Tests in which rows go to local disk: an operator's spill files, sorted blocks moved to disk, or
 * shuffles in a task memory small enough to make Spark spill.
 */
object Spills extends Tag("rangejoin.Spills")

/**
 * A suite's tests tagged [[Spills]], run again in a session of their own that encrypts what
 * Spark writes to local disk (`spark.io.encryption.enabled`, a setting of the SparkContext): what
 * an operator spills must read back the same.
 */
trait EncryptedSpills extends OwnSession {
  override def sessionSettings: Seq[(String, String)] =
    super.sessionSettings :+ ("spark.io.encryption.enabled" -> "true")

  /** `filter`, keeping only the tests tagged [[Spills]]. */
  private def spillsOnly(filter: Filter): Filter =
    Filter(
      Some(Set(Spills.name)),
      filter.tagsToExclude,
      filter.excludeNestedSuites,
      filter.dynaTags
    )

  override def run(testName: Option[String], args: Args): Status =
    super.run(testName, args.copy(filter = spillsOnly(args.filter)))

  override def expectedTestCount(filter: Filter): Int = super.expectedTestCount(spillsOnly(filter))

  test("the session encrypts local disk I/O", Spills) {
    assert(spark.sparkContext.getConf.get("spark.io.encryption.enabled") == "true")
  }
}

package rangejoin

import org.apache.spark.sql.internal.SQLConf

/**
 * How many random queries a differential suite draws, and the seed of the first: the suite's own
 * defaults, unless `RANGEJOIN_FUZZ_QUERIES` and `RANGEJOIN_FUZZ_FIRST_SEED` are set (`make fuzz`
 * raises the count, `make test-quick` and the other builds' smoke set lower it).
 */
final case class RandomQueries(count: Int, firstSeed: Long) {
  def seeds: Seq[Long] = firstSeed until firstSeed + count
}

object RandomQueries {

  /**
   * `count` queries from `firstSeed`, or what the environment sets. A suite whose queries cost
   * more than most runs `fuzzShare` of the environment's count (at least one query); one whose
   * seeds must differ from another suite's starts `fuzzSeedOffset` after the environment's seed.
   */
  def fromEnv(
      count: Int,
      firstSeed: Long,
      fuzzShare: Double = 1.0,
      fuzzSeedOffset: Long = 0L
  ): RandomQueries =
    RandomQueries(
      sys.env.get("RANGEJOIN_FUZZ_QUERIES").map(n => math.max(1, (n.toInt * fuzzShare).toInt))
        .getOrElse(count),
      sys.env.get("RANGEJOIN_FUZZ_FIRST_SEED").map(_.toLong + fuzzSeedOffset).getOrElse(firstSeed)
    )
}

/** A session mode a random query runs in: ANSI on or off, whole-stage codegen on or off. */
final case class SessionMode(ansi: Boolean, codegen: Boolean) {

  def confs: Seq[(String, String)] = Seq(
    SQLConf.ANSI_ENABLED.key -> ansi.toString,
    SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> codegen.toString
  )

  override def toString: String =
    s"ANSI ${if (ansi) "on" else "off"}, codegen ${if (codegen) "on" else "off"}"
}

object SessionMode {

  val all: Seq[SessionMode] =
    for (ansi <- Seq(true, false); codegen <- Seq(true, false)) yield SessionMode(ansi, codegen)

  /**
   * The mode of `seed`: consecutive pairs of seeds take the modes in turn, so that a seed's
   * parity stays free to choose another setting, and every mode gets a quarter of the seeds.
   */
  def of(seed: Long): SessionMode = all(Math.floorMod(seed / 2, all.size.toLong).toInt)
}

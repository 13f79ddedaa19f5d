package rangejoin.execution.keyed

/**
 * The positions of an [[AsOfIndex]] cut into regions of consecutive positions, each about
 * [[ProbeRegions.RegionBytes]] of the index: the order in which [[ProbeBatches]] puts probes.
 * An index that fits in a core's cache ([[ProbeRegions.CachedBytes]]) is one region, probed in
 * the order the rows arrive. A larger one, probed in arrival order, is read at random and misses
 * the cache at about every step; probes put in order of small regions read it almost in order
 * instead: the probes of a region read a few kilobytes of the index, the next region's the
 * kilobytes after them, so each part of the index is fetched once per batch, in a sequence the
 * processor's prefetcher follows, and reused by every probe of its region while it is cached.
 *
 * A probe's region is that of the position its group and code lead to: the group's start, for a
 * group that fits in a region; in a larger group, the position that the code's place between the
 * group's least and greatest code suggests, by interpolation. The region decides only the order
 * of the probes, never their answers, so an estimate is enough.
 *
 * @param indexBytes the bytes a lookup in the index may read, which the index's positions share
 */
final class ProbeRegions(index: AsOfIndex, indexBytes: Long) {
  private val positions = index.codes.length

  /** Positions per region, at least one: all of them when the index stays in the cache. */
  private val span: Int =
    if (indexBytes <= ProbeRegions.CachedBytes) math.max(1, positions)
    else {
      val bytesPerPosition = math.max(1L, indexBytes / math.max(1, positions))
      val fitting = math.max(1L, ProbeRegions.RegionBytes / bytesPerPosition)
      val fewEnough = (positions.toLong + ProbeRegions.MaxRegions - 1) / ProbeRegions.MaxRegions
      math.max(fitting, fewEnough).toInt
    }

  /** The number of regions: one when the whole index fits in one. */
  val count: Int = math.max(1, (positions + span - 1) / span)

  /** The region of a probe of `group` with `code`, from 0 until [[count]]. */
  def of(group: Int, code: Long): Int = {
    // Plain values, not tuples: this runs for every probing row.
    val start = index.start(group)
    val end = index.end(group)
    val position =
      if (end - start <= span) start
      else {
        val least = index.codes(start)
        val greatest = index.codes(end - 1)
        if (code <= least) start
        else if (code >= greatest) end - 1
        else {
          val share = (code.toDouble - least.toDouble) / (greatest.toDouble - least.toDouble)
          math.min(end - 1, start + (share * (end - 1 - start)).toInt)
        }
      }
    position / span
  }
}

object ProbeRegions {

  /**
   * The largest index probed in arrival order: half the level-2 cache of a core of a common
   * server CPU (1 MiB), leaving the other half to the probes' own rows and the output. A larger
   * index is cut into regions, and its probes copied into their order.
   */
  val CachedBytes: Long = 512L << 10

  /**
   * The bytes of the index per region: a few pages, so that a batch's probes, put in order of
   * region, read the index about in order. Regions of the cache's size leave the probes of a
   * region reading it at random, which the type-2 lookups and as-of joins of the benchmarks
   * measured slower than regions of this size; smaller ones gained nothing more.
   */
  val RegionBytes: Long = 16L << 10

  /**
   * At most this many regions: the copy into region order keeps a row count and a byte count per
   * region, and writes through one stream per region.
   */
  val MaxRegions: Int = 16384
}

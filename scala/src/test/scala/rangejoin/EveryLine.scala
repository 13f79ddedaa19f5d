package rangejoin

import org.scalatest.Tag

/**
 * The tests that run on every Spark build, not only on the default one (`make test-versions`
 * selects them with `-n rangejoin.EveryLine`): quick ones that plan and answer each operator
 * through its join types, the broadcast and streaming paths, SQL's as-of syntax and EXPLAIN, all
 * of which go through a build's shims. A suite's other tests, the exhaustive and the long random
 * ones, run on the default build.
 */
object EveryLine extends Tag("rangejoin.EveryLine")

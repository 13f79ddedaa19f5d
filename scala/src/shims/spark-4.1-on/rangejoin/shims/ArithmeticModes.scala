package rangejoin.shims

import org.apache.spark.sql.catalyst.expressions.{BinaryArithmetic, EvalMode}

/** From Spark 4.1 on every arithmetic expression tells its evaluation mode. */
object ArithmeticModes {

  /** Whether `arithmetic` fails on overflow (ANSI mode) instead of wrapping around. */
  def failsOnOverflow(arithmetic: BinaryArithmetic): Boolean = arithmetic.evalMode == EvalMode.ANSI
}

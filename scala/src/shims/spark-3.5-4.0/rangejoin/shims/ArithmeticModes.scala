package rangejoin.shims

import org.apache.spark.sql.catalyst.expressions.{Add, BinaryArithmetic, EvalMode, Subtract}

/** Up to Spark 4.0 an addition's evaluation mode is its third field (private to the base class). */
object ArithmeticModes {

  /** Whether `arithmetic` fails on overflow (ANSI mode) instead of wrapping around. */
  def failsOnOverflow(arithmetic: BinaryArithmetic): Boolean = arithmetic match {
    case Add(_, _, mode) => mode == EvalMode.ANSI
    case Subtract(_, _, mode) => mode == EvalMode.ANSI
    case _ => false
  }
}

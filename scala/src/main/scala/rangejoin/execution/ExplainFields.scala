package rangejoin.execution

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.{ExplainUtils, SparkPlan}

/**
 * A node whose EXPLAIN output is a list of named fields: on one line of the plan tree
 * (`name: value, ...`), and one field per line in the formatted plan.
 */
trait ExplainFields extends SparkPlan {

  /** The fields, in the order EXPLAIN shows them. */
  protected def explainFields: Seq[(String, String)]

  override def simpleString(maxFields: Int): String =
    s"$nodeName " + explainFields.map { case (k, v) => s"${k.toLowerCase}: $v" }.mkString(", ")

  override def verboseStringWithOperatorId(): String =
    (formattedNodeName +: explainFields.map { case (k, v) =>
      ExplainUtils.generateFieldString(k, v)
    }).mkString("\n", "\n", "\n")
}

object ExplainFields {

  /** Equality keys as EXPLAIN shows them: `l = r, ...`. */
  def keys(leftKeys: Seq[Expression], rightKeys: Seq[Expression]): String =
    leftKeys.zip(rightKeys).map { case (l, r) => s"${l.sql} = ${r.sql}" }.mkString(", ")
}

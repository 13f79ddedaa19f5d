package rangejoin

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, Literal}

/**
 * The version of this build and the SQL function `rangejoin_version()` that reports it. A session
 * knows the function only when the extension is installed, so calling it is how a client, over
 * Spark Connect too, asks whether the plugin is there (the Python package's `is_installed`).
 */
object RangeJoinVersion {
  private val properties = {
    val loaded = new java.util.Properties
    val in = getClass.getResourceAsStream("/rangejoin/build.properties")
    try loaded.load(in)
    finally in.close()
    loaded
  }

  /** This build's version. */
  val version: String = properties.getProperty("version")

  /** The Spark version this build was compiled against. */
  val sparkVersion: String = properties.getProperty("spark.version")

  val FunctionName = "rangejoin_version"

  /** The function as `SparkSessionExtensions.injectFunction` takes it. */
  val function: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) = (
    FunctionIdentifier(FunctionName),
    new ExpressionInfo(
      classOf[Literal].getName,
      null, // no database: a built-in-like function
      FunctionName,
      s"$FunctionName() - The spark-rangejoin version this session runs and the Spark version " +
        "it was built for.",
      "", // arguments: none
      "", // examples
      "", // note
      "misc_funcs",
      version, // since
      "", // deprecated: no
      "scala_udf"
    ),
    arguments => {
      require(arguments.isEmpty, s"$FunctionName() takes no arguments")
      Literal(s"$version (Spark $sparkVersion)")
    }
  )
}

// spark-rangejoin: a Spark Catalyst plugin for fast inequality joins.
import scala.collection.JavaConverters._

// One source tree, one jar per Spark release line. versions.properties names the project's
// version and every build, <Spark release>_<Scala binary version>; this file builds one of them:
// -Drangejoin.build=<build> when sbt starts, else the default build. Within one sbt session,
// `useBuild <build>` switches to another build (it reloads the project), so one JVM can compile,
// test and publish several builds in turn. A release that Maven Central does not serve
// (PYSPARK_JARS) is compiled against the jars of its pyspark package, which the Makefile unpacks
// into .tools/pyspark-<release>/jars.
val versions: Map[String, String] = {
  val properties = new java.util.Properties()
  IO.load(properties, file("versions.properties"))
  properties.asScala.toMap
}
val knownBuilds = versions("SPARK_BUILDS").split(' ').toSeq
val build = {
  val chosen = sys.props.getOrElse("rangejoin.build", versions("DEFAULT_BUILD"))
  require(
    knownBuilds.contains(chosen),
    s"rangejoin.build=$chosen is not a build of versions.properties: ${knownBuilds.mkString(", ")}"
  )
  chosen
}
val sparkVersion = build.split('_')(0)
val scalaBinary = build.split('_')(1)
val sparkMinor = sparkVersion.split('.').take(2).mkString(".")
val sparkJarsDir =
  if (versions("PYSPARK_JARS").split(' ').contains(sparkVersion))
    Some(file(s".tools/pyspark-$sparkVersion/jars"))
  else None

// What differs between Spark versions lives in scala/src/shims, in folders named for the Spark
// lines they serve: spark-4.1 (that line only), spark-3.5-4.0 (3.5 through 4.0), spark-4.2-on.
def lineOrder(minor: String): Int =
  minor.split('.') match { case Array(a, b) => a.toInt * 100 + b.toInt }
def serves(folder: String): Boolean = folder.stripPrefix("spark-").split('-') match {
  case Array(only) => only == sparkMinor
  case Array(from, "on") => lineOrder(from) <= lineOrder(sparkMinor)
  case Array(from, to) =>
    lineOrder(from) <= lineOrder(sparkMinor) && lineOrder(sparkMinor) <= lineOrder(to)
}
def shims(root: File): Seq[File] = root.listFiles.filter(d => serves(d.getName)).toSeq
// scalafmt checks the shim folders of every line, whatever the build, so one run covers them all.
def formatted(main: File, shimsRoot: File): Seq[File] =
  (main +: shimsRoot.listFiles.filter(_.isDirectory).toSeq).flatMap(d => (d ** "*.scala").get)

// The Scala release each build compiles against, no newer than the one its Spark runs: Spark 3.5
// ships 2.12.18 or 2.13.8, Spark 4.0 2.13.16, later lines newer ones.
val scalaRelease = (scalaBinary, sparkMinor) match {
  case ("2.12", _) => "2.12.18"
  case (_, "3.5") => "2.13.8"
  case _ => "2.13.16"
}

ThisBuild / scalaVersion := scalaRelease
ThisBuild / organization := "io.github.rangejoin"
ThisBuild / version := versions("VERSION")
ThisBuild / licenses := Seq("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / description := "Fast range, band, interval and as-of joins for Apache Spark"

lazy val root = (project in file("."))
  .settings(
    // Published (make publish-local) as io.github.rangejoin:rangejoin-spark<minor>_<scala>.
    name := "rangejoin",
    moduleName := s"rangejoin-spark$sparkMinor",
    Compile / packageDoc / publishArtifact := false,
    // make publish-local runs again after every build: the new jar replaces the old one.
    publishM2Configuration := publishM2Configuration.value.withOverwrite(true),
    // Each Spark version and Scala version compiles into a target folder of its own.
    target := baseDirectory.value / "target" / s"spark$sparkVersion-$scalaBinary",
    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Compile / unmanagedSourceDirectories ++= shims(baseDirectory.value / "scala" / "src" / "shims"),
    Test / unmanagedSourceDirectories ++= shims(
      baseDirectory.value / "scala" / "src" / "test-shims"
    ),
    Test / scalaSource := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Compile / scalafmt / unmanagedSources :=
      formatted((Compile / scalaSource).value, baseDirectory.value / "scala" / "src" / "shims"),
    Test / scalafmt / unmanagedSources :=
      formatted((Test / scalaSource).value, baseDirectory.value / "scala" / "src" / "test-shims"),
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:-unused,_"),
    // Spark brings Scala's library: the pom names it provided, so --packages adds no second copy.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ) ++ (if (sparkJarsDir.isEmpty) Seq("org.apache.spark" %% "spark-sql" % sparkVersion % Provided)
          else Nil),
    Compile / unmanagedJars ++= sparkJarsDir.toSeq.flatMap(dir => (dir * "*.jar").classpath),
    // rangejoin_version() reads the build's version and its Spark version from the jar.
    Compile / resourceGenerators += Def.task {
      val file = (Compile / resourceManaged).value / "rangejoin" / "build.properties"
      IO.write(file, s"version=${version.value}\nspark.version=$sparkVersion\n")
      Seq(file)
    }.taskValue,
    // The jar's name carries the Spark and Scala versions it was built against.
    Compile / packageBin / artifactPath := baseDirectory.value / "target" /
      s"rangejoin-spark${sparkVersion}_$scalaBinary-${version.value}.jar",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= Seq("-Xmx4g", "-Dlog4j2.configurationFile=conf/log4j2.properties") ++
      JavaModuleOptions.all,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    // The fault tests (rangejoin.faults) run a local-cluster master: its workers launch executor
    // JVMs with the jars/ folder of SPARK_HOME on their classpath, and their work folders under
    // it. This Spark home's jars/ is empty; the tests give executors their own classpath
    // (spark.executor.extraClassPath).
    Test / envVars += {
      val home = target.value / "local-cluster-home"
      IO.createDirectory(home / "jars")
      "SPARK_HOME" -> home.getAbsolutePath
    },
    commands += Command.single("useBuild") { (state, next) =>
      sys.props("rangejoin.build") = next
      "reload" :: state
    }
  )

// Proof from outside: Spark's own join suites and SQL golden files, from the test jars Spark
// publishes, run with the plugin installed (make test-spark-suites, make conformance). A release
// in PYSPARK_JARS has no test jars on Maven Central, so this project serves the other builds.
lazy val sparkTests = (project in file("scala/src/spark-tests"))
  .dependsOn(root)
  .settings(
    name := "rangejoin-spark-tests",
    publish / skip := true,
    // Spark's releases bring a newer scala-library than the one the plugin compiles with; Spark's
    // tests run on Spark's.
    allowUnsafeScalaLibUpgrade := true,
    target := baseDirectory.value / ".." / ".." / ".." / "target" /
      s"spark-tests-$sparkVersion-$scalaBinary",
    Compile / scalaSource := baseDirectory.value / "scala",
    Compile / scalafmt / unmanagedSources := ((Compile / scalaSource).value ** "*.scala").get,
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:-unused,_"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion,
      ("org.apache.spark" %% "spark-sql" % sparkVersion).classifier("tests"),
      ("org.apache.spark" %% "spark-catalyst" % sparkVersion).classifier("tests"),
      ("org.apache.spark" %% "spark-core" % sparkVersion).classifier("tests"),
      "org.scalatest" %% "scalatest" % "3.2.19"
    ),
    run / fork := true,
    run / baseDirectory := (root / baseDirectory).value,
    // Spark's suites need a Spark home: their local-cluster executors find Spark's jars in its
    // jars/ folder (empty here: a test run gives executors the runner's own classpath), and
    // their Python UDF tests cancel themselves when it has no python/ folder and the Python
    // they are given has no pyspark.
    run / envVars := Map("PYSPARK_PYTHON" -> "python3", "SPARK_SCALA_VERSION" -> scalaBinary),
    run / javaOptions ++= {
      val home = (root / baseDirectory).value / "target" / "spark-tests-home"
      IO.createDirectory(home / "jars")
      Seq(s"-Dspark.test.home=$home", "-Xmx4g", "-Xss4m") ++ JavaModuleOptions.all ++
        Seq("-Dlog4j2.configurationFile=conf/log4j2.properties")
    },
    run / outputStrategy := Some(StdoutOutput)
  )

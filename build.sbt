// spark-rangejoin: a Spark Catalyst plugin for fast inequality joins.
// The Spark version comes from -Dspark.version (the Makefile passes it) so that the jar and the
// pinned pyspark always agree.
val sparkVersion = sys.props.getOrElse("spark.version", "4.2.0")

ThisBuild / scalaVersion := "2.13.16"
ThisBuild / organization := "io.github.rangejoin"
ThisBuild / version := "0.1.0"

lazy val root = (project in file("."))
  .settings(
    name := "rangejoin",
    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Test / scalaSource := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:-unused,_"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    // The jar name carries the Spark version it was built against.
    Compile / packageBin / artifactPath :=
      target.value / s"rangejoin-spark$sparkVersion-${version.value}.jar",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= Seq("-Xmx4g", "-Dlog4j2.configurationFile=conf/log4j2.properties") ++
      JavaModuleOptions.all,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
  )

// spark-rangejoin: a Spark Catalyst plugin for fast inequality joins.
// The Spark version comes from -Dspark.version (the Makefile passes it) so that the jar and the
// pinned pyspark always agree.
val sparkVersion = sys.props.getOrElse("spark.version", "4.2.0")
val sparkMinor = sparkVersion.split('.').take(2).mkString(".")

ThisBuild / scalaVersion := "2.13.16"
ThisBuild / organization := "io.github.rangejoin"
ThisBuild / version := "0.1.0"

lazy val root = (project in file("."))
  .settings(
    // Published (make publish-local) as io.github.rangejoin:rangejoin-spark<minor>_<scala>.
    name := "rangejoin",
    moduleName := s"rangejoin-spark$sparkMinor",
    Compile / packageDoc / publishArtifact := false,
    // make publish-local runs again after every build: the new jar replaces the old one.
    publishM2Configuration := publishM2Configuration.value.withOverwrite(true),
    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Test / scalaSource := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:-unused,_"),
    // Spark brings Scala's library: the pom names it provided, so --packages adds no second copy.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ),
    // rangejoin_version() reads the build's version and its Spark version from the jar.
    Compile / resourceGenerators += Def.task {
      val file = (Compile / resourceManaged).value / "rangejoin" / "build.properties"
      IO.write(file, s"version=${version.value}\nspark.version=$sparkVersion\n")
      Seq(file)
    }.taskValue,
    // The jar name carries the Spark version it was built against.
    Compile / packageBin / artifactPath :=
      target.value / s"rangejoin-spark$sparkVersion-${version.value}.jar",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= Seq("-Xmx4g", "-Dlog4j2.configurationFile=conf/log4j2.properties") ++
      JavaModuleOptions.all,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
  )

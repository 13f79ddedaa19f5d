# spark-rangejoin: every target installs what it needs first, so a fresh clone only runs
# `make demo` or `make test`.
# The project's version and its builds are written once, in versions.properties: VERSION,
# DEFAULT_BUILD, SPARK_BUILDS, WHEEL_BUILDS and PYSPARK_JARS (see that file).
include versions.properties
spark_of       = $(word 1,$(subst _, ,$(1)))
SPARK_VERSION := $(call spark_of,$(DEFAULT_BUILD))
OTHER_BUILDS  := $(filter-out $(DEFAULT_BUILD),$(SPARK_BUILDS))
SBT_VERSION   := $(shell sed -n 's/^sbt.version=//p' project/build.properties)
PYTHON        ?= python3
VENV          := .venv
PY            := $(VENV)/bin/python
TOOLS         := .tools
SBT_LAUNCHER  := $(TOOLS)/sbt-launch-$(SBT_VERSION).jar
jar_of         = target/rangejoin-spark$(1)-$(VERSION).jar
JAR           := $(call jar_of,$(DEFAULT_BUILD))
PKG_JAR_DIR   := python/rangejoin/jars
STAMP_PY      := $(VENV)/.installed-$(SPARK_VERSION)
STAMP_PKG     := $(VENV)/.rangejoin-installed
SCALA_SOURCES := $(shell find scala/src/main scala/src/shims -name "*.scala" 2>/dev/null) build.sbt \
  versions.properties $(wildcard project/*.sbt project/*.scala)
PY_SOURCES    := $(shell find python -name '*.py' -o -name 'pyproject.toml' 2>/dev/null)

# sbt only reaches Maven Central: project/repositories plus sbt.override.build.repos.
SBT_JVM := java -Xmx3g -Xss4m \
  -Dsbt.override.build.repos=true \
  -Dsbt.repository.config=project/repositories \
  -Dsbt.boot.directory=$(TOOLS)/sbt-boot \
  -Dsbt.global.base=$(TOOLS)/sbt-global \
  -Dsbt.ivy.home=$(TOOLS)/ivy \
  -Dsbt.coursier.home=$(TOOLS)/coursier \
  -Dsbt.server.forcestart=false -Dsbt.log.noformat=true -Dsbt.supershell=false
# sbt for one build (build.sbt reads the rest from versions.properties); within one sbt JVM,
# `useBuild <build>` switches builds, so a recipe passes several builds' commands to one sbt.
pyspark_jars_of = $(if $(filter $(call spark_of,$(1)),$(PYSPARK_JARS)),$(TOOLS)/pyspark-$(call spark_of,$(1))/jars)
sbt_for    = $(SBT_JVM) -Drangejoin.build=$(1) -jar $(SBT_LAUNCHER)
# Each build's commands, for one sbt JVM: $(call each_build,<builds>,<sbt commands>).
each_build = $(foreach b,$(1),"useBuild $(b)" $(2))
SBT := $(call sbt_for,$(DEFAULT_BUILD))

export PYSPARK_PYTHON := $(abspath $(PY))
export SPARK_VERSION

.PHONY: build jars package-jars dist publish-local demo test test-quick test-scala test-versions \
  test-spark-suites conformance test-python fuzz bench bench-suite bench-defaults bench-grid bench-scale bench-stream fmt lint docs \
  config-docs clean

## build: venv, sbt, the jar, and the rangejoin package with the jar inside it.
build: $(STAMP_PKG)

$(SBT_LAUNCHER):
	mkdir -p $(TOOLS)
	mvn -q dependency:copy -Dartifact=org.scala-sbt:sbt-launch:$(SBT_VERSION) \
	  -DoutputDirectory=$(TOOLS) -Dmdep.stripVersion=true
	mv $(TOOLS)/sbt-launch.jar $@

$(STAMP_PY): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt "pyspark==$(SPARK_VERSION)"
	touch $@

# A build's jar; a release in PYSPARK_JARS first needs its pyspark's jars. Both are kept
# (make would delete what a pattern rule made on the way to another target).
.SECONDEXPANSION:
.PRECIOUS: target/rangejoin-spark%-$(VERSION).jar $(TOOLS)/pyspark-%/jars
# sbt leaves a jar whose classes did not change as it was: touch it, or make would run sbt again.
target/rangejoin-spark%-$(VERSION).jar: $(SBT_LAUNCHER) $(SCALA_SOURCES) $$(call pyspark_jars_of,$$*)
	$(call sbt_for,$*) package
	touch $@

# The jars inside pyspark's source package (pip download; no other host).
$(TOOLS)/pyspark-%/jars: | $(STAMP_PY)
	rm -rf $(TOOLS)/pyspark-$* && mkdir -p $(TOOLS)/pyspark-$*
	$(PY) -m pip download -q --no-deps --no-binary :all: "pyspark==$*" -d $(TOOLS)/pyspark-$*
	tar -xzf $(TOOLS)/pyspark-$*/pyspark-$*.tar.gz -C $(TOOLS)/pyspark-$* --strip-components=2 \
	  --wildcards 'pyspark-$*/deps/jars/*'
	rm $(TOOLS)/pyspark-$*/pyspark-$*.tar.gz

PYSPARK_JAR_DIRS := $(foreach b,$(SPARK_BUILDS),$(call pyspark_jars_of,$(b)))

## jars: the jar of every build in SPARK_BUILDS, built in one sbt JVM.
jars: $(SBT_LAUNCHER) $(PYSPARK_JAR_DIRS)
	$(SBT) $(call each_build,$(SPARK_BUILDS),package)
	touch $(foreach b,$(SPARK_BUILDS),$(call jar_of,$(b)))

# The package carries the jar of each build in WHEEL_BUILDS that is built; make build builds the
# default one, make dist all of them.
$(STAMP_PKG): $(STAMP_PY) $(JAR) $(PY_SOURCES) LICENSE
	$(MAKE) package-jars
	$(VENV)/bin/pip install -q --no-deps --force-reinstall ./python
	touch $@

package-jars:
	rm -rf $(PKG_JAR_DIR) && mkdir -p $(PKG_JAR_DIR)
	cp $(wildcard $(foreach b,$(WHEEL_BUILDS),$(call jar_of,$(b)))) $(PKG_JAR_DIR)/

## dist: the wheel (a jar for each pyspark line inside) and the sdist of the package, in dist/.
dist: build $(foreach b,$(WHEEL_BUILDS),$(call jar_of,$(b)))
	$(MAKE) package-jars
	$(VENV)/bin/pip install -q --no-deps --force-reinstall ./python
	rm -rf dist python/build && mkdir -p dist
	$(VENV)/bin/pip wheel -q --no-deps --no-build-isolation -w dist ./python
	cd python && ../$(PY) -m build --sdist --no-isolation --outdir ../dist .

## publish-local: every build's jar and pom in the local Maven repository (~/.m2/repository),
## as io.github.rangejoin:rangejoin-spark<minor>_<scala>:<version>, for spark-submit --packages.
publish-local: $(SBT_LAUNCHER) build $(PYSPARK_JAR_DIRS)
	$(SBT) $(call each_build,$(SPARK_BUILDS),publishM2)

## demo: the 1M-row employees anomaly self-join, accelerated and vanilla.
demo: build
	cd benchmarks && ../$(PY) demo.py

## test: everything, as CI runs it: the Scala suites on the default build, the smoke set on every
## other build, Spark's own join suites and SQL golden files with the plugin on, then pytest (the
## package, then Spark jobs: spark-submit, local-cluster, the wheel in fresh virtualenvs, Spark
## Connect, every snippet of the README and the user guide). Each part prints how long it took.
TEST_PARTS := test-scala test-versions test-spark-suites conformance test-python
test:
	@for part in $(TEST_PARTS); do start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$part || exit 1; \
	  echo "== make $$part took $$(( $$(date +%s) - start )) s"; done

## test-quick: the everyday loop: the Scala unit suites and a differential smoke
## on the default build, then the package tests (no Spark job).
QUICK_SUITES  := rangejoin.local.* rangejoin.condition.* rangejoin.execution.* rangejoin.planning.* \
  rangejoin.DifferentialSuite rangejoin.PairFreeAggregatesSuite rangejoin.LayeringSuite \
  rangejoin.config.*
QUICK_QUERIES ?= 40
test-quick: $(SBT_LAUNCHER) build
	RANGEJOIN_FUZZ_QUERIES=$(QUICK_QUERIES) $(SBT) "testOnly $(QUICK_SUITES)"
	$(PY) -m pytest -q tests/package

test-scala: $(SBT_LAUNCHER) build
	dev/failures_at_end.sh target/logs/test-scala.log $(SBT) test

# The smoke set on each other build, all in one sbt JVM: the tests of SMOKE_SUITES tagged
# rangejoin.EveryLine (every operator and join type, differentially, with fewer random queries;
# broadcast, streaming, SQL as-of and EXPLAIN).
SMOKE_SUITES := rangejoin.DifferentialSuite rangejoin.BroadcastRangeJoinSuite \
  rangejoin.KeyedJoinSuite rangejoin.AsOfJoinSuite rangejoin.StreamingSuite \
  rangejoin.NestedBlockJoinsSuite rangejoin.PairFreeAggregatesSuite
SMOKE := testOnly $(SMOKE_SUITES) -- -n rangejoin.EveryLine
SMOKE_QUERIES ?= 30
test-versions: $(SBT_LAUNCHER) $(PYSPARK_JAR_DIRS)
	RANGEJOIN_FUZZ_QUERIES=$(SMOKE_QUERIES) dev/failures_at_end.sh target/logs/test-versions.log \
	  $(SBT) $(call each_build,$(OTHER_BUILDS),package "$(SMOKE)")
	touch $(foreach b,$(OTHER_BUILDS),$(call jar_of,$(b)))

## test-build-<build>: one build's smoke set, e.g. make test-build-4.1.3_2.13.
test-build-%: $$(call jar_of,$$*)
	RANGEJOIN_FUZZ_QUERIES=$(SMOKE_QUERIES) $(call sbt_for,$*) "$(SMOKE)"

## test-spark-suites: Spark's own join suites, from the test jars Spark publishes, with the plugin
## installed in their sessions: every suite on the default build, SPARK_SMOKE_SUITES on one build
## of each other Spark line that has test jars (the releases in PYSPARK_JARS have none). Writes
## docs/testing/spark-suites.md.
SPARK_SUITES := org.apache.spark.sql.JoinSuite org.apache.spark.sql.DataFrameJoinSuite \
  org.apache.spark.sql.JoinHintSuite org.apache.spark.sql.DataFrameAsOfJoinSuite \
  org.apache.spark.sql.DataFrameNearestByJoinSuite org.apache.spark.sql.DataFrameSelfJoinSuite \
  org.apache.spark.sql.execution.joins.InnerJoinSuite org.apache.spark.sql.execution.joins.OuterJoinSuite \
  org.apache.spark.sql.execution.joins.ExistenceJoinSuite org.apache.spark.sql.execution.joins.SingleJoinSuite \
  org.apache.spark.sql.execution.joins.BroadcastJoinSuite org.apache.spark.sql.execution.joins.BroadcastJoinSuiteAE
# On the other builds, the suites whose queries the plugin plans (the others build Spark's
# physical operators directly).
SPARK_SMOKE_SUITES := org.apache.spark.sql.JoinSuite org.apache.spark.sql.DataFrameAsOfJoinSuite
# One build of each other Spark line (WHEEL_BUILDS has one), with test jars.
TEST_JAR_BUILDS := $(foreach b,$(filter $(WHEEL_BUILDS),$(OTHER_BUILDS)),\
  $(if $(filter $(call spark_of,$(b)),$(PYSPARK_JARS)),,$(b)))
OUTSIDE := target/outside
test-spark-suites: $(SBT_LAUNCHER) build
	rm -f $(OUTSIDE)/spark-suites-*.json
	$(SBT) "sparkTests/runMain rangejoin.outside.SparkSuites $(OUTSIDE)/spark-suites-$(DEFAULT_BUILD).json $(SPARK_SUITES)" \
	  $(foreach b,$(TEST_JAR_BUILDS),"useBuild $(b)" \
	    "sparkTests/runMain rangejoin.outside.SparkSuites $(OUTSIDE)/spark-suites-$(b).json $(SPARK_SMOKE_SUITES)")
	$(PY) dev/outside_pages.py spark-suites

## conformance: Spark's SQL golden files for joins and correlated subqueries (CONFORMANCE_FILES,
## from the default build's test jar), replayed with the plugin on against the recorded answers
## and against the plugin off. Writes docs/testing/conformance.md.
CONFORMANCE_FILES := postgreSQL/join.sql join-empty-relation.sql natural-join.sql cross-join.sql \
  inner-join.sql outer-join.sql using-join.sql join-nearest-by.sql \
  $(addprefix subquery/exists-subquery/,exists-aggregate.sql exists-basic.sql exists-count-bug.sql \
    exists-cte.sql exists-having.sql exists-in-join-condition.sql exists-joins-and-set-ops.sql \
    exists-orderby-limit.sql exists-outside-filter.sql exists-within-and-or.sql) \
  $(addprefix subquery/in-subquery/,in-basic.sql in-count-bug.sql in-group-by.sql in-having.sql \
    in-joins.sql in-limit.sql in-multiple-columns.sql in-null-semantics.sql in-nullability.sql \
    in-order-by.sql in-set-operations.sql in-subquery-in-join-condition.sql in-with-cte.sql \
    nested-not-in.sql not-in-group-by.sql not-in-joins.sql \
    not-in-unit-tests-multi-column-literal.sql not-in-unit-tests-multi-column.sql \
    not-in-unit-tests-single-column-literal.sql not-in-unit-tests-single-column.sql simple-in.sql) \
  subquery/scalar-subquery/scalar-subquery-predicate.sql
conformance: $(SBT_LAUNCHER) build
	rm -f $(OUTSIDE)/conformance-*.json
	$(SBT) "sparkTests/runMain rangejoin.outside.Conformance $(OUTSIDE)/conformance-$(DEFAULT_BUILD).json $(CONFORMANCE_FILES)"
	$(PY) dev/outside_pages.py conformance

# tests/package (no Spark job) first, then tests/integration (Spark jobs); see pytest.ini.
test-python: build dist publish-local
	$(PY) -m pytest -q tests/package
	$(PY) -m pytest -q tests/integration

## fuzz: the differential suites with many more random queries (FUZZ_QUERIES, FUZZ_FIRST_SEED): the
## harness's block and keyed joins, the broadcast range join, the pair-free counts, and the as-of
## join (a tenth of the count: each of its queries costs more).
FUZZ_QUERIES    ?= 3000
FUZZ_FIRST_SEED ?= 1000
FUZZ_SUITES     := rangejoin.DifferentialSuite rangejoin.BroadcastRangeJoinSuite \
  rangejoin.PairFreeAggregatesSuite rangejoin.AsOfJoinSuite
fuzz: $(SBT_LAUNCHER) build
	RANGEJOIN_FUZZ_QUERIES=$(FUZZ_QUERIES) RANGEJOIN_FUZZ_FIRST_SEED=$(FUZZ_FIRST_SEED) \
	  dev/failures_at_end.sh target/logs/fuzz.log $(SBT) "testOnly $(FUZZ_SUITES)"

## Every bench target writes its page of the documentation, docs/benchmarks/<name>.md, whole: a
## header with the date, the machine, the versions, the commit and the command, then its tables.

## bench-suite: the benchmark suite at SCALE (rows x SCALE): every workload on vanilla Spark
## (capped at BENCH_CAP seconds), spark-rangejoin and DuckDB, answers checked; the README's
## headline from its anomaly row. Writes docs/benchmarks/suite.md, suite.csv and scaling.png.
SCALE     ?= 1
BENCH_CAP ?= 30
bench-suite: build
	cd benchmarks && ../$(PY) suite.py --scale $(SCALE) --cap $(BENCH_CAP)
	$(PY) benchmarks/headline.py README.md

## bench: bench-suite, then the "never slower" grid (bench-grid).
bench: bench-suite
	$(MAKE) bench-grid

## bench-workloads: the workloads users bring, at their sizes (IP to geolocation 40M x 3.5M, SCD2,
## as-of 10M x 10M, genomic overlap, the 35M x 365 date spine, a 10M x 10M tolerance band, a
## count of 2.5e9 pairs) on spark-rangejoin, vanilla Spark (capped at WORKLOADS_CAP seconds),
## DuckDB and the hand-written Spark rewrite, answers checked; writes
## docs/benchmarks/workloads.md and workloads.csv.
WORKLOADS_CAP ?= 60
bench-workloads: build
	cd benchmarks && ../$(PY) suite.py --set users --cap $(WORKLOADS_CAP) --curves ''

## bench-defaults: the crossovers behind the defaults of spark.rangejoin.minCandidatePairs,
## minSmallSideRows, keyed.minCandidatePairs and broadcast.ratioAboveRows; writes
## docs/benchmarks/defaults.md.
bench-defaults: build
	cd benchmarks && ../$(PY) defaults.py

## bench-grid: the "never slower" grid, plugin on against off (GRID_BIG: rows of the big side);
## writes docs/benchmarks/never_slower.md.
GRID_BIG ?= 1000000,5000000
bench-grid: build
	cd benchmarks && ../$(PY) never_slower.py --big $(GRID_BIG)

## bench-stream: micro-batches of a stream-static range join (rate source against 1M static
## ranges): the plugin off, on with the static side read each micro-batch, on with it cached;
## writes docs/benchmarks/stream.md.
bench-stream: build
	cd benchmarks && ../$(PY) stream_static_benchmark.py

## bench-scale: 20M x 20M band joins (a hot value, a hot equality key) in a 2 GiB driver, checked
## by an equi-join, on each master of SCALE_MASTERS (local-cluster[2,1,1024]: two 1 GiB executor
## JVMs); writes docs/benchmarks/scale.md.
SCALE_MASTERS ?= local[2]
bench-scale: build
	cd benchmarks && ../$(PY) scale_benchmark.py $(foreach m,$(SCALE_MASTERS),--master "$(m)")

# One scalafmt run sees every source: build.sbt hands it the shim folders of every Spark line.
PY_DIRS := python tests benchmarks dev

fmt: $(SBT_LAUNCHER) $(STAMP_PY)
	$(SBT) scalafmtAll scalafmtSbt sparkTests/scalafmt
	$(VENV)/bin/ruff format $(PY_DIRS)

## lint: scalafmt and ruff, and no development history in the product's files.
lint: $(SBT_LAUNCHER) $(STAMP_PY)
	$(PY) dev/check_history.py
	$(VENV)/bin/ruff check $(PY_DIRS)
	$(VENV)/bin/ruff format --check $(PY_DIRS)
	$(SBT) scalafmtCheckAll scalafmtSbtCheck sparkTests/scalafmtCheck

## docs: the documentation site, built with mkdocs --strict into target/site (a broken link, a
## missing page or a stale generated page fails).
docs: $(STAMP_PY)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

## config-docs: docs/configuration.md, generated from RangeJoinConf.
config-docs: $(SBT_LAUNCHER) $(STAMP_PY)
	$(SBT) "Test/runMain rangejoin.config.ConfigReference docs/configuration.md"

clean:
	rm -rf target project/target project/project $(PKG_JAR_DIR) $(VENV) dist

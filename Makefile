# spark-rangejoin: every target installs what it needs first, so a fresh clone only runs
# `make demo` or `make test`.
SPARK_VERSION := 4.2.0
SCALA_BINARY  := 2.13
# Every build, <Spark release>_<Scala version>: one jar each, target/rangejoin-spark<build>-0.1.0.jar.
# The default build (above) runs the whole test suite and the demo; the others a smoke set.
SPARK_BUILDS  := 3.5.8_2.12 3.5.8_2.13 4.0.4_2.13 4.1.3_2.13 4.2.0_2.13 4.3.0_2.13
# The wheel carries a jar for each line PyPI's pyspark runs (pyspark 3.5 is built for Scala 2.12).
WHEEL_BUILDS  := 3.5.8_2.12 4.0.4_2.13 4.1.3_2.13 4.2.0_2.13 4.3.0_2.13
# Releases whose jars Maven Central does not serve: compiled against the jars inside their pyspark.
PYSPARK_JARS  := 4.3.0
SBT_VERSION   := $(shell sed -n 's/^sbt.version=//p' project/build.properties)
PYTHON        ?= python3
VENV          := .venv
PY            := $(VENV)/bin/python
TOOLS         := .tools
SBT_LAUNCHER  := $(TOOLS)/sbt-launch-$(SBT_VERSION).jar
DEFAULT_BUILD := $(SPARK_VERSION)_$(SCALA_BINARY)
jar_of         = target/rangejoin-spark$(1)-0.1.0.jar
JAR           := $(call jar_of,$(DEFAULT_BUILD))
PKG_JAR_DIR   := python/rangejoin/jars
STAMP_PY      := $(VENV)/.installed-$(SPARK_VERSION)
STAMP_PKG     := $(VENV)/.rangejoin-installed
SCALA_SOURCES := $(shell find scala/src/main scala/src/shims -name "*.scala" 2>/dev/null) build.sbt \
  $(wildcard project/*.sbt project/*.scala)
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
# sbt for one build: its Spark and Scala versions, and the pyspark jars it compiles against if any.
spark_of   = $(word 1,$(subst _, ,$(1)))
scala_of   = $(word 2,$(subst _, ,$(1)))
pyspark_jars_of = $(if $(filter $(call spark_of,$(1)),$(PYSPARK_JARS)),$(TOOLS)/pyspark-$(call spark_of,$(1))/jars)
sbt_for    = $(SBT_JVM) -Dspark.version=$(call spark_of,$(1)) -Dscala.binary=$(call scala_of,$(1)) \
  $(if $(call pyspark_jars_of,$(1)),-Dspark.jars.dir=$(call pyspark_jars_of,$(1))) -jar $(SBT_LAUNCHER)
SBT := $(call sbt_for,$(DEFAULT_BUILD))

export PYSPARK_PYTHON := $(abspath $(PY))
export SPARK_VERSION

.PHONY: build jars package-jars dist publish-local demo test test-scala test-versions test-python fuzz bench bench-defaults bench-grid bench-scale bench-stream fmt lint clean

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
.PRECIOUS: target/rangejoin-spark%-0.1.0.jar $(TOOLS)/pyspark-%/jars
# sbt leaves a jar whose classes did not change as it was: touch it, or make would run sbt again.
target/rangejoin-spark%-0.1.0.jar: $(SBT_LAUNCHER) $(SCALA_SOURCES) $$(call pyspark_jars_of,$$*)
	$(call sbt_for,$*) package
	touch $@

# The jars inside pyspark's source package (pip download; no other host).
$(TOOLS)/pyspark-%/jars: | $(STAMP_PY)
	rm -rf $(TOOLS)/pyspark-$* && mkdir -p $(TOOLS)/pyspark-$*
	$(PY) -m pip download -q --no-deps --no-binary :all: "pyspark==$*" -d $(TOOLS)/pyspark-$*
	tar -xzf $(TOOLS)/pyspark-$*/pyspark-$*.tar.gz -C $(TOOLS)/pyspark-$* --strip-components=2 \
	  --wildcards 'pyspark-$*/deps/jars/*'
	rm $(TOOLS)/pyspark-$*/pyspark-$*.tar.gz

## jars: the jar of every build in SPARK_BUILDS.
jars: $(foreach b,$(SPARK_BUILDS),$(call jar_of,$(b)))

# The package carries the jar of each build in WHEEL_BUILDS that is built; make build builds the
# default one, make dist all of them.
$(STAMP_PKG): $(STAMP_PY) $(JAR) $(PY_SOURCES)
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
publish-local: $(SBT_LAUNCHER) build jars
	$(foreach b,$(SPARK_BUILDS),$(call sbt_for,$(b)) publishM2 &&) true

## demo: the 1M-row employees anomaly self-join, accelerated and vanilla.
demo: build
	cd benchmarks && ../$(PY) demo.py

## test: Scala suites (differential against vanilla Spark) on the default build, a smoke set on
## every other build, then pytest.
test: test-scala test-versions test-python

test-scala: $(SBT_LAUNCHER) build
	$(SBT) test

# Every operator and join type, differentially, on one build (with fewer random queries).
SMOKE_SUITES := rangejoin.DifferentialSuite rangejoin.BroadcastRangeJoinSuite \
  rangejoin.KeyedJoinSuite rangejoin.AsOfJoinSuite rangejoin.StreamingSuite rangejoin.LayeringSuite
SMOKE_QUERIES ?= 100
test-versions: $(foreach b,$(filter-out $(DEFAULT_BUILD),$(SPARK_BUILDS)),test-build-$(b))

test-build-%: $$(call jar_of,$$*)
	RANGEJOIN_FUZZ_QUERIES=$(SMOKE_QUERIES) $(call sbt_for,$*) "testOnly $(SMOKE_SUITES)"

# tests/package (no Spark job) first, then tests/integration (Spark jobs); see pytest.ini.
test-python: build dist publish-local
	$(PY) -m pytest -q tests/package
	$(PY) -m pytest -q tests/integration

## fuzz: the differential harness with many more random queries (FUZZ_QUERIES, FUZZ_FIRST_SEED), on
## the block joins and on the broadcast range join.
FUZZ_QUERIES    ?= 3000
FUZZ_FIRST_SEED ?= 1000
fuzz: $(SBT_LAUNCHER) build
	RANGEJOIN_FUZZ_QUERIES=$(FUZZ_QUERIES) RANGEJOIN_FUZZ_FIRST_SEED=$(FUZZ_FIRST_SEED) \
	  $(SBT) "testOnly rangejoin.DifferentialSuite rangejoin.BroadcastRangeJoinSuite"

## bench: the benchmark suite at SCALE (rows x SCALE): every workload on vanilla Spark (capped at
## BENCH_CAP seconds), spark-rangejoin and DuckDB, answers checked; then the "never slower" grid
## (bench-grid). Writes benchmarks/results/suite.md, suite.csv, scaling.png and never_slower.md.
SCALE     ?= 1
BENCH_CAP ?= 30
bench: build
	cd benchmarks && ../$(PY) suite.py --scale $(SCALE) --cap $(BENCH_CAP)
	$(MAKE) bench-grid

## bench-defaults: the crossovers behind the defaults of spark.rangejoin.minCandidatePairs,
## spark.rangejoin.keyed.minCandidatePairs and spark.rangejoin.broadcast.ratioAboveRows.
bench-defaults: build
	cd benchmarks && ../$(PY) tiny_side_benchmark.py && ../$(PY) keyed_crossover_benchmark.py \
		&& ../$(PY) broadcast_or_block.py

## bench-grid: the "never slower" grid, plugin on against off (GRID_BIG: rows of the big side);
## writes benchmarks/results/never_slower.md.
GRID_BIG ?= 1000000,5000000
bench-grid: build
	cd benchmarks && ../$(PY) never_slower.py --big $(GRID_BIG)

## bench-stream: one micro-batch of a stream-static range join (rate source against 1M static
## ranges): the plugin off, on with the static side read each micro-batch, on with it cached.
bench-stream: build
	cd benchmarks && ../$(PY) stream_static_benchmark.py

## bench-scale: 20M x 20M band joins (a hot value, a hot equality key) in a 2 GiB driver, checked by an
## equi-join; SCALE_MASTER=local-cluster[2,1,1024] runs them on two 1 GiB executor JVMs.
SCALE_MASTER ?= local[2]
bench-scale: build
	cd benchmarks && ../$(PY) scale_benchmark.py --master "$(SCALE_MASTER)"

# scalafmt sees the shim folders of the build sbt loads: each Maven-served build in turn.
FMT_BUILDS := $(filter-out $(foreach v,$(PYSPARK_JARS),$(v)_%),$(SPARK_BUILDS))

fmt: $(SBT_LAUNCHER) $(STAMP_PY)
	$(foreach b,$(FMT_BUILDS),$(call sbt_for,$(b)) scalafmtAll scalafmtSbt &&) true
	$(VENV)/bin/ruff format python tests benchmarks

lint: $(SBT_LAUNCHER) $(STAMP_PY)
	$(foreach b,$(FMT_BUILDS),$(call sbt_for,$(b)) scalafmtCheckAll scalafmtSbtCheck &&) true
	$(VENV)/bin/ruff check python tests benchmarks
	$(VENV)/bin/ruff format --check python tests benchmarks

clean:
	rm -rf target project/target project/project $(PKG_JAR_DIR) $(VENV) dist

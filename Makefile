# spark-rangejoin: every target installs what it needs first, so a fresh clone only runs
# `make demo` or `make test`.
SPARK_VERSION := 4.2.0
SBT_VERSION   := $(shell sed -n 's/^sbt.version=//p' project/build.properties)
PYTHON        ?= python3
VENV          := .venv
PY            := $(VENV)/bin/python
TOOLS         := .tools
SBT_LAUNCHER  := $(TOOLS)/sbt-launch-$(SBT_VERSION).jar
JAR           := target/rangejoin-spark$(SPARK_VERSION)-0.1.0.jar
PKG_JAR_DIR   := python/rangejoin/jars
STAMP_PY      := $(VENV)/.installed-$(SPARK_VERSION)
STAMP_PKG     := $(VENV)/.rangejoin-installed
SCALA_SOURCES := $(shell find scala/src/main -name "*.scala" 2>/dev/null) build.sbt $(wildcard project/*.sbt project/*.scala)
PY_SOURCES    := $(shell find python -name '*.py' -o -name 'pyproject.toml' 2>/dev/null)

# sbt only reaches Maven Central: project/repositories plus sbt.override.build.repos.
SBT := java -Xmx3g -Xss4m \
  -Dsbt.override.build.repos=true \
  -Dsbt.repository.config=project/repositories \
  -Dsbt.boot.directory=$(TOOLS)/sbt-boot \
  -Dsbt.global.base=$(TOOLS)/sbt-global \
  -Dsbt.ivy.home=$(TOOLS)/ivy \
  -Dsbt.coursier.home=$(TOOLS)/coursier \
  -Dsbt.server.forcestart=false -Dsbt.log.noformat=true -Dsbt.supershell=false \
  -Dspark.version=$(SPARK_VERSION) \
  -jar $(SBT_LAUNCHER)

export PYSPARK_PYTHON := $(abspath $(PY))
export SPARK_VERSION

.PHONY: build dist publish-local demo test test-scala test-python fuzz bench bench-defaults bench-grid bench-scale bench-stream fmt lint clean

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

$(JAR): $(SBT_LAUNCHER) $(SCALA_SOURCES)
	$(SBT) package

$(STAMP_PKG): $(STAMP_PY) $(JAR) $(PY_SOURCES)
	rm -rf $(PKG_JAR_DIR) && mkdir -p $(PKG_JAR_DIR)
	cp $(JAR) $(PKG_JAR_DIR)/
	echo "$(SPARK_VERSION)" > $(PKG_JAR_DIR)/SPARK_VERSION
	$(VENV)/bin/pip install -q --no-deps --force-reinstall ./python
	touch $@

## dist: the wheel (jar inside) and the sdist of the rangejoin package, in dist/.
dist: build
	rm -rf dist python/build && mkdir -p dist
	$(VENV)/bin/pip wheel -q --no-deps --no-build-isolation -w dist ./python
	cd python && ../$(PY) -m build --sdist --no-isolation --outdir ../dist .

## publish-local: the jar and its pom in the local Maven repository (~/.m2/repository), as
## io.github.rangejoin:rangejoin-spark<minor>_2.13:<version>, for spark-submit --packages.
publish-local: $(SBT_LAUNCHER) build
	$(SBT) publishM2

## demo: the 1M-row employees anomaly self-join, accelerated and vanilla.
demo: build
	cd benchmarks && ../$(PY) demo.py

## test: Scala suites (differential against vanilla Spark), then pytest.
test: test-scala test-python

test-scala: $(SBT_LAUNCHER) build
	$(SBT) test

# tests/package (no Spark job) first, then tests/integration (Spark jobs); see pytest.ini.
test-python: build publish-local
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

## bench-defaults: the crossovers behind the defaults of spark.rangejoin.minCandidatePairs and
## spark.rangejoin.keyed.minCandidatePairs.
bench-defaults: build
	cd benchmarks && ../$(PY) tiny_side_benchmark.py && ../$(PY) keyed_crossover_benchmark.py

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

fmt: $(SBT_LAUNCHER) $(STAMP_PY)
	$(SBT) scalafmtAll scalafmtSbt
	$(VENV)/bin/ruff format python tests benchmarks

lint: $(SBT_LAUNCHER) $(STAMP_PY)
	$(SBT) scalafmtCheckAll scalafmtSbtCheck
	$(VENV)/bin/ruff check python tests benchmarks
	$(VENV)/bin/ruff format --check python tests benchmarks

clean:
	rm -rf target project/target project/project $(PKG_JAR_DIR) $(VENV) dist

"""Runs the ```python and ```sql snippets of the documentation pages as written.

What a page may rely on:

* Each page runs in one fresh Python process whose working directory holds small Parquet files
  (FIXTURES below; written with pyarrow, the same rows every time), so a snippet reads
  ``spark.read.parquet("employees.parquet")`` or ``FROM employees``.
* The ```python blocks of a page run in order in one namespace: a later block sees the names an
  earlier one defined. The snippets create ``spark`` themselves. A block whose first line starts
  with ``>>>`` is an interactive session: its ``>>>`` and ``...`` lines run, the lines after them
  (the output shown) are not compared.
* A ```sql block runs statement by statement (split on ``;``; parts that hold only comments are
  skipped), each by ``spark.sql(statement).collect()``: on the page's ``spark`` if a python block
  created one, else on a session of the runner's own (``rangejoin.session("local[2]")``). Before
  each SQL block every Parquet file of the working directory is registered as a temporary view
  named after the file (employees, events, a, b, ...).
* Other fences (sh, text, console, properties, scala, ...) are not run.
* Spark reads a spark-defaults.conf that turns the UI off (SPARK_CONF_DIR).

A failure names the page, the line of the block's fence, the line that failed and the error.
`python tests/docs_snippets.py [PAGE ...]` runs pages (default: all of PAGE_GLOBS) outside pytest.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The pages whose snippets run, relative to the repository.
PAGE_GLOBS = ("README.md", "docs/getting-started.md", "docs/index.md", "docs/user-guide/*.md")
LANGUAGES = {"python": "python", "py": "python", "python3": "python", "sql": "sql"}
TIMEOUT_SECONDS = 900
# The child process announces each block on stdout, and its failure, after these markers.
BLOCK_MARK = "DOCS-SNIPPETS-BLOCK "
FAILURE_MARK = "DOCS-SNIPPETS-FAILURE "
RUNNER_CONF = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4"}


def python_executable() -> str:
    """The checkout's virtualenv's Python (where pyspark and rangejoin are), else this one."""
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def pages(repo: Path = REPO) -> list[Path]:
    """The documentation pages that exist, in PAGE_GLOBS order."""
    found: list[Path] = []
    for pattern in PAGE_GLOBS:
        for path in sorted(repo.glob(pattern)):
            if path.is_file() and path not in found:
                found.append(path)
    return found


def page_name(page: Path, repo: Path = REPO) -> str:
    """`page` relative to the repository when it is inside it."""
    try:
        return str(page.resolve().relative_to(repo))
    except ValueError:
        return str(page)


# ---------------------------------------------------------------------------------------------
# Extraction


@dataclass(frozen=True)
class Block:
    """A fenced code block that runs: its language, the page line (1-based) of its opening
    fence, and its text with the fence's indentation removed."""

    language: str
    line: int
    code: str

    @property
    def first_line(self) -> int:
        """The page line of the block's first line of code."""
        return self.line + 1


@dataclass(frozen=True)
class Statement:
    """One SQL statement of a block: the page line where it starts, and its text."""

    line: int
    text: str


class SnippetSyntaxError(ValueError):
    """A page whose fences cannot be read (a fence never closed)."""


_OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def _language(info: str) -> str:
    """The language of a fence's info string: its first word, without the braces or dot of
    attribute syntax (```python title="x"``, ```{.python}``), lower case."""
    words = info.strip().lstrip("{").split()
    return words[0].lstrip(".").rstrip("}").lower() if words else ""


def _dedent(line: str, indent: str) -> str:
    """`line` without up to len(indent) leading whitespace characters."""
    strip = 0
    while strip < len(indent) and strip < len(line) and line[strip] in " \t":
        strip += 1
    return line[strip:]


def extract_blocks(text: str, page: str = "<page>") -> list[Block]:
    """The blocks of a Markdown page that run: fences of three or more backticks or tildes,
    indented or not (in a list item, an admonition), whose language is python (py, python3)
    or sql. A fence closes with the same character repeated at least as often and nothing
    else on the line. Raises SnippetSyntaxError for a fence that is never closed."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        # A backtick fence's info string holds no backtick (that is inline code).
        if not opening or (opening["fence"][0] == "`" and "`" in opening["info"]):
            index += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            body.append(_dedent(lines[end], indent))
            end += 1
        if end == len(lines):
            raise SnippetSyntaxError(
                f"{page}:{index + 1}: the {fence} fence opened here is never closed"
            )
        language = LANGUAGES.get(_language(opening["info"]))
        if language:
            code = "\n".join(body) + ("\n" if body else "")
            blocks.append(Block(language, index + 1, code))
        index = end + 1
    return blocks


def python_source(block: Block) -> str:
    """The code of a python block, with as many blank lines before it as put its first line on
    the block's first page line, so that tracebacks give page lines. An interactive block (its
    first line starts with ``>>>``) keeps its ``>>>`` and ``...`` lines, without the prompts; the
    output lines after them become blank lines."""
    lines = block.code.splitlines()
    content = [line for line in lines if line.strip()]
    if content and content[0].lstrip().startswith(">>>"):
        converted = []
        for line in lines:
            stripped = line.lstrip()
            if stripped.startswith((">>> ", "... ")) or stripped in (">>>", "..."):
                converted.append(stripped[4:])
            else:
                converted.append("")
        lines = converted
    return "\n" * (block.first_line - 1) + "\n".join(lines) + "\n"


def _skip_quoted(sql: str, start: int) -> int:
    """The index after the quoted string or identifier that opens at `start`: '...', "..."
    (a backslash escapes the next character) or `...`; a doubled quote stays inside."""
    quote = sql[start]
    index = start + 1
    while index < len(sql):
        char = sql[index]
        if char == "\\" and quote != "`":
            index += 2
            continue
        if char == quote:
            if index + 1 < len(sql) and sql[index + 1] == quote:
                index += 2
                continue
            return index + 1
        index += 1
    return len(sql)


def split_sql(code: str, first_line: int = 1) -> list[Statement]:
    """The statements of a SQL block, split on the semicolons outside strings, quoted
    identifiers and comments (``--`` to the end of the line, ``/* ... */``, which holds hints
    such as ``/*+ BROADCAST(g) */``). A part with nothing but comments and blanks is no
    statement. Each statement starts at its first character outside a comment (leading comments
    are dropped) and carries its page line, `first_line` being the page line of the code's
    first line."""
    statements: list[Statement] = []
    first_code: int | None = None  # the current part's first character outside comments

    def close(end: int) -> None:
        if first_code is not None:
            text = code[first_code:end].strip()
            statements.append(Statement(first_line + code.count("\n", 0, first_code), text))

    index = 0
    while index < len(code):
        char = code[index]
        if code.startswith("--", index):
            newline = code.find("\n", index)
            index = len(code) if newline < 0 else newline
            continue
        if code.startswith("/*", index) and not code.startswith("/*+", index):
            end = code.find("*/", index + 2)
            index = len(code) if end < 0 else end + 2
            continue
        if char == ";":
            close(index)
            first_code = None
            index += 1
            continue
        if not char.isspace() and first_code is None:
            first_code = index
        if char in "'\"`":
            index = _skip_quoted(code, index)
        elif code.startswith("/*+", index):  # a hint belongs to its statement
            end = code.find("*/", index + 3)
            index = len(code) if end < 0 else end + 2
        else:
            index += 1
    close(len(code))
    return statements


# ---------------------------------------------------------------------------------------------
# Fixtures


def _dates(start: dt.date, offsets: list[int]) -> list[dt.date]:
    return [start + dt.timedelta(days=offset) for offset in offsets]


def fixture_tables() -> dict:
    """The tables the pages query, as pyarrow tables by file stem: a few hundred to a few
    thousand rows each, the same rows every time, with matches for every join shape of the
    pages (anomalies, bands, overlaps, points in ranges, as-of, type-2 dimensions)."""
    import pyarrow as pa

    rng = random.Random(20240301)
    tables = {}

    ids = list(range(1000))
    salary = [30000.0 + ((i * 7919) % 1000) * 70.0 for i in ids]
    # Tax grows with salary, with noise: a few thousand pairs pay less for a higher salary.
    tax = [round(s * 0.25 + rng.uniform(-100.0, 100.0), 2) for s in salary]
    tables["employees"] = pa.table(
        {"id": ids, "salary": salary, "tax": tax},
        schema=pa.schema([("id", pa.int64()), ("salary", pa.float64()), ("tax", pa.float64())]),
    )

    starts = [rng.randrange(0, 1_000_000) for _ in ids]
    ends = [start + rng.randrange(1, 1000) for start in starts]
    tables["events"] = pa.table(
        {"id": ids, "start": starts, "end": ends},
        schema=pa.schema([("id", pa.int64()), ("start", pa.int64()), ("end", pa.int64())]),
    )

    side_schema = pa.schema(
        [
            ("id", pa.int64()),
            ("v", pa.int64()),
            ("t", pa.int64()),
            ("k", pa.int64()),
            ("x", pa.float64()),
            ("day", pa.date32()),
        ]
    )
    for name, rows in (("a", 500), ("b", 400)):
        tables[name] = pa.table(
            {
                "id": list(range(rows)),
                "v": [rng.randrange(0, 20_000) for _ in range(rows)],
                "t": [rng.randrange(0, 20_000) for _ in range(rows)],
                "k": [i % 20 for i in range(rows)],
                "x": [round(rng.uniform(0.0, 100.0), 3) for _ in range(rows)],
                "day": _dates(dt.date(2024, 1, 1), [rng.randrange(0, 366) for _ in range(rows)]),
            },
            schema=side_schema,
        )

    tables["pings"] = pa.table(
        {"id": list(range(2000)), "ip": [rng.randrange(0, 4_000_000_000) for _ in range(2000)]},
        schema=pa.schema([("id", pa.int64()), ("ip", pa.int64())]),
    )
    countries = ["DE", "FR", "US", "JP", "BR", "IN", "NG", "AU", "CA", "MX"]
    geo_from = [i * 20_000_000 for i in range(200)]
    tables["geo"] = pa.table(
        {
            "ip_from": geo_from,
            "ip_to": [start + 15_000_000 for start in geo_from],  # a quarter of the space unmapped
            "country": [countries[i % len(countries)] for i in range(200)],
        },
        schema=pa.schema(
            [("ip_from", pa.int64()), ("ip_to", pa.int64()), ("country", pa.string())]
        ),
    )

    tables["facts"] = pa.table(
        {
            "id": list(range(500)),
            "k": [i % 20 for i in range(500)],
            "day": _dates(dt.date(2023, 1, 1), [rng.randrange(0, 730) for _ in range(500)]),
        },
        schema=pa.schema([("id", pa.int64()), ("k", pa.int64()), ("day", pa.date32())]),
    )
    dim_k, dim_name, dim_from, dim_to = [], [], [], []
    for k in range(20):
        # Three versions per key; the last one is current (valid_to NULL).
        bounds = [dt.date(2022, 1, 1), dt.date(2023, 6, 1), dt.date(2024, 1, 1)]
        bounds = [day + dt.timedelta(days=k) for day in bounds]
        for version, valid_from in enumerate(bounds):
            dim_k.append(k)
            dim_name.append(f"name-{k}-v{version + 1}")
            dim_from.append(valid_from)
            dim_to.append(bounds[version + 1] if version + 1 < len(bounds) else None)
    tables["dim"] = pa.table(
        {"k": dim_k, "name": dim_name, "valid_from": dim_from, "valid_to": dim_to},
        schema=pa.schema(
            [
                ("k", pa.int64()),
                ("name", pa.string()),
                ("valid_from", pa.date32()),
                ("valid_to", pa.date32()),
            ]
        ),
    )

    order_days = _dates(dt.date(2023, 1, 1), [rng.randrange(0, 730) for _ in range(500)])
    shipped = [i for i in range(500) if i % 10 != 0]  # every tenth order is not shipped yet
    date_schema = pa.schema([("id", pa.int64()), ("day", pa.date32())])
    tables["orders"] = pa.table({"id": list(range(500)), "day": order_days}, schema=date_schema)
    tables["shipments"] = pa.table(
        {
            "id": shipped,
            "day": [order_days[i] + dt.timedelta(days=rng.randrange(0, 12)) for i in shipped],
        },
        schema=date_schema,
    )

    symbols = ["AAPL", "MSFT", "GOOG", "AMZN"]
    opening = dt.datetime(2024, 3, 1, 14, 30, tzinfo=dt.UTC)
    session_seconds = 6 * 3600

    def moments(count: int) -> list[dt.datetime]:
        seconds = sorted(rng.randrange(0, session_seconds) for _ in range(count))
        return [opening + dt.timedelta(seconds=s) for s in seconds]

    timestamp = pa.timestamp("us", tz="UTC")
    trade_times = moments(1000)
    tables["trades"] = pa.table(
        {
            "symbol": [symbols[i % 4] for i in range(1000)],
            "ts": trade_times,
            "price": [round(100.0 + rng.uniform(-5.0, 5.0), 2) for _ in range(1000)],
        },
        schema=pa.schema([("symbol", pa.string()), ("ts", timestamp), ("price", pa.float64())]),
    )
    quote_times = moments(2000)
    tables["quotes"] = pa.table(
        {
            "symbol": [symbols[(i * 3) % 4] for i in range(2000)],
            "quote_ts": quote_times,
            "bid": [round(100.0 + rng.uniform(-5.0, 5.0), 2) for _ in range(2000)],
        },
        schema=pa.schema([("symbol", pa.string()), ("quote_ts", timestamp), ("bid", pa.float64())]),
    )
    return tables


def write_fixtures(directory: Path) -> list[Path]:
    """Writes the fixture tables to `directory` as <name>.parquet; returns their paths."""
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in fixture_tables().items():
        path = directory / f"{name}.parquet"
        pq.write_table(table, path)
        paths.append(path)
    return paths


SPARK_DEFAULTS = """\
spark.ui.enabled false
spark.ui.showConsoleProgress false
"""
LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""


# ---------------------------------------------------------------------------------------------
# Running a page


@dataclass
class PageResult:
    """How a page's run went: passed, or the failure (page, block, line, error)."""

    page: str
    ok: bool
    blocks: int
    failure: dict | None
    stdout: str
    stderr: str

    def report(self) -> str:
        if self.ok:
            return f"{self.page}: {self.blocks} blocks ran"
        failure = self.failure or {}
        if "block_line" not in failure:
            tail = "\n".join(self.stderr.splitlines()[-40:])
            return f"{self.page}: {failure.get('error', 'the page run failed')}\n{tail}"
        report = (
            f"{self.page}:{failure['line']}: the {failure['language']} block at line "
            f"{failure['block_line']} fails: {failure['error']}"
        )
        if failure.get("statement"):
            statement = textwrap.indent(failure["statement"], "    ")
            report += f"\n\nThe statement (line {failure['line']}):\n{statement}"
        if failure.get("traceback"):
            report += f"\n\n{failure['traceback'].rstrip()}"
        return report


def run_page(
    page: Path, workdir: Path, python: str | None = None, timeout: float = TIMEOUT_SECONDS
) -> PageResult:
    """Runs the snippets of `page` in a fresh Python process whose working directory is a new
    directory of `workdir` holding the fixture files."""
    name = page_name(page)
    blocks = extract_blocks(page.read_text(encoding="utf-8"), name)
    run_dir, conf_dir = workdir / "run", workdir / "conf"
    write_fixtures(run_dir)
    conf_dir.mkdir(parents=True, exist_ok=True)
    (conf_dir / "spark-defaults.conf").write_text(SPARK_DEFAULTS)
    (conf_dir / "log4j2.properties").write_text(LOG4J2)
    python = python or python_executable()
    env = dict(os.environ, SPARK_CONF_DIR=str(conf_dir), PYSPARK_PYTHON=python)
    for key in ("SPARK_REMOTE", "PYSPARK_DRIVER_PYTHON", "PYSPARK_SUBMIT_ARGS"):
        env.pop(key, None)
    command = [python, str(Path(__file__).resolve()), "--child", str(page.resolve())]
    try:
        result = subprocess.run(
            command, cwd=run_dir, env=env, capture_output=True, text=True, timeout=timeout
        )
        stdout, stderr, returncode = result.stdout, result.stderr, result.returncode
    except subprocess.TimeoutExpired as expired:
        stdout = _text(expired.stdout)
        stderr = _text(expired.stderr)
        started = [line for line in stdout.splitlines() if line.startswith(BLOCK_MARK)]
        block = json.loads(started[-1][len(BLOCK_MARK) :]) if started else None
        failure = {"error": f"the page did not finish in {timeout:.0f} s"}
        if block:
            failure.update(block, line=block["block_line"], error=failure["error"])
        return PageResult(name, False, len(blocks), failure, stdout, stderr)
    failures = [line for line in stdout.splitlines() if line.startswith(FAILURE_MARK)]
    failure = json.loads(failures[-1][len(FAILURE_MARK) :]) if failures else None
    if returncode != 0 and failure is None:
        failure = {"error": f"the page's process exited with code {returncode}"}
    return PageResult(name, returncode == 0, len(blocks), failure, stdout, stderr)


def _text(output: bytes | str | None) -> str:
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


def _error_text(error: BaseException, limit: int = 3000) -> str:
    """`error` as `Type: message`, the message cut to its first lines (a JVM error carries its
    whole stack trace)."""
    message = str(error).strip()
    lines = message.splitlines()
    if len(lines) > 20:
        message = "\n".join(lines[:20]) + "\n..."
    if len(message) > limit:
        message = message[:limit] + "..."
    return f"{type(error).__name__}: {message}"


def _page_line(error: BaseException, filename: str, default: int) -> int:
    """The last line of the page that the traceback of `error` passes through."""
    line = default
    if isinstance(error, SyntaxError) and error.filename == filename and error.lineno:
        return error.lineno
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == filename and frame.lineno:
            line = frame.lineno
    return line


def _page_traceback(error: BaseException, filename: str) -> str:
    """The traceback of `error` from the page's first frame on (not the runner's)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb)
    text = "".join(lines)
    return text if len(text) <= 6000 else "...\n" + text[-6000:]


def _child(page: Path) -> int:
    """Runs the blocks of `page` in this process (the working directory holds the fixtures).
    Prints FAILURE_MARK and a JSON description of the first failure, and returns 1, if one
    fails."""
    name = page_name(page)
    filename = str(page)
    namespace: dict = {"__name__": "__main__"}
    own_session = None
    for block in extract_blocks(page.read_text(encoding="utf-8"), name):
        described = {"language": block.language, "block_line": block.line}
        print(BLOCK_MARK + json.dumps(described), flush=True)
        statement: Statement | None = None
        try:
            if block.language == "python":
                exec(compile(python_source(block), filename, "exec"), namespace)
                continue
            spark = namespace.get("spark")
            if not (hasattr(spark, "sql") and hasattr(spark, "read")):
                if own_session is None:
                    import rangejoin

                    own_session = rangejoin.session("local[2]", "rangejoin-docs", **RUNNER_CONF)
                spark = own_session
            for path in sorted(Path.cwd().glob("*.parquet")):
                spark.read.parquet(str(path)).createOrReplaceTempView(path.stem)
            for statement in split_sql(block.code, block.first_line):
                spark.sql(statement.text).collect()
        except BaseException as error:  # SystemExit and KeyboardInterrupt fail the page too
            if statement is not None:
                line = statement.line
            else:
                line = _page_line(error, filename, block.first_line)
            failure = dict(described, line=line, error=_error_text(error))
            if statement is not None:
                failure["statement"] = statement.text
            elif block.language == "python":
                failure["traceback"] = _page_traceback(error, filename)
            print(FAILURE_MARK + json.dumps(failure), flush=True)
            return 1
    if own_session is not None:
        own_session.stop()
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return _child(Path(argv[1]))
    selected = [Path(arg).resolve() for arg in argv] or pages()
    failed = 0
    for page in selected:
        with tempfile.TemporaryDirectory(prefix="docs-snippets-") as workdir:
            result = run_page(page, Path(workdir))
        print(("PASS " if result.ok else "FAIL ") + result.report(), flush=True)
        failed += not result.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

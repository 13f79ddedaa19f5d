"""The results pages of the benchmark targets (docs/benchmarks/*.md): a title, a header saying
when, where and how the figures were measured, then the benchmark's own tables.

Every page is written whole by its make target, through `write_page`; nothing on it is copied by
hand. `read_header` reads a page's header back (the README headline and the tests use it).
"""

import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS_DIR = ROOT / "docs" / "benchmarks"
# The header's fields, in the order a page shows them; DuckDB only where DuckDB ran.
FIELDS = (
    "Date",
    "Machine",
    "OS",
    "Java",
    "Spark",
    "spark-rangejoin",
    "DuckDB",
    "Commit",
    "Command",
)
# What a commit with changes to these paths is marked with: the code that ran is not the commit's.
CODE_PATHS = ("scala", "python", "benchmarks")
HEADER_LINE = re.compile(r"^- \*\*(?P<field>[^*]+):\*\* (?P<value>.*)$")


def run_text(args: list, cwd: Path = ROOT) -> str | None:
    """The output (stdout, else stderr) of `args`, stripped; None if it cannot run or fails."""
    try:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return (done.stdout or done.stderr).strip()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine() -> str:
    memory = memory_gib()
    parts = [cpu_model(), f"{os.cpu_count()} cores"]
    if memory is not None:
        parts.append(f"{memory:.1f} GiB memory")
    return ", ".join(parts)


def os_text() -> str:
    try:
        name = platform.freedesktop_os_release()["PRETTY_NAME"]
    except (OSError, KeyError):
        name = platform.system()
    return f"{name}, {platform.system()} {platform.release()} {platform.machine()}"


def java_text(spark=None) -> str:
    """The driver JVM's version when a session is given, else the first line of `java -version`
    for the java Spark would start (JAVA_HOME's, else the one on PATH)."""
    if spark is not None:
        system = spark.sparkContext._jvm.java.lang.System
        return f"{system.getProperty('java.vm.name')} {system.getProperty('java.runtime.version')}"
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else "java"
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[0] if lines else "unknown"


def spark_text(spark=None) -> str:
    import pyspark

    text = f"{pyspark.__version__} (pyspark)"
    if spark is not None:
        memory = spark.sparkContext.getConf().get("spark.driver.memory", "1g")
        text += f", master {spark.sparkContext.master}, driver memory {memory}"
    return text


def plugin_text() -> str:
    import rangejoin

    try:
        jar = Path(rangejoin.jar_path()).name
    except Exception as error:  # no jar for this pyspark: say so rather than fail the page
        jar = f"no jar ({type(error).__name__})"
    return f"{rangejoin.__version__}, jar {jar}"


def commit_text() -> str:
    """The checkout's short commit, marked when scala/, python/ or benchmarks/ differ from it."""
    commit = run_text(["git", "rev-parse", "--short", "HEAD"])
    if not commit:
        return "unknown (not a git checkout)"
    status = run_text(["git", "status", "--porcelain", "--", *CODE_PATHS])
    return commit + (" + uncommitted changes" if status else "")


def process_argv(pid: int) -> list:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def parent_pid(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def make_commands() -> list:
    """The command lines of the make processes this process runs under, outermost first (Linux:
    from /proc); empty when it was not started by make."""
    found, pid = [], parent_pid(os.getpid())
    while pid and pid > 1:
        argv = process_argv(pid)
        if argv and Path(argv[0]).name in ("make", "gmake"):
            found.append(shlex.join([Path(argv[0]).name, *argv[1:]]))
        pid = parent_pid(pid)
    return found[::-1]


def script_command(argv: list | None = None) -> str:
    """The script's argv as run from the repository root, e.g. `benchmarks/suite.py --scale 1`."""
    argv = list(sys.argv if argv is None else argv)
    script = Path(argv[0]).resolve()
    try:
        name = str(script.relative_to(ROOT))
    except ValueError:
        name = argv[0]
    return shlex.join(["python", name, *argv[1:]])


def command_text(argv: list | None = None) -> str:
    """The make command typed (and the nested make target, if another) and the script's argv."""
    script = f"`{script_command(argv)}`"
    makes = make_commands()
    if not makes:
        return f"{script} (run directly, not by make)"
    outer, inner = makes[0], makes[-1]
    through = f" (through `{inner}`)" if inner != outer else ""
    return f"`{outer}`{through}, which ran {script}"


def measured_header(spark=None, duckdb_version: str | None = None, duckdb_note: str = "") -> dict:
    """The header fields of a page measured now, in this process (and `spark`'s driver JVM)."""
    now = datetime.datetime.now(datetime.UTC)
    header = {
        "Date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "Machine": machine(),
        "OS": os_text(),
        "Java": java_text(spark),
        "Spark": spark_text(spark),
        "spark-rangejoin": plugin_text(),
        "Commit": commit_text(),
        "Command": command_text(),
    }
    if duckdb_version:
        header["DuckDB"] = duckdb_version + (f", {duckdb_note}" if duckdb_note else "")
    return header


def header_markdown(header: dict) -> str:
    ordered = [f for f in FIELDS if f in header] + [f for f in header if f not in FIELDS]
    return "\n".join(f"- **{field}:** {header[field]}" for field in ordered)


def page_markdown(title: str, header: dict, body: str) -> str:
    return f"# {title}\n\n{header_markdown(header)}\n\n{body.strip()}\n"


def write_page(
    path: Path,
    title: str,
    body: str,
    spark=None,
    duckdb_version: str | None = None,
    duckdb_note: str = "",
    header: dict | None = None,
) -> Path:
    """Writes the results page `path` whole: `# title`, the header (measured now unless `header`
    is given), then `body` (Markdown). Returns the path."""
    if header is None:
        header = measured_header(spark, duckdb_version, duckdb_note)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page_markdown(title, header, body))
    return path


def read_header(path: Path) -> dict:
    """The header fields of a page `write_page` wrote: the `- **Field:** value` lines right
    after its title."""
    header = {}
    for line in Path(path).read_text().splitlines()[1:]:
        if not line.strip():
            if header:
                break
            continue
        match = HEADER_LINE.match(line)
        if not match:
            break
        header[match["field"]] = match["value"]
    return header


def markdown_table(columns: list, rows: list) -> str:
    """A Markdown table. A column name ending in ">" is right-aligned (the ">" is dropped)."""
    names = [c.rstrip(">") for c in columns]
    aligns = ["---:" if c.endswith(">") else "---" for c in columns]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join(aligns) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


class Table:
    """A table a benchmark prints row by row as it measures; `save` keeps it (its cells, each
    row's raw values and the session's Java and Spark) as JSON for a page written by another
    process (`defaults.py`), and `load` reads it back."""

    def __init__(self, columns: list, echo: bool = True):
        self.columns, self.rows, self.raw, self.echo = list(columns), [], [], echo
        if echo:
            print(markdown_table(self.columns, []), flush=True)

    def add(self, cells: list, **raw) -> None:
        self.rows.append([str(c) for c in cells])
        self.raw.append(raw)
        if self.echo:
            print("| " + " | ".join(self.rows[-1]) + " |", flush=True)

    def markdown(self) -> str:
        return markdown_table(self.columns, self.rows)

    def save(self, path: Path, spark=None) -> None:
        environment = {"Java": java_text(spark), "Spark": spark_text(spark)}
        data = {"columns": self.columns, "rows": self.rows, "raw": self.raw, "env": environment}
        Path(path).write_text(json.dumps(data))

    @classmethod
    def load(cls, path: Path) -> "Table":
        data = json.loads(Path(path).read_text())
        table = cls(data["columns"], echo=False)
        table.rows, table.raw, table.environment = data["rows"], data["raw"], data["env"]
        return table


def crossover(points: list) -> float | None:
    """Given (x, wins) pairs, the smallest x from which `wins` holds for every pair of every x
    measured up to the largest; None if it fails at the largest x."""
    at = {}
    for x, wins in points:
        at[x] = at.get(x, True) and bool(wins)
    found = None
    for x in sorted(at, reverse=True):
        if not at[x]:
            break
        found = x
    return found


def words(items: list) -> str:
    """ "a", "a and b", "a, b and c"."""
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)

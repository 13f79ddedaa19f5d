"""The benchmark suite's outputs: its results page (tables), a CSV and a log-log chart of the
scaling."""

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend is chosen first)
from results_page import write_page  # noqa: E402

ENGINES = {
    "vanilla": "vanilla Spark",
    "plugin": "spark-rangejoin",
    "duckdb": "DuckDB",
    "rewrite": "hand-written Spark rewrite",
}
STYLE = {
    "vanilla": ("tab:red", "s"),
    "plugin": ("tab:blue", "o"),
    "duckdb": ("tab:green", "^"),
    "rewrite": ("tab:orange", "D"),
}


@dataclass
class Measurement:
    """One workload at one size. `seconds[engine]` is None when the engine hit the cap."""

    workload: str
    rows: int
    cap: float
    operator: str = ""
    seconds: dict = field(default_factory=dict)
    profile: dict | None = None
    bin_width: int | None = None  # the hand-written rewrite's, where it ran

    def speedup(self, engine: str) -> float:
        """The engine's time over the plugin's: a lower bound when the engine was capped."""
        return (self.seconds[engine] or self.cap) / self.seconds["plugin"]

    def slower_than_duckdb(self, factor: float) -> bool:
        duck = self.seconds.get("duckdb")
        return duck is not None and self.seconds["plugin"] > factor * duck


def time_text(m: Measurement, engine: str) -> str:
    if engine not in m.seconds:
        return "-"
    seconds = m.seconds[engine]
    return f"> {m.cap:.0f} s" if seconds is None else f"{seconds:.3f} s"


def ratio_text(m: Measurement, engine: str) -> str:
    """How the plugin compares with `engine`: "12.3x faster", "> 40x faster", "2.1x slower"."""
    if engine not in m.seconds:
        return "-"
    ratio = m.speedup(engine)
    if m.seconds[engine] is None:
        return f"> {ratio:.0f}x faster"
    return f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x slower"


def markdown(table: list) -> str:
    """The table of times and ratios, then the profile of each run that has one."""
    # The hand-written rewrite's columns, where a workload ran one.
    rewrite = any("rewrite" in m.seconds for m in table)
    lines = [
        "| workload | rows per side | spark-rangejoin operator | vanilla Spark | spark-rangejoin "
        "| DuckDB | "
        + ("hand-written rewrite (bin width) | " if rewrite else "")
        + "plugin vs vanilla | plugin vs DuckDB |"
        + (" plugin vs rewrite |" if rewrite else ""),
        "|---|---:|---|---:|---:|---:|"
        + ("---:|" if rewrite else "")
        + "---|---|"
        + ("---|" if rewrite else ""),
    ]
    for m in table:
        operator = m.operator.split(",")[0]
        width = f" ({m.bin_width:,})" if m.bin_width else ""
        lines.append(
            f"| {m.workload} | {m.rows:,} | {operator} | {time_text(m, 'vanilla')} | "
            f"{time_text(m, 'plugin')} | {time_text(m, 'duckdb')} | "
            + (f"{time_text(m, 'rewrite')}{width} | " if rewrite else "")
            + f"{ratio_text(m, 'vanilla')} | {ratio_text(m, 'duckdb')} |"
            + (f" {ratio_text(m, 'rewrite')} |" if rewrite else "")
        )
    for m in (m for m in table if m.profile):
        p = m.profile
        span = max(s["end"] for s in p["stages"]) - min(s["start"] for s in p["stages"])
        lines += [
            "",
            f"Profile of {m.workload} (plugin {m.seconds['plugin']:.3f} s against DuckDB "
            f"{m.seconds['duckdb']:.3f} s): one more run, {p['wall']:.3f} s, of which "
            f"{span:.3f} s from the first stage's start to the last one's end "
            f"({len(p['stages'])} stages, some side by side) and {p['wall'] - span:.3f} s on "
            "the driver outside stages (planning, scheduling, collecting results).",
            "",
            "| stage | runs | wall | tasks | task time (sum) |",
            "|---:|---|---:|---:|---:|",
        ]
        lines += [
            f"| {s['stage']} | {s['name']} | {s['wall_s']:.3f} s | {s['tasks']} | "
            f"{s['task_s']:.3f} s |"
            for s in p["stages"]
        ]
        metrics = ", ".join(metric_text(k, v) for k, v in sorted(p["metrics"].items()))
        lines += ["", f"Operator metrics: {metrics}."]
        if p.get("exchange_alone"):
            alone = p["exchange_alone"]
            lines += [
                "",
                f"Spark's exchange of the two inputs alone, with no join: {alone:.3f} s, "
                f"{alone / m.seconds['duckdb']:.1f}x DuckDB's whole join. It scans each input's "
                "join columns, hash-partitions them on the keys and reads them back, as every "
                "partitioned plan must (best of 3 after a warm-up).",
            ]
    return "\n".join(lines) + "\n"


def metric_text(name: str, value: int) -> str:
    """A SQL metric's value in its unit: timings are in nanoseconds, sizes in bytes."""
    if name.endswith("Time"):
        return f"{name} {value / 1e9:.3f} s"
    if name.endswith(("Memory", "Size", "OnDisk")):
        return f"{name} {value / 2**20:.1f} MiB"
    return f"{name} {value:,}"


CSV_COLUMNS = [
    "table",
    "workload",
    "rows",
    "engine",
    "seconds",
    "capped",
    "cap_s",
    "engine_over_plugin",
]


def write_csv(path: Path, rows: list) -> None:
    """One line per (table or curve, workload, size, engine): its seconds (empty when capped),
    the cap, and the engine's time over the plugin's (a lower bound when capped). A profiled
    workload with an `exchange_alone` query adds a line for it, engine `exchange_alone`."""
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for kind, m in rows:
            for engine, seconds in m.seconds.items():
                ratio = m.speedup(engine) if engine != "plugin" else 1.0
                writer.writerow(
                    [
                        kind,
                        m.workload,
                        m.rows,
                        engine,
                        "" if seconds is None else f"{seconds:.6f}",
                        seconds is None,
                        f"{m.cap:g}",
                        f"{ratio:.3f}",
                    ]
                )
            alone = (m.profile or {}).get("exchange_alone")
            if alone:
                ratio = f"{alone / m.seconds['plugin']:.3f}"
                writer.writerow(
                    [kind, m.workload, m.rows, "exchange_alone", f"{alone:.6f}", False, "", ratio]
                )


def slope(points: list) -> float | None:
    """The growth exponent at scale: the least-squares slope of log(time) on log(rows) over the
    three largest sizes that ran at least 0.5 s (where fixed costs no longer dominate); 1 is
    linear growth, 2 quadratic."""
    xy = [(math.log10(n), math.log10(t)) for n, t in sorted(points) if t >= 0.5][-3:]
    if len(xy) < 2:
        return None
    mx = sum(x for x, _ in xy) / len(xy)
    my = sum(y for _, y in xy) / len(xy)
    return sum((x - mx) * (y - my) for x, y in xy) / sum((x - mx) ** 2 for x, _ in xy)


def chart(path: Path, curves: dict) -> None:
    fig, axes = plt.subplots(1, len(curves), figsize=(6 * len(curves), 4.8), squeeze=False)
    for ax, (name, runs) in zip(axes[0], curves.items(), strict=True):
        for engine, label in ENGINES.items():
            color, marker = STYLE[engine]
            done = [(m.rows, m.seconds[engine]) for m in runs if m.seconds.get(engine)]
            capped = [m for m in runs if engine in m.seconds and m.seconds[engine] is None]
            k = slope(done)
            text = label + (f" (slope {k:.1f})" if k is not None else "")
            if done:
                ax.plot(*zip(*done, strict=True), color=color, marker=marker, label=text)
            for m in capped:  # an arrow up from the cap: the run took longer
                ax.scatter([m.rows], [m.cap], color=color, marker=6, s=80)
                ax.annotate(
                    f"> {m.cap:.0f} s cap",
                    (m.rows, m.cap),
                    color=color,
                    textcoords="offset points",
                    xytext=(6, -12),
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("rows per side")
        ax.set_ylabel("seconds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_reports(
    out: Path,
    table: list,
    curves: dict,
    intro: str,
    header: dict,
    workloads: str = "",
    page: tuple[str, str] = ("suite", "The suite"),
) -> list:
    """Writes the page <stem>.md titled `title` (`page`: `intro`, the `workloads` description,
    the table with its profiles, the chart and its points), <stem>.csv and, when there are
    curves, its chart to `out`; returns their paths. `header` is the page's header (see
    `measured_header`)."""
    out.mkdir(parents=True, exist_ok=True)
    stem, title = page
    # The suite's chart is scaling.png; another page's is <stem>_scaling.png.
    chart_name = "scaling.png" if stem == "suite" else f"{stem}_scaling.png"
    md, csv_path, png = out / f"{stem}.md", out / f"{stem}.csv", out / chart_name
    curve_rows = [m for runs in curves.values() for m in runs]
    body = [intro.strip(), ""]
    if workloads:
        body += ["## Workloads", "", workloads.strip(), ""]
    body += ["## Results", "", markdown(table)]
    if curves:
        names = " and ".join(f"`{n}`" for n in curves)
        body += [
            "## Scaling",
            "",
            f"Time against rows per side, log-log, for {names}; the legend gives each engine's "
            "slope over its three largest sizes that ran at least 0.5 s (1 is linear growth, 2 "
            "quadratic), and an arrow marks a run stopped at the cap.",
            "",
            f"![Time against rows per side, log-log, for {names}]({png.name})",
            "",
            "The chart's points:",
            "",
            markdown(curve_rows),
        ]
    body += [f"Every time on this page is in [{csv_path.name}]({csv_path.name})."]
    write_page(md, title, "\n".join(body), header=header)
    write_csv(csv_path, [("table", m) for m in table] + [("curve", m) for m in curve_rows])
    if not curves:  # `--curves ""`: the table only
        if png.exists():  # a chart of an earlier run would not match this page
            png.unlink()
        return [md, csv_path]
    chart(png, curves)
    return [md, csv_path, png]

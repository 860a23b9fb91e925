"""Measuring helpers for the benchmarks: medians, subprocess wall time and peak memory."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = REPO / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
GRADER = [str(VENV_BIN / "grader")] if (VENV_BIN / "grader").exists() else [PYTHON, "-m", "grader"]

# Runs the command as its only child: RUSAGE_CHILDREN's maxrss is then the command's own peak
# (the largest of its processes: the grader, or a sandbox worker it waited for), and its CPU
# time that of all of them (a figure other work on the machine hardly changes, unlike wall time).
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
errors = b""
try:
    done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=float(sys.argv[1]))
    code, errors = done.returncode, done.stderr
except subprocess.TimeoutExpired:
    code = "timeout"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mb": usage.ru_maxrss / 1024, "code": code,
                  "stderr": errors.decode(errors="replace")[-2000:]}))
"""


def run_measured(command: list[str], *, env: dict[str, str] | None = None,
                 timeout: float = 900.0) -> dict[str, Any]:
    """Wall and CPU seconds (interpreter start included), peak MB, exit code of ``command``."""
    done = subprocess.run([PYTHON, "-c", _WRAPPER, str(timeout), *command], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {command} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_measured(command: list[str], runs: int, **options: Any) -> dict[str, Any]:
    """The median wall time and the largest peak of ``runs`` runs (each listed too)."""
    samples = [run_measured(command, **options) for _ in range(runs)]
    return {"wall": statistics.median(s["wall"] for s in samples),
            "cpu": statistics.median(s["cpu"] for s in samples),
            "peak_mb": max(s["peak_mb"] for s in samples),
            "codes": sorted({str(s["code"]) for s in samples}),
            "walls": [round(s["wall"], 3) for s in samples]}


def timed(function: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The median seconds of ``runs`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def timed_both(function: Callable[[], Any], runs: int,
               other_cpu: Callable[[], float] = lambda: 0.0) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``runs`` calls (CPU: this process's, plus what
    ``other_cpu`` reports for another process), and the last call's result."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time() + other_cpu()
        result = function()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() + other_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def load_average() -> float:
    """The 1-minute load average: other work on the machine skews every figure."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return -1.0


def table(rows: list[list[Any]], header: list[str]) -> str:
    """A plain text table, columns as wide as their widest cell."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)

"""How fast ``tuibot ask`` answers, against a bare SDK script and simonw's ``llm``.

Start-up time is a product feature of a one-shot command, so it is measured, not guessed.
A ScriptedServer in this process streams the same long answer to every tool; each tool
runs as a fresh subprocess, exactly as a user or a shell pipeline would start it.

    .venv/bin/python tests/bench/bench_ask.py [--runs 7] [--chunks 2000] [--llm PATH]

Parts: (a) bare openai script, (b) ``tuibot ask``, (c) ``tuibot ask --help``, (d) ``llm``
(when installed, e.g. ``python3 -m venv /tmp/llm-venv && /tmp/llm-venv/bin/pip install
llm``), (e) ``-X importtime`` check that ``tuibot ask`` imports neither litellm nor textual.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from installed import compile_package  # noqa: E402
from scripted_server import ScriptedServer, text  # noqa: E402

HERE = Path(__file__).resolve().parent
PROMPT = "Write a long answer."
MODEL = "test-model"
FORBIDDEN = ("litellm", "textual")


@dataclass
class Series:
    """One command to time and its timings over the runs, in seconds."""

    name: str
    argv: list[str]
    env: dict[str, str]
    streams: bool = True
    """Whether it asks the server for the answer (and must print it)."""
    ttft: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    note: str = ""
    """Why it stopped being measured, if it failed."""


@dataclass
class Bench:
    """What every measurement needs: the server, the expected answer, a scratch folder."""

    server: ScriptedServer
    answer: str
    chunks: int
    runs: int
    scratch: Path
    env: dict[str, str]


def run_timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str, str]:
    """Spawn ``cmd``; time to its first stdout byte and to its exit; its stdout and stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT
        )
        assert proc.stdout is not None
        first = proc.stdout.read(1)
        ttft = time.perf_counter() - start
        rest = proc.stdout.read()
        proc.wait()
        wall = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {stderr.strip()[-500:]}")
    return ttft, wall, (first + rest).decode(errors="replace"), stderr


def run_once(bench: Bench, series: Series, *, keep: bool) -> None:
    """Run one command once; a failure or a wrong answer ends its series with a note."""
    if series.streams:
        bench.server.enqueue(text(bench.answer, pieces=bench.chunks, usage=(10, bench.chunks)))
    try:
        ttft, wall, out, _ = run_timed(series.argv, series.env)
    except RuntimeError as exc:
        series.note = f"failed: {exc}"
        return
    if series.streams and bench.answer.strip() not in out:
        series.note = f"wrong output ({len(out)} chars, starts {out[:60]!r})"
    elif keep:
        series.ttft.append(ttft)
        series.wall.append(wall)


def measure(bench: Bench, all_series: list[Series]) -> None:
    """A warm-up round, then ``bench.runs`` rounds running every command once each.

    Rounds interleave the commands so that machine noise (other load, CPU clocks) spreads
    over all of them alike instead of favouring whichever ran last.
    """
    for round_no in range(bench.runs + 1):
        for series in all_series:
            if not series.note:
                run_once(bench, series, keep=round_no > 0)  # round 0 warms caches, .pyc


def tuibot_ask_exists(env: dict[str, str]) -> bool:
    """Whether ``python -m tuibot ask --help`` works yet."""
    cmd = [sys.executable, "-m", "tuibot", "ask", "--help"]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, check=False)
    return done.returncode == 0


def tuibot_cmd(bench: Bench, *extra: str) -> list[str]:
    """``tuibot ask`` pointed at the scripted server."""
    base = [sys.executable, *extra, "-m", "tuibot", "ask", PROMPT]
    return [*base, "--base-url", bench.server.url, "--model", MODEL]


def find_llm(explicit: str | None) -> str | None:
    """The ``llm`` executable: the one asked for, else the bench venv's or one on PATH."""
    candidates = [explicit] if explicit else ["/tmp/llm-venv/bin/llm", shutil.which("llm")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def llm_series(bench: Bench, llm: str) -> list[Series]:
    """``llm -m scripted PROMPT`` (streams by default, logs to its SQLite db) and ``--help``.

    A private LLM_USER_PATH holds an ``extra-openai-models.yaml`` naming the scripted server.
    """
    user_path = bench.scratch / "llm"
    user_path.mkdir(exist_ok=True)
    (user_path / "extra-openai-models.yaml").write_text(
        f"- model_id: scripted\n  model_name: {MODEL}\n  api_base: {json.dumps(bench.server.url)}\n"
    )
    env = {**bench.env, "LLM_USER_PATH": str(user_path)}
    return [
        Series("llm prompt", [llm, "-m", "scripted", PROMPT], env),
        Series("llm --help", [llm, "--help"], env, streams=False),
    ]


def import_check(bench: Bench) -> tuple[bool, str]:
    """Run ``tuibot ask`` under ``-X importtime``; PASS when no forbidden package was imported."""
    bench.server.enqueue(text(bench.answer, pieces=bench.chunks))
    try:
        _, _, _, stderr = run_timed(tuibot_cmd(bench, "-X", "importtime"), bench.env)
    except RuntimeError as exc:
        return False, f"tuibot ask failed: {exc}"
    packages: set[str] = set()
    outermost: list[tuple[int, str]] = []  # (cumulative µs, module) of imports at depth 0
    for line in stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2].strip()
        packages.add(name.split(".")[0])
        if len(parts[2]) - len(parts[2].lstrip()) == 1:
            outermost.append((int(parts[1]), name))
    found = [name for name in FORBIDDEN if name in packages]
    heaviest = [(n, us) for us, n in sorted(outermost, reverse=True)[:5]]
    detail = ", ".join(f"{n} {us / 1e6:.2f}s" for n, us in heaviest)
    if found:
        return False, f"imported {', '.join(found)}; heaviest: {detail}"
    return True, f"heaviest imports: {detail}"


def cell(values: list[float]) -> str:
    """Median and min, or dashes when there is nothing to show."""
    if not values:
        return f"{'-':>8} {'-':>8}"
    return f"{statistics.median(values):8.3f} {min(values):8.3f}"


def print_table(all_series: list[Series]) -> None:
    """Median and min of time to first token and wall time per command, in seconds."""
    print(f"\n{'command':<20} {'TTFT med':>8} {'min':>8}   {'wall med':>8} {'min':>8}")
    for s in all_series:
        ttft = cell(s.ttft if s.streams else [])
        print(f"{s.name:<20} {ttft}   {cell(s.wall)}  {s.note}".rstrip())


def print_ratios(all_series: list[Series]) -> None:
    """tuibot (and llm) over the bare script, by median."""
    by_name = {s.name: s for s in all_series}
    bare = by_name["bare openai"]
    for name in ("tuibot ask", "llm prompt"):
        top = by_name.get(name)
        if top and top.ttft and bare.ttft:
            ttft = statistics.median(top.ttft) / statistics.median(bare.ttft)
            wall = statistics.median(top.wall) / statistics.median(bare.wall)
            print(f"{name} / bare openai (median): TTFT {ttft:.2f}x, wall {wall:.2f}x")


def parse_args() -> argparse.Namespace:
    """Runs, answer size, where llm is, where to save the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command (default 7)")
    parser.add_argument("--chunks", type=int, default=2000, help="content chunks per answer")
    parser.add_argument("--llm", help="path to the llm executable (default: auto-detect)")
    parser.add_argument("--out", type=Path, help="also write the timings as JSON here")
    return parser.parse_args()


def build_series(bench: Bench, llm: str | None) -> list[Series]:
    """Every command that can run now; says which parts are skipped and why."""
    bare = [sys.executable, str(HERE / "bare_openai.py"), PROMPT, "--base-url", bench.server.url]
    all_series = [Series("bare openai", bare, bench.env)]
    if tuibot_ask_exists(bench.env):
        help_cmd = [sys.executable, "-m", "tuibot", "ask", "--help"]
        all_series.append(Series("tuibot ask", tuibot_cmd(bench), bench.env))
        all_series.append(Series("tuibot ask --help", help_cmd, bench.env, streams=False))
    else:
        print("(b)(c)(e) skipped: `python -m tuibot ask --help` does not work yet")
    if llm:
        all_series += llm_series(bench, llm)
    else:
        print("(d) skipped: llm not found (python3 -m venv /tmp/llm-venv && … pip install llm)")
    return all_series


def run_all(bench: Bench, llm: str | None) -> tuple[list[Series], bool]:
    """Measure everything, then the import check; returns the series and whether all passed."""
    all_series = build_series(bench, llm)
    measure(bench, all_series)
    ok = not any(s.note for s in all_series)
    if any(s.name == "tuibot ask" for s in all_series):
        passed, detail = import_check(bench)
        ok = ok and passed
        print(f"(e) no {' / '.join(FORBIDDEN)} in `tuibot ask`: {'PASS' if passed else 'FAIL'}")
        print(f"    {detail}")
    return all_series, ok


def main() -> int:
    """Run the benchmark; exit 1 when a command failed or the import check did not pass."""
    args = parse_args()
    compile_package()
    answer = "".join(f"t{i % 10} " for i in range(args.chunks))
    with tempfile.TemporaryDirectory(prefix="tuibot-bench-") as tmp, ScriptedServer() as server:
        scratch = Path(tmp)
        env = {
            **os.environ,
            "TUIBOT_HOME": str(scratch / "home"),
            "TUIBOT_DATA": str(scratch / "data"),
        }
        bench = Bench(server, answer, args.chunks, args.runs, scratch, env)
        print(f"{args.runs} runs (+1 warm-up) each, {args.chunks} chunks per answer, {server.url}")
        series, ok = run_all(bench, find_llm(args.llm))
    print_table(series)
    print_ratios(series)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"name": s.name, "ttft": s.ttft, "wall": s.wall, "note": s.note} for s in series]
        args.out.write_text(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""How fast ``tuibot ask`` answers, against a bare SDK script and simonw's ``llm``.

Start-up time is a product feature of a one-shot command, so it is measured, not guessed.
A ScriptedServer in this process streams the same long answer to every command; each
runs as a fresh subprocess, as a shell would start it. The floor is measured in two
installs: the dev venv (this interpreter) and a plain venv without extras (no litellm,
so no aiohttp), which is what ``pip install tuibot`` gives a person.

    .venv/bin/python tests/bench/bench_ask.py [--runs 12] [--chunks 2000]
        [--plain /tmp/plainvenv | --make-plain] [--features] [--llm PATH] [--out FILE]

``TUIBOT_BENCH_PLAIN=/tmp/plainvenv`` does what ``--plain`` does. Rounds run every command
once each, A B A B …, so load on a shared machine hits all alike; ratios are the median
of the per-round ratios (paired). Each run also records its CPU time (user + sys, from
the kernel), less sensitive to load than wall time. The per-token cost is the slope of
CPU time between an answer of ``--chunks`` chunks and one of a single chunk. With
``--features``: ``ask`` with three MCP servers configured (tool lists cached) and ``ask
--chat`` continuing a 5,000-message chat.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import import_report  # noqa: E402
import plain_venv  # noqa: E402
from installed import compile_package  # noqa: E402
from scripted_server import ScriptedServer, text  # noqa: E402

PROMPT = "Write a long answer."
MODEL = "test-model"
GOALS = {"wall": 1.05, "ttft": 1.02}
"""tuibot ask over the bare script, per install (issue 19)."""


@dataclass
class Series:
    """One command to time and its timings over the runs, in seconds."""

    name: str
    argv: list[str]
    env: dict[str, str]
    chunks: int = 0
    """Chunks of the answer the server streams (0: the command asks nothing)."""
    ttft: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    note: str = ""
    """Why it stopped being measured, if it failed."""


@dataclass
class Install:
    """One venv: its interpreter, its llm, and the series measured in it."""

    label: str
    python: Path
    llm: Path | None
    series: list[Series] = field(default_factory=list)


def run_timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str, str]:
    """Spawn ``cmd``: time to its first stdout byte, to its exit, its CPU time, its output."""
    with tempfile.TemporaryFile() as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
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
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {stderr.strip()[-500:]}")
    return ttft, wall, cpu, (first + rest).decode(errors="replace"), stderr


def answer(chunks: int) -> str:
    """The answer of ``chunks`` pieces every streaming command must print whole."""
    return "".join(f"t{i % 10} " for i in range(chunks))


def run_once(server: ScriptedServer, series: Series, *, keep: bool) -> None:
    """Run one command once; a failure or a wrong answer ends its series with a note."""
    if series.chunks:
        expected = answer(series.chunks)
        server.enqueue(text(expected, pieces=series.chunks, usage=(10, series.chunks)))
    try:
        ttft, wall, cpu, out, _ = run_timed(series.argv, series.env)
    except RuntimeError as exc:
        series.note = f"failed: {exc}"
        server.drain()  # its unread answer must not go to the next command
        return
    if series.chunks and expected.strip() not in out:
        series.note = f"wrong output ({len(out)} chars, starts {out[:60]!r})"
    elif keep:
        series.ttft.append(ttft)
        series.wall.append(wall)
        series.cpu.append(cpu)


def measure(server: ScriptedServer, everything: list[Series], runs: int) -> None:
    """A warm-up round, then ``runs`` rounds running every command once each."""
    for round_no in range(runs + 1):
        for series in everything:
            if not series.note:
                run_once(server, series, keep=round_no > 0)  # round 0 warms caches, .pyc


def install_series(install: Install, url: str, env: dict[str, str], chunks: int) -> None:
    """The floor, tuibot, their one-chunk twins (for the per-token slope), help, llm."""
    py = str(install.python)
    bare = [py, str(HERE / "bare_openai.py"), PROMPT, "--base-url", url]
    ask = [py, "-m", "tuibot", "ask", PROMPT, "--base-url", url, "--model", MODEL]
    tag = install.label
    install.series = [
        Series(f"{tag}: bare openai", bare, env, chunks),
        Series(f"{tag}: tuibot ask", ask, env, chunks),
        Series(f"{tag}: bare, 1 chunk", bare, env, 1),
        Series(f"{tag}: tuibot, 1 chunk", ask, env, 1),
        Series(f"{tag}: ask --help", [py, "-m", "tuibot", "ask", "--help"], env),
    ]
    if install.llm is not None:
        llm = [str(install.llm), "-m", "scripted", PROMPT]
        install.series.append(Series(f"{tag}: llm prompt", llm, env, chunks))


def feature_series(install: Install, url: str, scratch: Path, chunks: int) -> list[Series]:
    """``ask`` with three MCP servers configured (lists cached) and ``ask --chat`` of a
    5,000-message chat: the features of #7/#12 must keep the goals."""
    from mcp_helpers import FAULT_SERVER, toml_server

    py = str(install.python)
    ask = [py, "-m", "tuibot", "ask", PROMPT, "--base-url", url, "--model", MODEL]
    scratch = scratch / install.label
    home, data = scratch / "mcp-home", scratch / "mcp-data"
    home.mkdir(parents=True)
    blocks = [toml_server(f"s{i}", sys.executable, [str(FAULT_SERVER)]) for i in range(3)]
    (home / "config.toml").write_text("\n".join(blocks))
    mcp_env = {**os.environ, "TUIBOT_HOME": str(home), "TUIBOT_DATA": str(data),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
    subprocess.run(
        [py, "-m", "tuibot", "mcp", "list"], env=mcp_env, capture_output=True, check=False, cwd=ROOT
    )  # fmt: skip  (fills the tool-list cache)
    chat_env = {**mcp_env, "TUIBOT_HOME": str(scratch / "chat-home"),
                "TUIBOT_DATA": str(scratch / "chat-data"),
                # No summary call to the model: the window is fitted by leaving turns out.
                "TUIBOT_AGENT__AUTO_COMPACT": "false",
                "TUIBOT_AGENT__CONSOLIDATE_AFTER": "0"}  # fmt: skip
    chat = long_chat(Path(chat_env["TUIBOT_DATA"]), 5000)
    return [
        Series(f"{install.label}: ask, 3 MCP servers", ask, mcp_env, chunks),
        Series(f"{install.label}: ask --chat (5,000)", [*ask, "--chat", chat], chat_env, chunks),
    ]


def long_chat(data: Path, messages: int) -> str:
    """A chat of ``messages`` alternating user/assistant messages; its id."""
    os.environ["TUIBOT_DATA"] = str(data)
    from tuibot.store.chats import ChatStore
    from tuibot.system.paths import DataPaths

    store = ChatStore(DataPaths.default().chats)
    meta = store.create(kind="direct", bot="Assistant", title="long")
    rows = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " * 8}
        for i in range(messages)
    ]
    store.append(meta.id, rows)  # type: ignore[arg-type]
    return meta.id


def med(values: list[float]) -> float:
    """The median (nan when empty)."""
    return statistics.median(values) if values else float("nan")


def paired(top: Series, base: Series, what: str) -> float:
    """The median over rounds of ``top``'s figure over ``base``'s in the same round."""
    ratios = [a / b for a, b in zip(getattr(top, what), getattr(base, what), strict=False)]
    return med(ratios)


def print_install(install: Install, chunks: int) -> bool:
    """The table, the paired ratios with PASS/FAIL and the per-token cost of one install."""
    print(f"\n{install.label}: {install.python}")
    print(f"{'command':<32} {'TTFT med':>8} {'wall med':>8} {'min':>7} {'CPU med':>8}")
    for s in install.series:
        ttft = f"{med(s.ttft):8.3f}" if s.chunks else f"{'-':>8}"
        wall_min = min(s.wall) if s.wall else float("nan")
        print(f"{s.name:<32} {ttft} {med(s.wall):8.3f} {wall_min:7.3f} {med(s.cpu):8.3f}"
              f"  {s.note}".rstrip())  # fmt: skip
    by = {s.name.split(": ", 1)[1]: s for s in install.series}
    bare, ask = by["bare openai"], by["tuibot ask"]
    ok = True
    for what in ("ttft", "wall", "cpu"):
        ratio = paired(ask, bare, what)
        goal = GOALS.get(what)
        verdict = "" if goal is None else (" PASS" if ratio <= goal else " FAIL") + f" (≤ {goal})"
        ok = ok and (goal is None or ratio <= goal)
        print(f"  tuibot ask / bare openai, {what:<4} (paired median): {ratio:.3f}x{verdict}")
    if "llm prompt" in by and by["llm prompt"].wall:
        llm = by["llm prompt"]
        print(f"  llm prompt / bare openai, wall: {paired(llm, bare, 'wall'):.3f}x; "
              f"tuibot ask / llm, wall: {paired(ask, llm, 'wall'):.3f}x "
              f"{'PASS' if paired(ask, llm, 'wall') < 1 else 'FAIL'} (ahead of llm)")  # fmt: skip
    for name in ("bare openai", "tuibot ask"):
        one = "bare, 1 chunk" if name == "bare openai" else "tuibot, 1 chunk"
        slope = (med(by[name].cpu) - med(by[one].cpu)) / max(1, chunks - 1)
        print(f"  per token ({name}): {slope * 1e6:.1f} µs CPU")
    return ok


def import_check(install: Install, url: str, env: dict[str, str], server: ScriptedServer) -> bool:
    """``tuibot ask`` under ``-X importtime`` in this install: what it imported and cost."""
    server.enqueue(text(answer(10), pieces=10))
    cmd = [str(install.python), "-X", "importtime", "-m", "tuibot", "ask", PROMPT,
           "--base-url", url, "--model", MODEL]  # fmt: skip
    try:
        *_, stderr = run_timed(cmd, env)
    except RuntimeError as exc:
        print(f"  import check: tuibot ask failed: {exc}")
        return False
    passed, lines = import_report.report(stderr)
    print(f"  start-up imports of a plain ask: {'PASS' if passed else 'FAIL'}")
    for line in lines:
        print(f"    {line}")
    return passed


def parse_args() -> argparse.Namespace:
    """Runs, answer size, the plain venv, llm, the feature runs, where to save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12, help="paired rounds (default 12)")
    parser.add_argument("--chunks", type=int, default=2000, help="content chunks per answer")
    parser.add_argument("--plain", type=Path, default=os.environ.get("TUIBOT_BENCH_PLAIN"),
                        help="a plain venv (no extras) to measure in too")  # fmt: skip
    parser.add_argument("--make-plain", action="store_true",
                        help=f"create the plain venv first ({plain_venv.DEFAULT})")  # fmt: skip
    parser.add_argument("--no-dev", action="store_true", help="skip the dev venv")
    parser.add_argument("--features", action="store_true", help="also MCP and --chat runs")
    parser.add_argument("--llm", type=Path, help="llm for the dev venv (default: /tmp/llm-venv)")
    parser.add_argument("--out", type=Path, help="also write the timings as JSON here")
    return parser.parse_args()


def installs(args: argparse.Namespace) -> list[Install]:
    """The venvs to measure in, each with its llm when it has one."""
    found = []
    if not args.no_dev:
        llm = args.llm or Path("/tmp/llm-venv/bin/llm")
        found.append(Install("dev", Path(sys.executable), llm if llm.exists() else None))
    plain = args.plain or (plain_venv.DEFAULT if args.make_plain else None)
    if plain is not None:
        python = plain_venv.make_plain(plain) if args.make_plain else plain_venv.python_of(plain)
        extras = plain_venv.extras_in(python)
        if extras:
            print(f"warning: {plain} is not plain: it has {', '.join(extras)}")
        llm = plain / "bin" / "llm"
        found.append(Install("plain", python, llm if llm.exists() else None))
    return found


def main() -> int:
    """Run the benchmark; exit 1 when a command failed or a goal was missed."""
    args = parse_args()
    compile_package()
    with tempfile.TemporaryDirectory(prefix="tuibot-bench-") as tmp, ScriptedServer() as server:
        scratch = Path(tmp)
        llm_path = scratch / "llm"
        llm_path.mkdir()
        (llm_path / "extra-openai-models.yaml").write_text(
            f"- model_id: scripted\n  model_name: {MODEL}\n  api_base: {json.dumps(server.url)}\n"
        )
        env = {**os.environ, "TUIBOT_HOME": str(scratch / "home"),
               "TUIBOT_DATA": str(scratch / "data"), "PYTHONPATH": str(ROOT),
               "LLM_USER_PATH": str(llm_path)}  # fmt: skip
        measured = installs(args)
        for install in measured:
            install_series(install, server.url, env, args.chunks)
            if args.features:
                install.series += feature_series(install, server.url, scratch, args.chunks)
        print(f"{args.runs} paired rounds (+1 warm-up), {args.chunks} chunks, {server.url}")
        measure(server, [s for i in measured for s in i.series], args.runs)
        ok = True
        for install in measured:
            ok = print_install(install, args.chunks) and ok
            ok = import_check(install, server.url, env, server) and ok
        ok = ok and not any(s.note for i in measured for s in i.series)
    if args.out:
        rows = [{"name": s.name, "ttft": s.ttft, "wall": s.wall, "cpu": s.cpu, "note": s.note}
                for i in measured for s in i.series]  # fmt: skip
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

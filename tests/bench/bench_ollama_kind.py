"""Benchmark: ``tuibot ask`` over native Ollama (``kind = "ollama"``) against the openai kind.

Issue 15 asks that speaking Ollama's own ``/api/chat`` keep ``ask``'s goal of 1.1× a bare
``openai`` script. Three commands run in paired rounds (A B C A B C …), each a fresh
subprocess printing the same answer of ``--chunks`` pieces: the bare SDK script and
``tuibot ask`` against the scripted OpenAI-compatible server, and ``tuibot ask`` with a
provider of kind ``ollama`` against the scripted Ollama server (NDJSON, ``/api/show``)::

    .venv/bin/python tests/bench/bench_ollama_kind.py [--runs 12] [--chunks 2000]

Ratios are medians of the per-round ratios; CPU time (user + sys of the child) is the
figure least moved by a busy machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_ask import MODEL, PROMPT, ROOT, Series, answer, med, paired, run_timed  # noqa: E402
from installed import compile_package  # noqa: E402
from ollama_server import OllamaServer  # noqa: E402
from ollama_server import answer as ollama_answer  # noqa: E402
from scripted_server import ScriptedServer, text  # noqa: E402

GOAL = 1.10
"""``ask`` with the ollama kind over the bare script (issue 15)."""
OLLAMA_MODEL = "qwen3:0.6b"


def one_round(
    series: list[Series], openai: ScriptedServer, ollama: OllamaServer, keep: bool
) -> None:
    """Run each command once, queueing its answer on the server it talks to."""
    for one in series:
        expected = answer(one.chunks)
        if "ollama" in one.name:
            ollama.enqueue(ollama_answer(expected, pieces=one.chunks))
        else:
            openai.enqueue(text(expected, pieces=one.chunks, usage=(10, one.chunks)))
        ttft, wall, cpu, out, _ = run_timed(one.argv, one.env)
        if expected.strip() not in out:
            raise SystemExit(f"{one.name}: wrong output ({len(out)} chars: {out[:80]!r})")
        if keep:
            one.ttft.append(ttft)
            one.wall.append(wall)
            one.cpu.append(cpu)


def main() -> int:
    """Print the table and the paired ratios; exit 1 when the goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--chunks", type=int, default=2000)
    args = parser.parse_args()
    compile_package()
    py = sys.executable
    with (
        tempfile.TemporaryDirectory(prefix="tuibot-bench-") as tmp,
        ScriptedServer() as openai,
        OllamaServer() as ollama,
    ):
        base = {**os.environ, "PYTHONPATH": str(ROOT)}
        plain_env = {**base, "TUIBOT_HOME": f"{tmp}/h1", "TUIBOT_DATA": f"{tmp}/d1"}
        home = Path(tmp, "h2")
        home.mkdir()
        (home / "config.toml").write_text(
            f'[agent]\nmodel = "{OLLAMA_MODEL}"\n\n'
            f'[providers.local]\nkind = "ollama"\nbase_url = "{ollama.url}"\n'
        )
        ollama_env = {**base, "TUIBOT_HOME": str(home), "TUIBOT_DATA": f"{tmp}/d2"}
        ask = [py, "-m", "tuibot", "ask", PROMPT]
        series = [
            Series(
                "bare openai",
                [py, str(HERE / "bare_openai.py"), PROMPT, "--base-url", openai.url],
                plain_env,
                args.chunks,
            ),
            Series(
                "ask, openai kind",
                [*ask, "--base-url", openai.url, "--model", MODEL],
                plain_env,
                args.chunks,
            ),
            Series("ask, ollama kind", ask, ollama_env, args.chunks),
        ]
        for round_no in range(args.runs + 1):  # round 0 warms caches and .pyc
            one_round(series, openai, ollama, keep=round_no > 0)
    print(f"{args.runs} paired rounds (+1 warm-up), {args.chunks} chunks")
    print(f"{'command':<20} {'TTFT med':>8} {'wall med':>8} {'CPU med':>8}")
    for one in series:
        print(f"{one.name:<20} {med(one.ttft):8.3f} {med(one.wall):8.3f} {med(one.cpu):8.3f}")
    bare, via_openai, via_ollama = series
    ok = True
    for what in ("ttft", "wall", "cpu"):
        ratio = paired(via_ollama, bare, what)
        verdict = ""
        if what != "cpu":
            verdict = f" {'PASS' if ratio <= GOAL else 'FAIL'} (≤ {GOAL})"
            ok = ok and ratio <= GOAL
        print(f"  ollama kind / bare openai, {what:<4}: {ratio:.3f}x{verdict}")
        print(
            f"  ollama kind / openai kind, {what:<4}: {paired(via_ollama, via_openai, what):.3f}x"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

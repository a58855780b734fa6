"""Benchmark: 100 concurrent delegations, and the engine's overhead per model step.

Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_delegation.py [--delegations 100] [--steps 200]

Part 1: one bot gives ``--delegations`` tasks in a single answer (one ``delegate`` call
each); every helper answers at once; each result comes back to the giver as a notice,
which starts a turn of its own. It reports the wall time from the question to the chat
settling, the model calls made, and the CPU time the process spent per model call.

Part 2: the engine's overhead per model step. The same ``--steps`` sequential model
calls (each a tool call the loop runs, then the next call) through the engine, and as
bare ``openai`` SDK calls to the same server sending the same growing history;
overhead = (engine − bare) / steps, in wall and CPU time (the server's threads run in
this process, so both CPU figures include the server's share).

Everything runs in this process on loopback against the scripted server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from scripted_server import Reply, ScriptedServer, text, tool_calls  # noqa: E402


def _config(url: str, live: int) -> str:
    return f"""\
[agent]
name = "Assistant"
model = "test-model"
max_rounds = 200

[providers.local]
base_url = "{url}"
max_retries = 0

[delegation]
max_live_per_chat = {live}
max_live_total = {live}
"""


def _fan_out(count: int) -> Reply:
    calls = [
        ("delegate", json.dumps({"task": f"Item {i}", "limits": {"timeMs": 600_000}}), f"d{i}")
        for i in range(count)
    ]
    return tool_calls(calls)


async def part_one(server: ScriptedServer, count: int) -> dict[str, Any]:
    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1].get("content") or ""
        if "Fan out" in last:
            return _fan_out(count)
        if "gives you this task: Item" in last:
            return text("done " + last.rsplit(" ", 1)[-1])
        return text("noted")

    server.responder = respond
    Path("tuibot.toml").write_text(_config(server.url, count + 10), encoding="utf-8")
    engine = Engine(load_settings(None, env={}))
    engine.load_tools()
    chat = engine.new_chat(bot="Assistant").id
    before = len(server.requests)
    cpu, wall = time.process_time(), time.perf_counter()
    first = await engine.send(chat, "Fan out")
    await first
    await engine.delegations.wait_until_settled(chat)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    records = engine.delegations.given_by(chat)
    calls = len(server.requests) - before
    await engine.close()
    server.responder = None
    completed = sum(r.status == "completed" for r in records)
    return {
        "delegations": len(records),
        "completed": completed,
        "model_calls": calls,
        "wall_s": wall,
        "cpu_ms_per_call": cpu * 1000 / max(calls, 1),
    }


async def engine_steps(server: ScriptedServer, steps: int) -> tuple[float, float]:
    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    replies = [
        tool_calls([("list_dir", json.dumps({"path": "./" * (i + 1)}), f"s{i}")])
        for i in range(steps - 1)
    ]
    server.enqueue(*replies, text("end"))
    Path("tuibot.toml").write_text(_config(server.url, 10), encoding="utf-8")
    engine = Engine(load_settings(None, env={}))
    engine.load_tools()
    chat = engine.new_chat(bot="Assistant").id
    started, cpu = time.perf_counter(), time.process_time()
    result = await (await engine.send(chat, "Go"))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    await engine.close()
    assert getattr(result, "status", "") == "completed", result
    return elapsed, cpu


async def bare_steps(server: ScriptedServer, steps: int) -> tuple[float, float]:
    from openai import AsyncOpenAI

    replies = [tool_calls([("list_dir", "{}", f"s{i}")]) for i in range(steps - 1)]
    server.enqueue(*replies, text("end"))
    client = AsyncOpenAI(base_url=server.url, api_key="none", max_retries=0)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go"}]
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(steps):
        stream = await client.chat.completions.create(
            model="test-model",
            messages=messages,  # type: ignore[arg-type]
            stream=True,
        )
        async for _chunk in stream:
            pass
        arguments = json.dumps({"path": "./" * (i + 1)})
        call = {"id": f"s{i}", "type": "function"}
        call["function"] = {"name": "list_dir", "arguments": arguments}  # type: ignore[assignment]
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"s{i}", "content": "tuibot.toml"})
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    await client.close()
    return elapsed, cpu


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delegations", type=int, default=100)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("home", "data", "work"):
            Path(tmp, name).mkdir()
        os.environ["TUIBOT_HOME"] = str(Path(tmp, "home"))
        os.environ["TUIBOT_DATA"] = str(Path(tmp, "data"))
        os.chdir(Path(tmp, "work"))
        with ScriptedServer() as server:
            print(f"part 1: {args.delegations} concurrent delegations, {args.runs} runs")
            runs = [await part_one(server, args.delegations) for _ in range(args.runs)]
            for run in runs:
                print(
                    f"  {run['completed']}/{run['delegations']} completed, "
                    f"{run['model_calls']} model calls, wall {run['wall_s']:.2f} s, "
                    f"CPU {run['cpu_ms_per_call']:.2f} ms per model call"
                )
            print(f"part 2: {args.steps} sequential model steps, {args.runs} runs each")
            engine = [await engine_steps(server, args.steps) for _ in range(args.runs)]
            bare = [await bare_steps(server, args.steps) for _ in range(args.runs)]
            e, b = statistics.median(w for w, _ in engine), statistics.median(w for w, _ in bare)
            ec = statistics.median(c for _, c in engine)
            bc = statistics.median(c for _, c in bare)
            n = args.steps
            print(f"  wall: engine {e:.3f} s, bare openai {b:.3f} s (median)")
            print(f"  CPU:  engine {ec * 1000 / n:.2f} ms/step, bare {bc * 1000 / n:.2f} ms/step")
            print(
                f"  engine overhead per model step: {(e - b) * 1000 / n:.2f} ms wall, "
                f"{(ec - bc) * 1000 / n:.2f} ms CPU"
            )
            ok = all(r["completed"] == r["delegations"] == args.delegations for r in runs)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))

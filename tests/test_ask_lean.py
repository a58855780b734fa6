"""A plain one-shot ``tuibot ask`` imports only what its run needs.

Start-up is most of what a short ``ask`` costs, and every module nobody calls is paid on
every run (see tests/bench/bench_ask.py). So the modules a plain answer (one bot, a new
chat, no config file, no MCP server, no terminal) must leave unimported are listed here,
and a real ``python -m tuibot ask`` in a subprocess reports its ``sys.modules`` at exit:
whoever adds a top-level import of one of them sees this test fail and moves it into the
function that uses it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ask_helpers import child_env, run
from scripted_server import ScriptedServer, text

UNUSED_BY_A_PLAIN_ASK = (
    "textual",  # the full-screen app
    "tuibot.tui",
    "litellm",  # cloud providers only
    "aiohttp",  # an SDK transport tuibot never uses
    # the SDK's types for its other APIs: its packages' re-exports load on first use
    "openai.types.batch",
    "openai.types.beta",
    "openai.types.evals",
    "openai.types.graders",
    "openai.types.responses.response",
    "tuibot.mcp",  # no MCP server configured
    "tuibot.jobs.book",  # scheduled jobs: only the cron tool and `tuibot jobs` use them
    "tuibot.jobs.records",
    "tuibot.jobs.schedule",
    "tuibot.jobs.crontab",
    "tuibot.jobs.store",
    "tuibot.jobs.work",
    "tuibot.agent.router",  # one bot: nothing to route between
    "tuibot.agent.consolidate",  # a new chat is far below the consolidation threshold
    "tuibot.settings.config_io",  # no config file to read or edit
    "tomlkit",
    "tuibot.settings.trust",  # not at a terminal: no trust offer to make
    "tuibot.commands.trust_changes",
    "tuibot.toolkit.proctree",  # the exec tool's process handling, until a command runs
    "psutil",
    "tuibot.delegation.records",  # no delegation given, none in the journal to read
    "tuibot.attachments.mentions",  # no --attach
    "tuibot.attachments.sending",  # no @mention in the prompt
    "tuibot.attachments.attach",
    "logging.handlers",  # the log file's rotating handler waits for a first record
    "shlex",  # no slash command to split
    "difflib",  # no mistyped flag to suggest a fix for
    # the other commands: cli registers only the one named (their modules import more)
    *(
        f"tuibot.commands.{name}"
        for name in ("chats", "chats_edit", "config", "delegations", "doctor", "grants")
    ),
    *(f"tuibot.commands.{name}" for name in ("jobs", "keys", "mcp", "run", "skills", "tools")),
)

DUMP_MODULES = (
    "import atexit, json, os, runpy, sys\n"
    "atexit.register(lambda: open(os.environ['MODULES_OUT'], 'w').write("
    "json.dumps(sorted(sys.modules))))\n"
    "sys.argv = ['tuibot', *sys.argv[1:]]\n"
    "runpy.run_module('tuibot', run_name='__main__')\n"
)
"""Runs ``python -m tuibot ARGS`` and writes every imported module's name at exit."""


def modules_after(argv: list[str], out: Path) -> tuple[set[str], str, int]:
    """The modules imported by a whole ``tuibot ARGS`` run; its stdout; its exit code."""
    ran = run([sys.executable, "-c", DUMP_MODULES, *argv], env=child_env(MODULES_OUT=str(out)))
    return set(json.loads(out.read_text())), ran.stdout, ran.code


def unwanted(modules: set[str]) -> list[str]:
    """The listed modules that were imported (a package counts when any module in it was)."""
    return [
        bad
        for bad in UNUSED_BY_A_PLAIN_ASK
        if any(name == bad or name.startswith(bad + ".") for name in modules)
    ]


def test_a_plain_ask_imports_nothing_its_run_does_not_use(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.enqueue(text("the answer", pieces=3))

    argv = ["ask", "--base-url", server.url, "--model", "test-model", "hi"]
    modules, stdout, code = modules_after(argv, tmp_path / "modules.json")

    assert code == 0
    assert stdout == "the answer\n"
    assert {"tuibot.engine", "tuibot.agent.loop", "openai"} <= modules  # the dump is real
    assert unwanted(modules) == []


def test_the_cron_tool_is_still_offered_to_the_model(server: ScriptedServer, tmp_path: Path):
    """Deferring the job book must not drop the tool that uses it from the request."""
    server.enqueue(text("ok"))

    argv = ["ask", "--base-url", server.url, "--model", "test-model", "hi"]
    modules, _, code = modules_after(argv, tmp_path / "modules.json")

    assert code == 0
    chat = next(r for r in server.requests if r.path == "/v1/chat/completions")
    assert chat.body is not None  # (--model first checks the model list: a GET)
    offered = [t["function"]["name"] for t in chat.body.get("tools", [])]
    assert "cron" in offered and "exec" in offered and "delegate" in offered
    assert "tuibot.jobs.book" not in modules


def test_a_second_ask_reads_the_skills_without_yaml(server: ScriptedServer, tmp_path: Path):
    """The bundled skills' frontmatter is parsed once, then read back from the cache."""
    argv = ["ask", "--base-url", server.url, "--model", "test-model", "hi"]
    server.enqueue(text("one"))
    first, _, code = modules_after(argv, tmp_path / "first.json")
    assert code == 0 and "yaml" in first  # the dump is real: the first ask parsed them
    server.enqueue(text("two"))

    second, stdout, code = modules_after(argv, tmp_path / "second.json")

    assert code == 0 and stdout == "two\n"
    assert "yaml" not in second
    chat = [r for r in server.requests if r.path == "/v1/chat/completions"][-1]
    assert chat.body is not None
    assert "code-review" in json.dumps(chat.body)  # the skills still reach the model


def test_the_command_is_found_as_argparse_finds_it() -> None:
    """Only the named command is registered, and an option's value is never taken for it."""
    from tuibot.cli import COMMANDS, build_parser

    argv = ["--model", "ask", "chats", "list"]
    args = build_parser(argv).parse_args(argv)
    assert args.model == "ask" and args.handler.__module__ == "tuibot.commands.chats"

    def commands(argv: list[str]) -> list[str]:
        parser = build_parser(argv)
        return list(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]

    assert commands(["--base-url=http://h/v1", "ask", "hi"]) == ["ask"]
    for unsure in (["-h"], ["--mod", "x", "ask"], ["stray", "ask"], ["--config"]):
        assert commands(unsure) == list(COMMANDS)  # help, errors: the full parser
    for app in ([], ["--model", "ask"], ["--base-url=http://h/v1", "--chat", "c_1"]):
        assert commands(app) == []  # the full-screen app: no command to parse


def test_a_plain_string_setting_is_read_without_the_toml_parser() -> None:
    """``--base-url`` and ``--model`` are strings: only a quoted one needs parsing."""
    code = (
        "import sys\n"
        "from tuibot.settings.values import from_text\n"
        "assert from_text(str, 'http://127.0.0.1:9/v1') == 'http://127.0.0.1:9/v1'\n"
        "assert from_text(str | None, ' 3') == ' 3'\n"
        "print('tomllib' in sys.modules)\n"
        "assert from_text(str, ' \"quoted\"') == 'quoted'\n"  # the parser, when it is needed
    )
    ran = run([sys.executable, "-c", code])
    assert ran.code == 0, ran.stderr
    assert ran.stdout == "False\n"

"""``tuibot ask --attach FILE``: a real process attaching files, refusing the wrong ones.

What a script relies on: the files reach the model as the engine attaches ``@path``, a
refused file is exit 2 with the reason on stderr and no model call, and ``--attach``
alone (no prompt) is enough to ask.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from ask_helpers import assert_clean_stderr, chat_bodies, run_ask, sent
from attach_helpers import png_bytes, write
from scripted_server import ScriptedServer, text


def test_attach_sends_each_file(server: ScriptedServer) -> None:
    write(Path("notes.txt"), "remember the milk")
    write(Path("my photo.png"), png_bytes(9))
    server.enqueue(text("done"))
    ran = run_ask(
        server,
        "--attach",
        "notes.txt",
        "--attach",
        "my photo.png",
        "summarise",
        TUIBOT_PROVIDERS__LOCAL__VISION="true",
    )
    assert ran.code == 0, ran.stderr
    assert_clean_stderr(ran)
    content = [m for m in sent(server) if m["role"] == "user"][-1]["content"]
    assert content[0]["type"] == "text"
    assert content[0]["text"].startswith('summarise\n\n@"notes.txt" @"my photo.png"')
    assert "Attached file notes.txt:\n```txt\nremember the milk\n```" in content[0]["text"]
    assert content[1]["image_url"]["url"].endswith(base64.b64encode(png_bytes(9)).decode())


def test_attach_alone_is_a_prompt(server: ScriptedServer) -> None:
    write(Path("q.md"), "What is 6 x 7?")
    server.enqueue(text("42"))
    ran = run_ask(server, "--attach", "q.md")
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "42"


def test_attach_outside_the_workspace_is_exit_2_and_no_model_call(
    server: ScriptedServer,
) -> None:
    outside = write(Path.cwd().parent / "secret.txt", "OUTSIDE")
    os.symlink(outside, "link.txt")
    for path in ("../secret.txt", str(outside), "link.txt"):
        ran = run_ask(server, "--attach", path, "read it")
        assert ran.code == 2, (path, ran.stderr)
        assert f"cannot attach {path}" in ran.stderr and "outside the workspace" in ran.stderr
    assert chat_bodies(server) == []


def test_an_image_for_a_model_without_vision_is_exit_2(server: ScriptedServer) -> None:
    write(Path("p.png"), png_bytes())
    ran = run_ask(server, "--attach", "p.png", "describe")
    assert ran.code == 2
    assert "takes no images" in ran.stderr
    assert chat_bodies(server) == []

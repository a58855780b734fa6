"""Package exports are imported when first read, once, and read like plain attributes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE_INIT = """
from tuibot.lazy_exports import lazy_exports

_HOMES = {"Heavy": ".heavy", "DEFAULT": "json.decoder", "JSONDecoder": "json.decoder"}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
"""

HEAVY = """
import sys
sys.heavy_imports = getattr(sys, "heavy_imports", 0) + 1

class Heavy:
    pass
"""

SCRIPT = """
import sys
import lazypkg
print("heavy" in dir(lazypkg), "Heavy" in dir(lazypkg), "lazypkg.heavy" in sys.modules)
first = lazypkg.Heavy
second = lazypkg.Heavy
print(first is second, sys.heavy_imports, "Heavy" in vars(lazypkg))
from lazypkg import JSONDecoder
import json.decoder
print(JSONDecoder is json.decoder.JSONDecoder)
try:
    lazypkg.Missing
except AttributeError as error:
    print(error)
"""


def printed(code: str, cwd: Path | None = None) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter (a fresh ``sys.modules``)."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout.splitlines()


def test_a_name_is_imported_from_its_home_when_first_read_and_kept(tmp_path: Path) -> None:
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    (package / "heavy.py").write_text(HEAVY, encoding="utf-8")
    assert printed(SCRIPT, tmp_path) == [
        "False True False",  # listed by dir(), not imported by the package's import
        "True 1 True",  # one import, then kept in the package
        "True",  # an absolute home
        "module 'lazypkg' has no attribute 'Missing'",
    ]


def test_the_packages_that_export_lazily_import_none_of_their_homes() -> None:
    """``import tuibot.toolkit`` (every tool file), ``tuibot.store`` (the app's first
    frame) and ``tuibot.delegation`` (a plain ask) must stay cheap."""
    lines = printed(
        "import sys, tuibot, tuibot.toolkit, tuibot.store, tuibot.delegation\n"
        "homes = ['tuibot.toolkit.registry', 'tuibot.toolkit.decorator',\n"
        "         'tuibot.store.chats', 'tuibot.store.traces',\n"
        "         'tuibot.delegation.records', 'tuibot.delegation.journal']\n"
        "print([home for home in homes if home in sys.modules])\n"
        "print(tuibot.tool.__module__, tuibot.store.ChatStore.__module__,\n"
        "      tuibot.delegation.Delegation.__module__,\n"
        "      tuibot.toolkit.ToolRegistry.__module__)\n"
    )
    assert lines == [
        "[]",
        "tuibot.toolkit.decorator tuibot.store.chats tuibot.delegation.records "
        "tuibot.toolkit.registry",
    ]

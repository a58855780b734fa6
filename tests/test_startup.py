"""Start-up stays lean: the openai client is imported without aiohttp, and nothing breaks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def run_python(code: str) -> str:
    """Run code in a fresh interpreter and return what it printed."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return result.stdout.strip()


def test_openai_client_import_skips_aiohttp_but_leaves_it_importable() -> None:
    pytest.importorskip("aiohttp")
    printed = run_python(
        "import sys\n"
        "from tuibot.llm.openai_client import import_openai\n"
        "openai = import_openai()\n"
        "print('aiohttp' in sys.modules, hasattr(openai, 'AsyncOpenAI'))\n"
        "import aiohttp\n"
        "print(aiohttp.__name__)\n"
    )
    assert printed.splitlines() == ["False True", "aiohttp"]


def test_the_sdk_types_load_on_first_use_and_all_of_them_stay_reachable() -> None:
    """``import openai`` re-exports every type of every API (~400 modules); tuibot
    defers a types package's re-exports to their first use, and then they are whole."""
    printed = run_python(
        "import sys\n"
        "from tuibot.llm.openai_client import import_openai\n"
        "openai = import_openai()\n"
        "from openai.types.chat import ChatCompletionChunk\n"  # what streaming needs
        "print('openai.types.batch' in sys.modules, 'openai.types.graders' in sys.modules)\n"
        "print(openai.types.Batch.__name__, openai.types.responses.Response.__name__)\n"
        "from openai.types.beta import Assistant\n"
        "namespace = {}\n"
        "exec('from openai.types import *', namespace)\n"
        "print('Batch' in namespace and 'Completion' in namespace, ChatCompletionChunk.__name__)\n"
        "try:\n"
        "    openai.types.NoSuchType\n"
        "except AttributeError as error:\n"
        "    print('AttributeError', error)\n"
    )
    assert printed.splitlines() == [
        "False False",
        "Batch Response",
        "True ChatCompletionChunk",
        "AttributeError module 'openai.types' has no attribute 'NoSuchType'",
    ]


def test_a_deferred_types_package_read_from_two_threads_is_whole_for_both(
    tmp_path: Path,
) -> None:
    """A second thread that reads a name while the first still runs the package's
    ``__init__`` waits for it, as a normal import would, instead of finding it missing."""
    package = tmp_path / "openai" / "types"
    package.mkdir(parents=True)
    (tmp_path / "openai" / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("import time\ntime.sleep(0.4)\nX = 1\n", "utf-8")
    printed = run_python(
        f"import sys, threading, time\nsys.path.insert(0, {str(tmp_path)!r})\n"
        "from tuibot.llm import lazy_types\n"
        "lazy_types.install()\n"
        "import openai.types as types\n"
        "got = []\n"
        "def read():\n"
        "    try:\n"
        "        got.append(types.X)\n"
        "    except AttributeError as error:\n"
        "        got.append(repr(error))\n"
        "first = threading.Thread(target=read)\n"
        "first.start()\n"
        "time.sleep(0.1)\n"
        "read()\n"
        "first.join()\n"
        "print(got)\n"
    )
    assert printed == "[1, 1]"


def _only_re_exports(source: str) -> list[str]:
    """The top-level statements of ``source`` that are not imports, a docstring or ``__all__``."""
    import ast

    others = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        targets = node.targets if isinstance(node, ast.Assign) else []
        if [getattr(target, "id", None) for target in targets] == ["__all__"]:
            continue
        others.append(ast.unparse(node).splitlines()[0])
    return others


def test_the_installed_sdks_types_packages_only_re_export() -> None:
    """``lazy_types`` puts off every ``openai/types`` package's ``__init__``; that is safe
    only while those files do nothing but re-export. An SDK that adds work there (a model
    rebuild, a registration) fails here rather than misbehaving later."""
    import importlib.util

    spec = importlib.util.find_spec("openai")
    assert spec is not None and spec.submodule_search_locations
    types_folder = Path(next(iter(spec.submodule_search_locations))) / "types"
    inits = sorted(types_folder.rglob("__init__.py"))
    assert len(inits) > 10  # the walk found the SDK's packages
    doing_more = {
        str(init.relative_to(types_folder)): others
        for init in inits
        if (others := _only_re_exports(init.read_text(encoding="utf-8")))
    }
    assert doing_more == {}


def test_the_re_export_check_sees_work_in_an_init() -> None:
    assert _only_re_exports('"""Doc."""\nfrom .a import B as B\n__all__ = ["B"]\n') == []
    assert _only_re_exports("from .a import B\nB.model_rebuild()\n") == ["B.model_rebuild()"]
    assert _only_re_exports("import sys\nif sys.version_info > (3,):\n    pass\n") == [
        "if sys.version_info > (3,):"
    ]

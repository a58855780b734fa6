"""Where tuibot touches Textual's private API: a count by reading the source (``ast``).

Textual is pinned, and every private name tuibot uses is a place an upgrade can break
without warning. They belong in ``tuibot/tui/compat.py``, which says why each is needed;
``tests/test_tui_compat.py`` uses :func:`private_accesses` to keep the rest of tuibot
clean. Run it to see the list: ``python tests/private_api.py [--all]``.

What counts as an access to a Textual private name:

- ``import textual._x`` / ``from textual._x import Y`` / ``from textual.x import _y``;
- ``obj._name`` (read or written) where Textual defines ``_name`` (a method, a class
  attribute or an attribute it sets on ``self``) and tuibot does not define it itself
  (a ``def``, a class attribute, or ``self._name`` set in ``__init__``);
- ``getattr(obj, "_name")`` (and ``setattr``/``hasattr``/``delattr``) for such a name.

Dunder names are Python's and are not counted, except ``__subclasses__``: walking
Textual's class tree finds every widget class loaded, which no public API lists.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import textual

ROOT = Path(__file__).resolve().parent.parent
"""The worktree: ``tuibot/`` is read from here."""
COMPAT = Path("tuibot/tui/compat.py")
"""The one module allowed to use Textual's private names."""
_ATTR_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True, order=True)
class Access:
    """One use of a Textual private name in tuibot's source."""

    path: Path
    """Relative to the worktree."""
    line: int
    name: str
    """``_name`` for an attribute, ``textual._x`` or ``textual.x._y`` for an import."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name}"


_REFLECTION = frozenset({"__subclasses__"})
"""Dunder names that are counted: reflection over Textual's classes."""


def _is_private(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and (not dunder or name in _REFLECTION)


def _sources(folder: Path) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _class_body_names(node: ast.ClassDef) -> Iterator[str]:
    for item in node.body:
        targets: list[ast.expr] = []
        if isinstance(item, ast.Assign):
            targets = item.targets
        elif isinstance(item, ast.AnnAssign):
            targets = [item.target]
        yield from (t.id for t in targets if isinstance(t, ast.Name))


def _self_stores(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in {"self", "cls"}
        ):
            yield node.attr


def _defined(tree: ast.Module, *, any_method: bool) -> Iterator[str]:
    """Names ``tree`` defines: defs, class attributes, attributes set on ``self``.

    With ``any_method`` False only ``__init__`` counts for ``self`` attributes, so
    tuibot writing a Textual attribute later (``self._markdown = text``) is still found.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name
            if any_method or node.name == "__init__":
                yield from _self_stores(node)
        elif isinstance(node, ast.ClassDef):
            yield from _class_body_names(node)
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from (t.id for t in targets if isinstance(t, ast.Name))


@cache
def textual_private_names() -> frozenset[str]:
    """Every private name the installed Textual defines on its classes and objects."""
    folder = Path(textual.__file__).parent
    names = {n for _, tree in _sources(folder) for n in _defined(tree, any_method=True)}
    return frozenset(name for name in names if _is_private(name)) | _REFLECTION


def _tuibot_names(trees: Iterable[ast.Module]) -> frozenset[str]:
    return frozenset(n for tree in trees for n in _defined(tree, any_method=False))


def _import_accesses(node: ast.AST) -> Iterator[tuple[int, str]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "textual" and any(_is_private(p) for p in parts):
                yield node.lineno, alias.name
    elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
        module = node.module or ""
        if any(_is_private(p) for p in module.split(".")):
            yield node.lineno, module
        else:
            for alias in node.names:
                if _is_private(alias.name):
                    yield node.lineno, f"{module}.{alias.name}"


def _attribute_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _ATTR_CALLS
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return None


class _Index:
    """What tuibot's classes define, to tell its own private names from Textual's."""

    def __init__(self, trees: Iterable[ast.Module]) -> None:
        self.classes: dict[str, tuple[set[str], list[str]]] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    methods = [f for f in node.body if isinstance(f, _FUNCTIONS)]
                    names = set(_class_body_names(node)) | {f.name for f in methods}
                    for init in (f for f in methods if f.name == "__init__"):
                        names |= set(_self_stores(init))
                    bases = [ast.unparse(base).rpartition(".")[2] for base in node.bases]
                    self.classes[node.name] = (names, bases)

    def defines(self, class_name: str, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether tuibot's class ``class_name`` or one of tuibot's bases defines ``name``."""
        if class_name in seen or class_name not in self.classes:
            return False
        names, bases = self.classes[class_name]
        seen = seen | {class_name}
        return name in names or any(self.defines(base, name, seen) for base in bases)


def _textual_imports(tree: ast.Module) -> set[str]:
    """Names this module imports from Textual (its classes, to recognise annotations)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual"
        for alias in node.names
    }


def _textual_params(function: ast.AST, textual_names: set[str]) -> set[str]:
    """Parameters annotated with a Textual class: any private name on them is Textual's."""
    if not isinstance(function, _FUNCTIONS):
        return set()
    params = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    found = set()
    for arg in params:
        shown = ast.unparse(arg.annotation) if arg.annotation else ""
        words = set(re.findall(r"\w+", shown))
        if arg.arg not in {"self", "cls"} and words & textual_names:
            found.add(arg.arg)
    return found


class _Finder(ast.NodeVisitor):
    """Walks one module, keeping track of the enclosing class and annotated parameters."""

    def __init__(self, path: Path, tree: ast.Module, index: _Index, own: frozenset[str]) -> None:
        self.path, self.index, self.own = path, index, own
        self.textual = _textual_imports(tree)
        self.names = textual_private_names()
        self.classes: list[str] = []
        self.typed: list[set[str]] = [set()]
        self.found: list[Access] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.typed.append(self.typed[-1] | _textual_params(node, self.textual))
        self.generic_visit(node)
        self.typed.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def generic_visit(self, node: ast.AST) -> None:
        for line, module in _import_accesses(node):
            self.found.append(Access(self.path, line, module))
        name = _attribute_name(node)
        if name and _is_private(name) and name in self.names and self._textuals(node, name):
            self.found.append(Access(self.path, getattr(node, "lineno", 0), name))
        super().generic_visit(node)

    def _textuals(self, node: ast.AST, name: str) -> bool:
        """Whether ``name`` on this receiver is Textual's rather than tuibot's."""
        if isinstance(node, ast.Attribute):
            target = node.value
        else:
            assert isinstance(node, ast.Call)
            target = node.args[0]
        receiver = target.id if isinstance(target, ast.Name) else None
        if receiver in {"self", "cls"} and self.classes:
            return not self.index.defines(self.classes[-1], name)
        if receiver in self.typed[-1]:
            return True
        return name not in self.own


@cache
def private_accesses(package: Path = ROOT / "tuibot") -> tuple[Access, ...]:
    """Every access to a Textual private name in ``package``, in file and line order."""
    trees = list(_sources(package))
    index = _Index(tree for _, tree in trees)
    own = _tuibot_names(tree for _, tree in trees)
    found: list[Access] = []
    for path, tree in trees:
        finder = _Finder(path.relative_to(package.parent), tree, index, own)
        finder.visit(tree)
        found += finder.found
    return tuple(sorted(set(found)))


def main(argv: list[str]) -> int:
    """Print the accesses outside compat.py (or all with ``--all``) and a count by module."""
    every = private_accesses()
    shown = every if "--all" in argv else [a for a in every if a.path != COMPAT]
    for access in shown:
        print(access)
    modules = sorted({a.path for a in shown})
    print(f"{len(shown)} accesses in {len(modules)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

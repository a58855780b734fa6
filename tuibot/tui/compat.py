"""Every use of Textual's private API, in one place, each with why and what happens without it.

Textual is pinned (``textual==8.2.8``) because tuibot needs a few things its public API
does not offer: drawing widgets off screen, moving a running scroll, updating Markdown
blocks in place, reading every binding, withdrawing one toast. Keeping them here means an
upgrade is checked in one file: ``tests/test_tui_compat.py`` looks up every name in
:data:`PRIVATE_NAMES` and lists the missing ones, and it checks (with
``tests/private_api.py``) that no other module of tuibot uses a Textual private name.

Where a fallback exists, a function uses it when the private name is gone, so the app
degrades (a toast stays, a bell is not rung) instead of crashing. Where none exists the
caller is told in the docstring; those uses have their own behaviour tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from textual.binding import BindingsMap
from textual.dom import DOMNode
from textual.geometry import Size

if TYPE_CHECKING:
    from markdown_it.token import Token
    from textual.app import App
    from textual.content import Content
    from textual.css.scalar import Scalar
    from textual.geometry import Region, Size
    from textual.layout import DockArrangeResult
    from textual.map_geometry import MapGeometry
    from textual.strip import Strip
    from textual.widget import Widget
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownBlock

PRIVATE_NAMES: list[tuple[str, str]] = [
    ("textual._context", "active_message_pump"),
    ("textual._compositor", "Compositor"),
    ("textual._compositor", "Compositor.full_map"),
    ("textual._compositor", "Compositor.reflow"),
    ("textual._compositor", "Compositor.render_strips"),
    ("textual.screen", "Screen._compositor"),
    ("textual.widget", "Widget._size_updated"),
    ("textual.widget", "Widget._anchor_released"),
    ("textual.widget", "Widget._arrangement_cache"),
    ("textual.dom", "DOMNode._nodes"),
    ("textual._node_list", "NodeList._updates"),
    ("textual._animator", "Animator._animations"),
    ("textual._animator", "SimpleAnimation"),
    ("textual.widgets._markdown", "MarkdownBullet"),
    ("textual.widgets.markdown", "Markdown._parse_markdown"),
    ("textual.widgets.markdown", "Markdown._markdown"),
    ("textual.widgets.markdown", "MarkdownBlock._content"),
    ("textual.widgets.markdown", "MarkdownBlock._blocks"),
    ("textual.widgets.markdown", "MarkdownBlock._update_from_block"),
    ("textual.widgets._markdown", "MarkdownTable._get_headers_and_rows"),
    ("textual.widgets._markdown", "MarkdownTable._headers"),
    ("textual.widgets._markdown", "MarkdownTable._rows"),
    ("textual.widgets._markdown", "MarkdownTableContent"),
    ("textual._resolve", "resolve"),
    ("textual.dom", "DOMNode._bindings"),
    ("textual.dom", "DOMNode._merged_bindings"),
    ("textual.app", "App._keymap"),
    ("textual.keys", "_character_to_key"),
    ("textual.app", "App._notifications"),
    ("textual.app", "App._unnotify"),
    ("textual.app", "App._refresh_notifications"),
    ("textual.app", "App._watch_theme"),
    ("textual.app", "App._driver"),
    ("builtins", "type.__subclasses__"),
]
"""(module, dotted name in it) for each private name used below. For a class the name
may be an attribute its instances set up in ``__init__``; the test looks every one up."""


# -- drawing off screen: the compositor ------------------------------------------------


def render_alone(widget: Widget, size: Size) -> tuple[list[Strip], dict[Widget, Region]]:
    """The lines ``widget`` draws at ``size`` and where each descendant sits in them.

    Private: ``textual._compositor.Compositor`` is the only thing that lays out and draws
    a widget tree; tuibot draws finished Markdown once, off screen, and keeps the lines
    (``widgets/frozen.py``). No fallback: callers catch the error and do not freeze.
    """
    from textual._compositor import Compositor

    compositor = Compositor()
    compositor.reflow(widget, size)
    regions = {child: geometry.region for child, geometry in compositor.full_map.items()}
    return compositor.render_strips(), regions


def render_detached(widget: Widget, size: Size) -> list[Strip]:
    """The lines a mounted ``widget`` draws at ``size``, laid out by its own compositor.

    Widgets look their own region up in the screen's map (``screen._compositor.full_map``)
    while they draw, so for the moment of drawing the places found here are lent to that
    map, each widget is told its size (``Widget._size_updated``), and the places are taken
    back before anything else can run. Private all through; no fallback.
    """
    from textual._compositor import Compositor

    compositor = Compositor()
    compositor.reflow(widget, size)
    screen_map: dict[Widget, MapGeometry] = widget.screen._compositor.full_map
    placed = {w: where for w, where in compositor.full_map.items() if w not in screen_map}
    screen_map.update(placed)
    try:
        for child, where in placed.items():
            child._size_updated(
                where.region.size, where.virtual_size, where.container_size, layout=False
            )
        return compositor.render_strips()
    finally:
        for child in placed:
            screen_map.pop(child, None)


def cached_arrangement(widget: Widget, size: Size) -> DockArrangeResult | None:
    """The layout of ``widget``'s children that Textual made at ``size`` and still keeps.

    Textual keeps a few, until a child changes or the children do. Private:
    ``Widget._arrangement_cache`` (keyed by size, the children's update count and
    ``optimal``) and ``_nodes._updates``. Fallback: None (the caller lays out as usual).
    """
    cache = getattr(widget, "_arrangement_cache", None)
    updates = getattr(widget._nodes, "_updates", None)
    if cache is None or updates is None:
        return None
    return cast("DockArrangeResult | None", cache.get((size, updates, False)))


# -- scrolling ---------------------------------------------------------------------------


def anchor_released(widget: Widget) -> bool:
    """Whether the person scrolled an anchored ``widget`` away from its end.

    Private: ``Widget.release_anchor`` sets ``_anchor_released`` and Textual clears it
    when the view is back at the end; ``is_anchored`` only says ``anchor()`` was called.
    Fallback: released when the view is not at its end.
    """
    released = getattr(widget, "_anchor_released", None)
    if released is None:
        return widget.scroll_y < widget.max_scroll_y
    return bool(released)


def shift_scroll_animation(widget: Widget, rows: float) -> None:
    """Move a running ``scroll_y`` animation of ``widget`` by ``rows`` (start and end).

    When history above the view is drawn and changes height, the view moves with it; a
    smooth scroll in progress must move too or it would end on the wrong row. The public
    ``stop_animation`` / ``force_stop_animation`` would stop or jump the scroll instead.
    Private: ``Animator._animations`` and ``SimpleAnimation``. Fallback: the animation
    is left alone (it ends where it meant to, ``rows`` off).
    """
    from textual._animator import SimpleAnimation

    running = getattr(widget.app.animator, "_animations", {})
    animation = running.get((id(widget), "scroll_y"))
    if isinstance(animation, SimpleAnimation):
        animation.start_value = float(animation.start_value) + rows  # type: ignore[arg-type]
        animation.end_value = float(animation.end_value) + rows  # type: ignore[arg-type]


# -- Markdown blocks, updated in place ---------------------------------------------------


def parse_blocks(markdown: Markdown, tokens: list[Token]) -> list[MarkdownBlock]:
    """The (unmounted) blocks ``markdown`` would mount for ``tokens``.

    Private: ``Markdown._parse_markdown``; ``Markdown.update`` / ``append`` parse and
    mount in one go, and the live tail must compare before it mounts. No fallback.
    """
    return list(markdown._parse_markdown(tokens))


def set_source(markdown: Markdown, text: str) -> None:
    """Make ``markdown.source`` say ``text`` (the live tail mounts blocks itself).

    Private: ``Markdown._markdown`` backs the public ``source``. Fallback: none needed
    (setting an attribute that is gone does no harm).
    """
    markdown._markdown = text


def block_content(block: MarkdownBlock) -> Content:
    """The text of a paragraph or heading block (``set_content`` is public, reading not)."""
    return block._content


def child_blocks(block: MarkdownBlock) -> list[MarkdownBlock]:
    """The blocks a parsed, not yet mounted, list item, list or quote holds (``_blocks``)."""
    return list(block._blocks)


async def update_block(old: MarkdownBlock, new: MarkdownBlock) -> None:
    """Give mounted ``old`` the content of parsed ``new`` (a fence or a table), in place.

    Private: ``MarkdownBlock._update_from_block`` is how ``Markdown.append`` itself
    updates the last block. No fallback.
    """
    await old._update_from_block(new)


def table_cells(table: MarkdownBlock, *, parsed: bool) -> tuple[list[Content], list[list[Content]]]:
    """Headers and rows of a Markdown table: a ``parsed`` one's, or what a mounted one shows.

    Private: ``MarkdownTable._get_headers_and_rows`` and ``_headers`` / ``_rows``. No
    fallback.
    """
    if parsed:
        headers, rows = table._get_headers_and_rows()  # type: ignore[attr-defined]
        return headers, rows
    return table._headers, table._rows  # type: ignore[attr-defined]


def keep_table_cells(
    table: MarkdownBlock, headers: list[Content], rows: list[list[Content]]
) -> None:
    """Record the cells a mounted table shows, where Textual's table keeps them.

    A light table (``widgets/light_table.py``) draws its cells itself; Textual's update
    of a table (``_update_from_block``) and ``table_cells(parsed=False)`` read them
    here. Private: ``MarkdownTable._headers`` / ``_rows``. No fallback.
    """
    table._headers, table._rows = headers, rows  # type: ignore[attr-defined]


def textual_table_content(headers: list[Content], rows: list[list[Content]]) -> Widget:
    """Textual's grid of table cells, for a light table that falls back to it.

    Private: ``MarkdownTableContent`` is not exported. No fallback.
    """
    from textual.widgets._markdown import MarkdownTableContent

    return MarkdownTableContent(headers, rows)


def resolve_columns(
    scalars: list[Scalar], size: Size, viewport: Size, minimums: list[int]
) -> list[tuple[int, int]]:
    """Column (offset, width) as Textual's grid gives a Markdown table's at ``size``.

    The grid resolves auto columns that expand to the width and shrink to the cells'
    minimal widths, with a gutter of one; a light table must match it exactly.
    Private: ``textual._resolve.resolve``. No fallback.
    """
    from textual._resolve import resolve

    return resolve(
        scalars, size.width, 1, size, viewport, expand=True, shrink=True, minimums=minimums
    )


def make_bullet(symbol: str) -> Widget:
    """A list bullet as Markdown's lists compose it (``MarkdownBullet`` is not exported)."""
    from textual.widgets._markdown import MarkdownBullet

    bullet = MarkdownBullet()
    bullet.symbol = symbol
    return bullet


def bullet_symbol(widget: Widget | None) -> str | None:
    """The symbol of a list bullet widget, or None for anything else."""
    from textual.widgets._markdown import MarkdownBullet

    return widget.symbol if isinstance(widget, MarkdownBullet) else None


# -- bindings and keys -----------------------------------------------------------------


def node_classes() -> Iterator[type[DOMNode]]:
    """Every widget and screen class loaded, each once.

    No public API lists them; ``type.__subclasses__`` walks Textual's class tree (theme
    checks parse every class's ``DEFAULT_CSS``; keymap checks read every class's bindings).
    """
    pending: list[type[DOMNode]] = [DOMNode]
    seen: set[type[DOMNode]] = set()
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        pending.extend(cls.__subclasses__())
        yield cls


def class_bindings(cls: type[DOMNode]) -> BindingsMap | None:
    """The bindings instances of ``cls`` start with (its own and inherited), or None.

    Private: ``DOMNode._merged_bindings``. Fallback: the class's own ``BINDINGS``.
    """
    merged = getattr(cls, "_merged_bindings", ...)
    if merged is ...:
        own = cls.__dict__.get("BINDINGS", [])
        return BindingsMap(own) if own else None
    return merged if isinstance(merged, BindingsMap) else None


def node_bindings(node: DOMNode) -> BindingsMap:
    """The bindings ``node`` has now (the keymap applied), as its key lookups use them.

    Private: ``DOMNode._bindings``; ``App.active_bindings`` only has the focused chain's,
    and the help screen lists every pane's. Fallback: the class's bindings.
    """
    found = getattr(node, "_bindings", None)
    if isinstance(found, BindingsMap):
        return found
    return class_bindings(type(node)) or BindingsMap()


def app_keymap(app: App[Any]) -> dict[str, str]:
    """The keymap set with ``App.set_keymap`` (binding id → keys); there is no getter.

    Private: ``App._keymap``. Fallback: an empty keymap (keys shown as declared).
    """
    return dict(getattr(app, "_keymap", {}))


def character_to_key(character: str) -> str:
    """The key name Textual gives a one-character key (``?`` → ``question_mark``).

    Private: ``textual.keys._character_to_key``. Fallback: the character itself.
    """
    try:
        from textual.keys import _character_to_key
    except ImportError:
        return character
    return _character_to_key(character)


# -- notifications, theme, terminal ----------------------------------------------------


def withdraw_toasts(app: App[Any], title: str) -> None:
    """Take back the toasts titled ``title``; other toasts stay.

    Private: ``App._notifications``, ``_unnotify`` and ``_refresh_notifications``; the
    public ``clear_notifications`` withdraws every toast. Fallback: that.
    """
    try:
        toasts = [toast for toast in app._notifications if toast.title == title]
        for toast in toasts:
            app._unnotify(toast, refresh=False)
        app._refresh_notifications()
    except AttributeError:
        app.clear_notifications()


def reapply_theme(app: App[Any]) -> None:
    """Apply the active theme again (its definition changed under the same name).

    Setting ``app.theme`` to the name it has does nothing, so this runs Textual's own
    watcher (``App._watch_theme``: theme classes, ANSI colour filter, CSS variables, the
    theme-changed signal) and no other watcher. Fallback: ``mutate_reactive``, which runs
    it and every watcher of ``theme`` (history and answers are drawn again, too).
    """
    watcher = getattr(app, "_watch_theme", None)
    if callable(watcher):
        watcher(app.theme)
    else:
        from textual.app import App

        app.mutate_reactive(App.theme)


def write_to_terminal(app: App[Any], data: str) -> bool:
    """Write raw ``data`` to the terminal as ``App.bell`` writes its BEL; False if no driver.

    Private: ``App._driver`` (no public accessor; ``App.bell`` and ``copy_to_clipboard``
    use it). A headless driver writes nothing. Fallback: nothing is written.
    """
    driver = getattr(app, "_driver", None)
    if driver is None:
        return False
    driver.write(data)
    return True


@contextmanager
def running_in(widget: Widget) -> Iterator[None]:
    """Code run as if by ``widget``'s own message pump: a footer's keys bind to the footer
    (``data_bind``), so building them from the app's ``on_mount`` needs this. No fallback:
    the footer's first-frame test fails without it."""
    from textual._context import active_message_pump

    token = active_message_pump.set(widget)
    try:
        yield
    finally:
        active_message_pump.reset(token)

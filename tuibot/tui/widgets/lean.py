"""Containers that cost less on each frame of a streamed answer.

While an answer streams and the view follows its end, every frame moves every line on
screen, so the screen draws all of them again, and lays out the blocks that grew. Two
costs of Textual's containers there are pure repetition, and :class:`LeanContainer`
takes them away without changing a cell or a place:

- A container draws only its background (under its children), yet each of its lines is
  drawn apart, and all of them again whenever its height changes (the answer grew by a
  line). The lines of a plain container are one of at most three kinds (top padding,
  middle, bottom padding), so each kind is drawn once and repeated.
- A container of ``height: auto`` is laid out twice per frame: once to measure its
  height and once at the height found. For a
  vertical stack whose children do not depend on its height the two are the same
  arrangement, so the first is reused; nested containers otherwise double the work at
  each level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.css.scalar import Scalar, Unit
from textual.geometry import Region, Size
from textual.layout import DockArrangeResult
from textual.strip import Strip
from textual.widget import Widget

from tuibot.tui import compat

_HEIGHT_UNITS = frozenset({Unit.FRACTION, Unit.PERCENT, Unit.HEIGHT})
"""Units that make a child's height depend on its container's height."""
_NO_EDGE = frozenset({"", "none"})

if TYPE_CHECKING:
    _Base = Widget
else:
    _Base = object  # Textual takes CSS from the first base's line: a mixin must not hide it


class LeanContainer(_Base):
    """A container whose background lines and auto-height layout are not redone.

    Mix it in before the container class (``class Blocks(LeanContainer, Vertical)``);
    the container's CSS and type selectors stay its own.
    Anything it cannot prove equal (a border, keylines, a child of ``1fr`` height …)
    goes Textual's own way.
    """

    _lean_measured_at = 0
    """The height this container was last measured at (other than 0)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        """Each kind of background line drawn once (see the module docstring)."""
        if not _plain_background(self):
            return super().render_lines(crop)
        top = self.styles.padding.top
        bottom = self.outer_size.height - self.styles.padding.bottom
        drawn: dict[int, Strip] = {}
        strips = []
        for y in crop.line_range:
            kind = top if top <= y < bottom else y  # padding rows stay themselves
            strip = drawn.get(kind)
            if strip is None:
                line = Region(crop.x, kind, crop.width, 1)
                strip = drawn[kind] = super().render_lines(line)[0]
            strips.append(strip)
        return strips

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Reuse the arrangement made to measure the height (see the module docstring).

        The layout Textual made to measure this container at this width (at height 0,
        or at its parent's height when all children are of dynamic height), if it is
        still kept and came out this tall, is the one it would make again here: the
        children's sizes do not depend on the container's height.
        """
        if optimal or not _stacks_by_content(self):
            return super().arrange(size, optimal)
        for height in {0, self._lean_measured_at} - {size.height}:
            made = compat.cached_arrangement(self, Size(size.width, height))
            if made is not None and made.total_region.height == size.height:
                return made
        arrangement = super().arrange(size, optimal)
        if arrangement.total_region.height != size.height:
            self._lean_measured_at = size.height  # a measurement (at a parent's height)
        return arrangement


def _plain_background(widget: Widget) -> bool:
    """Whether ``widget`` draws nothing but its background (and padding)."""
    styles = widget.styles
    return (
        type(widget).render is Widget.render
        and str(styles.keyline[0]) == "none"  # typed without its default
        and styles.hatch in (None, "none")
        and all(edge[0] in _NO_EDGE for edge in styles.border)
        and all(edge[0] in _NO_EDGE for edge in styles.outline)
    )


def _stacks_by_content(widget: Widget) -> bool:
    """Whether ``widget``'s layout at its content height equals the one at height 0.

    True for a top-aligned vertical stack of ``height: auto`` whose shown children are
    not docked and take no part of its height.
    """
    styles = widget.styles
    if styles.height is None or not styles.height.is_auto or styles.align_vertical != "top":
        return False
    if styles.layout is not None and styles.layout.name != "vertical":
        return False
    for child in widget.displayed_children:
        child_styles = child.styles
        if child_styles.is_docked or child_styles.overlay == "screen":
            return False
        heights = (child_styles.height, child_styles.min_height, child_styles.max_height)
        if any(_relative(scalar) for scalar in heights):
            return False
    return True


def _relative(scalar: Scalar | None) -> bool:
    return scalar is not None and scalar.unit in _HEIGHT_UNITS


class LeanVertical(LeanContainer, Vertical):
    """A :class:`~textual.containers.Vertical` that is a :class:`LeanContainer`."""

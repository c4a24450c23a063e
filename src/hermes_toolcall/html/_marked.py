"""Source text with its parts as hover regions and its findings as highlights.

`marked` writes ``source[start:end]``: each region (a part of the parse: a call, a result, a tag) is a
``<span class="pt …">`` whose ``title`` names it and its span; each finding's range is one or more
``<mark data-f="ID">`` pieces whose text, joined in document order, is the finding's slice of the
source (through `shown`, one character each). A zero-width finding is an empty ``<mark class="zw">``
at its offset. With a ``budget``, a long text keeps windows around the marks and says how many
characters each gap leaves out.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ._escape import attr, text

__all__ = ["Mark", "Region", "marked"]

_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """A part of the source, shown on hover: ``[start, end)``, its kind (a CSS class) and a label."""

    start: int
    end: int
    kind: str
    label: str
    ident: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Mark:
    """A finding's range ``[start, end)`` of the source (``start == end``: a point)."""

    start: int
    end: int
    ident: str
    severity: str
    label: str


def _keep(start: int, end: int, marks: Sequence[Mark], budget: int) -> list[tuple[int, int]]:
    """The ranges of ``[start, end)`` to show when it is longer than ``budget``: windows around the marks."""
    context = max(budget // 8, 40)
    wanted = [(start, start + context)]
    for m in marks:
        if m.end - m.start <= 2 * context:
            wanted.append((m.start - context, m.end + context))
        else:
            wanted += [(m.start - context, m.start + context), (m.end - context, m.end + context)]
    if not marks:
        wanted = [(start, start + budget)]
    merged: list[tuple[int, int]] = []
    for a, b in sorted((max(a, start), min(b, end)) for a, b in wanted):
        if a >= b:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def marked(
    source: str,
    start: int,
    end: int,
    *,
    regions: Sequence[Region] = (),
    marks: Sequence[Mark] = (),
    budget: int | None = None,
) -> str:
    """HTML for ``source[start:end]`` with ``regions`` (non-overlapping) and ``marks`` (any overlap).

    Args:
        source: the whole text the offsets are into.
        start: where to begin.
        end: where to stop.
        regions: parts to wrap (sorted or not; each clipped to ``[start, end)``).
        marks: findings to highlight (clipped likewise; those outside are left out).
        budget: when the text is longer, show windows around the marks and count what is left out.

    Returns:
        The HTML (text, ``<span class="pt">``, ``<mark>``, ``<span class="gap">``).

    >>> marked("say <b>hi</b>", 0, 13, marks=[Mark(start=4, end=7, ident="f1", severity="error", label="x")])
    'say <mark class="hl error" data-f="f1" title="x">&lt;b&gt;</mark>hi&lt;/b&gt;'
    """
    inside: list[Mark] = []
    for m in marks:
        if m.start == m.end:
            if start <= m.start <= end:
                inside.append(m)
        elif m.start < end and m.end > start:
            clipped = start <= m.start and m.end <= end
            inside.append(m if clipped else Mark(
                start=max(m.start, start), end=min(m.end, end), ident=m.ident, severity=m.severity, label=m.label
            ))
    spans = sorted((r for r in regions if r.start < end and r.end > start and r.start < r.end), key=lambda r: r.start)
    keep = [(start, end)] if budget is None or end - start <= budget else _keep(start, end, inside, budget)
    cuts = {start, end}
    for r in spans:
        cuts.update((max(r.start, start), min(r.end, end)))
    for m in inside:
        cuts.update((m.start, m.end))
    for a, b in keep:
        cuts.update((a, b))
    points = sorted(cuts)
    opening: dict[int, list[Mark]] = {}
    points_at: dict[int, list[Mark]] = {}
    for m in inside:
        (points_at if m.start == m.end else opening).setdefault(m.start, []).append(m)
    starts = [max(r.start, start) for r in spans]
    active: dict[str, Mark] = {}
    out: list[str] = []
    open_region: Region | None = None
    k = 0  # the first kept range that does not end at or before the current atom
    in_gap = False

    def close_region() -> None:
        nonlocal open_region
        if open_region is not None:
            out.append("</span>")
            open_region = None

    def region_at(x: int) -> Region | None:
        i = bisect.bisect_right(starts, x) - 1
        if i >= 0 and spans[i].start <= x < spans[i].end:
            return spans[i]
        return None

    def zero_width(x: int) -> None:
        for m in points_at.get(x, ()):
            out.append(
                f'<mark class="hl zw {attr(m.severity)}" data-f="{attr(m.ident)}" title="{attr(m.label)}"></mark>'
            )

    for a, b in itertools.pairwise(points):
        for m in opening.get(a, ()):
            active[m.ident] = m
        for ident in [i for i, m in active.items() if m.end <= a]:
            del active[ident]
        while k < len(keep) and keep[k][1] <= a:
            k += 1
        if k == len(keep) or keep[k][0] > a:  # an atom left out
            if not in_gap:
                close_region()
                upto = keep[k][0] if k < len(keep) else end
                out.append(f'<span class="gap">[… {upto - a:,} characters not shown …]</span>')
                in_gap = True
            continue
        in_gap = False
        region = region_at(a)
        if region is not open_region:
            close_region()
            if region is not None:
                out.append(
                    f'<span class="pt k-{attr(region.kind)}" data-part="{attr(region.ident)}" '
                    f'title="{attr(region.label)}">'
                )
                open_region = region
        zero_width(a)
        piece = text(source[a:b])
        if active:
            ms = sorted(active.values(), key=lambda m: (_RANK.get(m.severity, 1), m.ident))
            ids = " ".join(m.ident for m in ms)
            label = "\n".join(m.label for m in ms)
            nl = " nl" if not source[a:b].strip("\n") else ""  # only newlines: drawn with a ⏎ (CSS, not text)
            piece = (f'<mark class="hl {attr(ms[0].severity)}{nl}" data-f="{attr(ids)}" title="{attr(label)}">'
                     f"{piece}</mark>")
        out.append(piece)
    zero_width(end)
    close_region()
    return "".join(out)

"""Drawing a battlefield picture (a scene of `referee.kit.tabletop.picture`) as SVG and as PNG.

The scene is first laid out once as a short list of shapes in pixels (`layout`): polygons,
lines, circles and texts. Two small painters then write the same shapes: `svg` as SVG 1.1
text written by hand (escaped, fixed number formats, so the same scene always gives the same
bytes), embedded in a letter's HTML; `png` with Pillow, drawn at twice the size and reduced
for smooth edges, then reduced to a palette so that a picture stays small, attached to the
mail because Gmail and Outlook show no SVG. docs/pictures.md says why Pillow.

Nothing here knows a game: the colours of terrain kinds, the looks of units and the arrows'
kinds are the scene format's (docs/pictures.md).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

Colour = str  # "#rrggbb"
XY = tuple[float, float]

WIDTH_PX = 760  # the widest a table is drawn: a letter's column, and a phone's screen at 2x
DEPTH_PX = 600
MARGIN = 14
TOP = 30  # the title
BOTTOM = 46  # the scale bar and the compass
FONT = 11
SMALL = 9
UNIT_FONT = 8
CLOTH = "#f3efe2"
INK = "#222222"
FRONT = "#111111"
TERRAIN: dict[str, Colour] = {
    "wood": "#9cc68b",
    "woods": "#9cc68b",
    "forest": "#9cc68b",
    "orchard": "#b7d69a",
    "hill": "#e2d3a0",
    "river": "#86bde3",
    "stream": "#9ccbea",
    "lake": "#86bde3",
    "water": "#86bde3",
    "marsh": "#b3d3c3",
    "village": "#ccb28e",
    "town": "#c2a27c",
    "buildings": "#c2a27c",
    "farm": "#d6c09b",
    "road": "#d9c8a3",
    "ford": "#a9cfe0",
    "bridge": "#b59b72",
    "fortification": "#a99c8c",
    "rough": "#d0c7a8",
}
OTHER_TERRAIN = "#cfcfc4"
ARROW: dict[str, tuple[Colour, float, tuple[int, ...]]] = {  # colour, width, dashes
    "move": ("#333333", 1.6, ()),
    "charge": ("#b3261e", 2.2, ()),
    "wheel": ("#333333", 1.6, (5, 3)),
    "fall-back": ("#9a5b00", 1.8, (6, 3)),
    "flee": ("#d0021b", 1.8, (3, 3)),
    "shot": ("#444444", 1.0, (2, 3)),
}
MARKER: dict[str, Colour] = {"combat": "#d0021b", "shot": "#444444", "destroyed": "#000000"}
OTHER_MARKER = "#6b2fa3"
# What each look and kind means, for the legend under a picture.
LOOK_WORDS = {
    "unit": "a card face up (a heavier line marks its front edge)",
    "card-back": "a face-down card: a real unit or a dummy, you cannot tell which",
    "own-face-down": "your card still face down (the opponent sees only its back)",
    "own-dummy": "your dummy (the opponent sees a face-down card)",
}
ARROW_WORDS = {
    "move": "a move this phase",
    "charge": "a charge",
    "wheel": "a wheel",
    "fall-back": "a fall back",
    "flee": "a unit fleeing",
    "shot": "a shot",
}
MARKER_WORDS = {"combat": "a combat", "shot": "a shot's target", "destroyed": "a unit destroyed"}


# -- shapes in pixels ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Poly:
    points: tuple[XY, ...]
    fill: Colour | None
    stroke: Colour | None
    width: float = 1.0
    dash: tuple[int, ...] = ()


@dataclass(frozen=True)
class Line:
    points: tuple[XY, ...]
    colour: Colour
    width: float
    dash: tuple[int, ...] = ()


@dataclass(frozen=True)
class Circle:
    centre: XY
    radius: float
    fill: Colour | None
    stroke: Colour | None
    width: float = 1.0


@dataclass(frozen=True)
class Text:
    at: XY
    text: str
    size: int
    colour: Colour = INK
    anchor: str = "middle"  # start, middle or end
    bold: bool = False
    halo: Colour | None = None  # a ring of this colour around the letters, to read them on any ground


Shape = Poly | Line | Circle | Text


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    shapes: tuple[Shape, ...]


def layout(scene: Mapping[str, Any]) -> Layout:
    """Return the scene laid out in pixels: the table to scale, then the scale bar and compass."""
    table_w, table_d = float(scene["table"]["width"]), float(scene["table"]["depth"])
    scale = min(WIDTH_PX / table_w, DEPTH_PX / table_d)
    width = round(table_w * scale) + 2 * MARGIN
    height = TOP + round(table_d * scale) + BOTTOM

    def at(xy: Sequence[float]) -> XY:
        return (MARGIN + xy[0] * scale, TOP + (table_d - xy[1]) * scale)

    sides = scene["sides"]
    shapes: list[Shape] = [
        Text((MARGIN, TOP - 10), clean(scene["title"]), FONT + 2, anchor="start", bold=True),
        Poly((at((0, 0)), at((table_w, 0)), at((table_w, table_d)), at((0, table_d))), CLOTH, "#8a8470", 1.0),
    ]
    by_kind: dict[str, list[Mapping[str, Any]]] = {}
    for item in scene["items"]:
        by_kind.setdefault(item["item"], []).append(item)
    for item in by_kind.get("terrain", []):
        shapes += _terrain(item, at, scale)
    # Arrows over the cards (a move's head lies on the card that made it), every text on top.
    texts: list[Shape] = []
    for item in by_kind.get("unit", []):
        drawn = _unit(item, [at(p) for p in item["points"]], sides[item["side"]]["colour"])
        shapes += [shape for shape in drawn if not isinstance(shape, Text)]
        texts += [shape for shape in drawn if isinstance(shape, Text)]
    for item in by_kind.get("arrow", []):
        colour, line_width, dash = ARROW[item["kind"]]
        shapes += _arrow([at(p) for p in item["points"]], colour, line_width, dash)
    for item in by_kind.get("marker", []):
        shapes += _marker(item, at(item["at"]))
    shapes += texts
    for item in by_kind.get("label", []):
        shapes.append(Text(at(item["at"]), clean(item["text"]), FONT, halo="#ffffff"))
    shapes += _scale_bar(scale, height)
    shapes += _compass(width, height)
    return Layout(width, height, tuple(shapes))


def _terrain(item: Mapping[str, Any], at: Any, scale: float) -> list[Shape]:
    colour = TERRAIN.get(item["kind"].lower(), OTHER_TERRAIN)
    shapes: list[Shape]
    if "line" in item:
        points = [at(p) for p in item["line"]]
        shapes = [Line(tuple(points), colour, max(2.0, item["width"] * scale))]
        centre = points[len(points) // 2]
        anchor = "middle"
    else:
        points = [at(p) for p in item["points"]]
        shapes = [Poly(tuple(points), colour, darker(colour), 1.0)]
        # The name goes just inside the piece's top, not at its centre, where the cards standing
        # in a village or a wood would hide it.
        top = min(points, key=lambda p: (p[1], p[0]))
        level = any(p is not top and abs(p[1] - top[1]) < 0.5 for p in points)  # a flat top: start at its left
        centre = (top[0] + 4, top[1] + SMALL + 3) if level else (top[0], top[1] + SMALL + 3)
        anchor = "start" if level else "middle"
    label = item.get("label")
    if label:
        shapes.append(Text(centre, clean(label), SMALL, "#4a4a3a", anchor=anchor, halo=lighter(colour, 0.5)))
    return shapes


def _unit(item: Mapping[str, Any], corners: list[XY], colour: Colour) -> list[Shape]:
    front_left, front_right, rear_right, rear_left = corners
    look = item["look"]
    outline = tuple(corners)
    shapes: list[Shape]
    if look == "unit":
        shapes = [Poly(outline, lighter(colour, 0.55), colour, 1.2)]
    elif look == "card-back":
        shapes = [
            Poly(outline, lighter(colour, 0.2), darker(colour), 1.2),
            Line((front_left, rear_right), lighter(colour, 0.6), 1.0),
            Line((front_right, rear_left), lighter(colour, 0.6), 1.0),
        ]
    elif look == "own-face-down":
        shapes = [Poly(outline, lighter(colour, 0.75), colour, 1.2, (3, 2))]
    else:  # own-dummy
        shapes = [Poly(outline, "#ffffff", colour, 1.2, (2, 2))]
    shapes.append(Line((front_left, front_right), FRONT, 2.6))
    centre = (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4)
    if item["label"]:
        # Two short lines fit a card drawn a few dozen pixels wide: "B10" over "HvC".
        ink, halo = ("#ffffff", darker(colour, 0.4)) if look == "card-back" else (INK, "#ffffff")
        lines = clean(item["label"]).split(" ", 1)
        for row, line in enumerate(lines):
            y = centre[1] + (row - (len(lines) - 1) / 2) * (UNIT_FONT + 1)
            shapes.append(Text((centre[0], y), line, UNIT_FONT, ink, bold=look == "unit", halo=halo))
    return shapes


def _arrow(points: list[XY], colour: Colour, width: float, dash: tuple[int, ...]) -> list[Shape]:
    points = [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
    if len(points) < 2:
        return []
    (x1, y1), (x2, y2) = points[-2], points[-1]
    length = math.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    head = 4 + 2.5 * width
    base = (x2 - ux * head, y2 - uy * head)
    wing = head * 0.45
    tip = (
        (x2, y2),
        (base[0] - uy * wing, base[1] + ux * wing),
        (base[0] + uy * wing, base[1] - ux * wing),
    )
    shaft = (*points[:-1], base) if length > head else tuple(points[:-1])
    shapes: list[Shape] = [Line(tuple(shaft), colour, width, dash)] if len(shaft) >= 2 else []
    return [*shapes, Poly(tip, colour, colour, 1.0)]


def _marker(item: Mapping[str, Any], centre: XY) -> list[Shape]:
    colour = MARKER.get(item["kind"], OTHER_MARKER)
    x, y = centre
    r = 7.0
    if item["kind"] == "destroyed":
        shapes: list[Shape] = [
            Line(((x - r, y - r), (x + r, y + r)), colour, 2.4),
            Line(((x - r, y + r), (x + r, y - r)), colour, 2.4),
        ]
    elif item["kind"] == "combat":
        r = 5.0  # small: it sits on the edge two cards touch, between their labels
        star = tuple(
            (
                x + (r * 1.3 if i % 2 == 0 else r * 0.55) * math.sin(i * math.pi / 6),
                y - (r * 1.3 if i % 2 == 0 else r * 0.55) * math.cos(i * math.pi / 6),
            )
            for i in range(12)
        )
        shapes = [Poly(star, "#ffd23f", colour, 1.4)]
    else:
        shapes = [Circle(centre, r, None, colour, 1.6), Circle(centre, 2.0, colour, None)]
    if item.get("label"):
        shapes.append(
            Text((x + r + 3, y), clean(item["label"]), SMALL, colour, anchor="start", bold=True, halo="#ffffff")
        )
    return shapes


def _scale_bar(scale: float, height: int) -> list[Shape]:
    """A bar of 10 cm steps (fewer on a small table), labelled in cm."""
    step = 100.0  # mm
    steps = 3
    y = height - BOTTOM + 22
    shapes: list[Shape] = []
    for i in range(steps):
        x = MARGIN + i * step * scale
        shapes.append(
            Poly(
                ((x, y), (x + step * scale, y), (x + step * scale, y + 5), (x, y + 5)),
                INK if i % 2 == 0 else "#ffffff",
                INK,
                1.0,
            )
        )
    for i in range(steps + 1):
        shapes.append(Text((MARGIN + i * step * scale, y - 4), f"{i * 10}", SMALL))
    shapes.append(Text((MARGIN + steps * step * scale + 10, y + 6), "cm", SMALL, anchor="start"))
    return shapes


def _compass(width: int, height: int) -> list[Shape]:
    x, y = width - MARGIN - 10, height - BOTTOM + 28
    return [
        Poly(((x, y - 16), (x + 5, y), (x, y - 4), (x - 5, y)), INK, INK, 1.0),
        Text((x, y - 20), "N", FONT, bold=True),
    ]


def clean(text: str) -> str:
    """Return text without control characters (XML forbids most of them), at most 80 long."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:80]


def _rgb(colour: Colour) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _hex(rgb: Iterable[float]) -> Colour:
    return "#" + "".join(f"{max(0, min(255, round(v))):02x}" for v in rgb)


def lighter(colour: Colour, amount: float) -> Colour:
    return _hex(v + (255 - v) * amount for v in _rgb(colour))


def darker(colour: Colour, amount: float = 0.3) -> Colour:
    return _hex(v * (1 - amount) for v in _rgb(colour))


# -- SVG ----------------------------------------------------------------------------------------------


def svg(scene: Mapping[str, Any]) -> str:
    """Return the scene as an SVG 1.1 document (one <svg> element, to embed in HTML as is)."""
    return svg_of(layout(scene), scene["title"])


def svg_of(laid: Layout, title: str) -> str:
    """Return shapes laid out in pixels as an SVG 1.1 document titled `title` (any picture's)."""
    title = _escape(clean(title))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{laid.width}" height="{laid.height}" '
        f'viewBox="0 0 {laid.width} {laid.height}" role="img" aria-label="{title}" '
        'font-family="DejaVu Sans, Arial, Helvetica, sans-serif" style="max-width:100%;height:auto">',
        f"<title>{title}</title>",
        f'<rect width="{laid.width}" height="{laid.height}" fill="#ffffff"/>',
    ]
    out += [_svg_shape(shape) for shape in laid.shapes]
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_shape(shape: Shape) -> str:
    if isinstance(shape, Poly):
        dash = f' stroke-dasharray="{_dash(shape.dash)}"' if shape.dash else ""
        return (
            f'<polygon points="{_points(shape.points)}" fill="{shape.fill or "none"}" '
            f'stroke="{shape.stroke or "none"}" stroke-width="{_num(shape.width)}"{dash} stroke-linejoin="round"/>'
        )
    if isinstance(shape, Line):
        dash = f' stroke-dasharray="{_dash(shape.dash)}"' if shape.dash else ""
        return (
            f'<polyline points="{_points(shape.points)}" fill="none" stroke="{shape.colour}" '
            f'stroke-width="{_num(shape.width)}"{dash} stroke-linecap="round" stroke-linejoin="round"/>'
        )
    if isinstance(shape, Circle):
        return (
            f'<circle cx="{_num(shape.centre[0])}" cy="{_num(shape.centre[1])}" r="{_num(shape.radius)}" '
            f'fill="{shape.fill or "none"}" stroke="{shape.stroke or "none"}" stroke-width="{_num(shape.width)}"/>'
        )
    weight = ' font-weight="bold"' if shape.bold else ""
    if shape.halo:
        weight += f' stroke="{shape.halo}" stroke-width="2.5" stroke-linejoin="round" paint-order="stroke"'
    return (
        f'<text x="{_num(shape.at[0])}" y="{_num(shape.at[1] + shape.size * 0.35)}" font-size="{shape.size}" '
        f'fill="{shape.colour}" text-anchor="{shape.anchor}"{weight}>{_escape(shape.text)}</text>'
    )


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else ("0" if text == "-0" else text)


def _points(points: Iterable[XY]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _dash(dash: tuple[int, ...]) -> str:
    return ",".join(str(d) for d in dash)


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


# -- PNG ----------------------------------------------------------------------------------------------

SUPERSAMPLE = 2
PALETTE = 64  # colours: a picture has a dozen flat ones and their smoothed edges


def png(scene: Mapping[str, Any]) -> bytes:
    """Return the scene as PNG bytes (encoded once per distinct scene in a process)."""
    return _png(_key(scene))


def _key(scene: Mapping[str, Any]) -> str:
    return json.dumps(scene, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=32)
def _png(key: str) -> bytes:
    return png_of(layout(json.loads(key)))


def png_of(laid: Layout) -> bytes:
    """Return shapes laid out in pixels as PNG bytes (any picture's), smoothed and on a palette."""
    from PIL import Image, ImageDraw  # deferred: a letter without a picture loads no imaging library

    k = SUPERSAMPLE
    image = Image.new("RGB", (laid.width * k, laid.height * k), "#ffffff")
    draw = ImageDraw.Draw(image)
    for shape in laid.shapes:
        _paint(draw, shape, k)
    image = image.resize((laid.width, laid.height), Image.Resampling.LANCZOS)
    image = image.quantize(PALETTE, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _paint(draw: Any, shape: Shape, k: int) -> None:
    def scaled(points: Iterable[XY]) -> list[XY]:
        return [(x * k, y * k) for x, y in points]

    if isinstance(shape, Poly):
        points = scaled(shape.points)
        if shape.fill:
            draw.polygon(points, fill=shape.fill)
        if shape.stroke:
            _stroke(draw, [*points, points[0]], shape.stroke, shape.width * k, tuple(d * k for d in shape.dash))
    elif isinstance(shape, Line):
        _stroke(draw, scaled(shape.points), shape.colour, shape.width * k, tuple(d * k for d in shape.dash))
    elif isinstance(shape, Circle):
        (x, y), r = shape.centre, shape.radius
        box = [(x - r) * k, (y - r) * k, (x + r) * k, (y + r) * k]
        draw.ellipse(box, fill=shape.fill, outline=shape.stroke, width=round(shape.width * k) if shape.stroke else 0)
    else:
        anchor = {"start": "lm", "middle": "mm", "end": "rm"}[shape.anchor]
        font = _font(shape.size * k, shape.bold)
        x, y = shape.at[0] * k, shape.at[1] * k
        if shape.halo:
            draw.text(
                (x, y),
                shape.text,
                fill=shape.halo,
                font=font,
                anchor=anchor,
                stroke_width=k + 1,
                stroke_fill=shape.halo,
            )
        draw.text((x, y), shape.text, fill=shape.colour, font=font, anchor=anchor)


def _stroke(draw: Any, points: list[XY], colour: Colour, width: float, dash: tuple[float, ...]) -> None:
    pieces = _dashed(points, dash) if dash else [points]
    for piece in pieces:
        if len(piece) >= 2:
            draw.line(piece, fill=colour, width=max(1, round(width)), joint="curve")


def _dashed(points: list[XY], dash: tuple[float, ...]) -> list[list[XY]]:
    """Return the drawn pieces of a dashed polyline (dash: on, off lengths, repeated)."""
    pieces: list[list[XY]] = []
    current: list[XY] = [points[0]]
    index, left, on = 0, dash[0], True
    for (x1, y1), (x2, y2) in zip(points, points[1:]):
        length = math.hypot(x2 - x1, y2 - y1)
        done = 0.0
        while length - done > left:
            done += left
            point = (x1 + (x2 - x1) * done / length, y1 + (y2 - y1) * done / length)
            if on:
                current.append(point)
                pieces.append(current)
            current = [point]
            on = not on
            index = (index + 1) % len(dash)
            left = dash[index]
        left -= length - done
        if on:
            current.append((x2, y2))
    if on and len(current) >= 2:
        pieces.append(current)
    return pieces


@lru_cache(maxsize=16)
def _font(size: int, bold: bool) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, AttributeError, OSError):  # Pillow without FreeType: its small bitmap font
        return ImageFont.load_default()


# -- words for the letter ----------------------------------------------------------------------------


def legend(scene: Mapping[str, Any]) -> list[str]:
    """Return the short text legend a letter prints under the picture: the sides, then what each
    look, arrow and marker drawn means (only those the picture holds)."""
    items = scene["items"]
    piece = scene.get("piece")
    lines = [f"{side['name']}: {_colour_name(side['colour'], piece)}" for side in scene["sides"].values()]
    looks = sorted({i["look"] for i in items if i["item"] == "unit"}, key=list(LOOK_WORDS).index)
    if piece is not None and looks == ["unit"]:  # a base, not a card: never face down
        lines.append(f"filled {piece}: a {piece} (a heavier line marks its front edge)")
    else:
        lines += [f"{_look_shape(look)}: {LOOK_WORDS[look]}" for look in looks]
    arrows = sorted({i["kind"] for i in items if i["item"] == "arrow"}, key=list(ARROW_WORDS).index)
    lines += [f"{_arrow_shape(kind)}: {ARROW_WORDS[kind]}" for kind in arrows]
    markers = sorted({i["kind"] for i in items if i["item"] == "marker"})
    lines += [f"{_marker_shape(kind)}: {MARKER_WORDS.get(kind, kind)}" for kind in markers]
    lines.append("north is up; the bar at the foot measures 10 cm steps")
    return lines


def _look_shape(look: str) -> str:
    return {
        "unit": "filled card",
        "card-back": "dark card with a cross",
        "own-face-down": "pale card, dashed outline",
        "own-dummy": "white card, dotted outline",
    }[look]


def _arrow_shape(kind: str) -> str:
    return {
        "move": "grey arrow",
        "charge": "red arrow",
        "wheel": "dashed grey arrow",
        "fall-back": "dashed brown arrow",
        "flee": "dotted red arrow",
        "shot": "dotted grey arrow",
    }[kind]


def _marker_shape(kind: str) -> str:
    return {"combat": "yellow star", "destroyed": "black cross", "shot": "ringed dot"}.get(kind, "purple ring")


def _colour_name(colour: Colour, piece: str | None = None) -> str:
    r, g, b = _rgb(colour)
    pieces = f"{piece}s" if piece else "cards"
    if max(r, g, b) - min(r, g, b) < 30:
        return f"grey {pieces}"
    hue = {0: "red", 1: "green", 2: "blue"}[max(range(3), key=(r, g, b).__getitem__)]
    return f"{hue} {pieces}"


def scene_sha256(scene: Mapping[str, Any]) -> str:
    """Return a fingerprint of a scene (what tests and caches compare)."""
    return hashlib.sha256(_key(scene).encode("utf-8")).hexdigest()


# -- a picture in a letter ---------------------------------------------------------------------------


def letter_picture(scene: Mapping[str, Any], filed: str) -> dict[str, Any]:
    """Return what a letter's templates show of a picture: the SVG for the HTML, a caption and
    the legend, and `file`, the name the PNG is attached under (`filed`). The scene is checked
    first: a game's malformed picture stops the letter with the fault named, not a broken image."""
    from referee.kit.tabletop.picture import check_scene  # deferred: only a game with pictures loads shapely

    check_scene(scene)
    return {
        "scene": scene,
        "svg": svg(scene),
        "caption": clean(scene["title"]),
        "legend": legend(scene),
        "file": filed,
    }

#!/usr/bin/python3
"""check_report.py REPORT.html SCREENSHOT.png — checks a screenshot of the demo
report (demo/report.sql) as a person would look at it: the page is not blank,
every picture is on it, not blank either, with its series drawn, and each
picture's marks sit where its rows say.

The page's background is grey and only the pictures are white, so each
picture is found as a white rectangle of its size.  Its marks are read from
the bar row of the strip above the series (data-bar-y): the columns in each
kind's colour, compared with the columns that the figure's rows (the JSON
block after the picture) give by api_plot.h's geometry: value i of n covers
[plot_left + i*plot_width/n, plot_left + (i+1)*plot_width/n), a mark's bar
spans its values, at least 2 pixels.  Plain Python: the PNG is decoded with
zlib.  Prints one TAP line per check (numbered from 1) and no plan.
"""
import json
import re
import sys
import zlib

COLOURS = {"discord": (0xd6, 0x27, 0x28), "motif": (0x2c, 0xa0, 0x2c),
           "match": (0xff, 0x7f, 0x0e), "outlier": (0x94, 0x67, 0xbd)}
WHITE = b"\xff\xff\xff"
# byte maps: 1 for a channel below 250 (drawn) or below 110 (dark), else 0
INK = bytes(int(v < 250) for v in range(256))
DARK = bytes(int(v < 110) for v in range(256))


def add_bytes(a, b):
    """Bytewise (a + b) mod 256 of two equal-length byte strings, in big-integer steps."""
    n = len(a)
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(n, "big")


def unfilter(f, line, prev, bpp):
    """One PNG scanline without its filter (type f), given the previous one."""
    if f == 0:
        return bytes(line)
    if f == 2:
        return add_bytes(line, prev)
    out = bytearray(line)
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        if f == 1:
            out[i] = (out[i] + a) & 255
        elif f == 3:
            out[i] = (out[i] + (a + prev[i]) // 2) & 255
        else:
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return bytes(out)


def read_png(path):
    """(width, height, rows): rows[y] is the RGB bytes of row y; 8-bit RGB or RGBA only."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            depth, ctype, interlace = body[8], body[9], body[12]
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * bpp
    prev, rows = bytes(stride), []
    for y in range(height):
        start = y * (stride + 1)
        prev = unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, bpp)
        if bpp == 3:
            rows.append(prev)
        else:
            rgb = bytearray(width * 3)
            for c in range(3):
                rgb[c::3] = prev[c::4]
            rows.append(bytes(rgb))
    return width, height, rows


def pixel(row, x):
    return row[3 * x:3 * x + 3]


def figures(html):
    """Per picture of the report, in page order: its size, geometry and marks."""
    out = []
    for svg, marks in re.findall(r'(<svg [^>]*>).*?<script type="application/json" class="tsmine-marks">(.*?)</script>',
                                 html, re.S):
        attr = dict(re.findall(r'([\w-]+)="([^"]*)"', svg))
        out.append({"width": int(attr["width"]), "height": int(attr["height"]), "n": int(attr["data-n"]),
                    "left": float(attr["data-plot-left"]), "plot_width": float(attr["data-plot-width"]),
                    "bar_y": float(attr["data-bar-y"]), "marks": json.loads(marks)["marks"]})
    return out


def white_rectangles(rows, w, h):
    """Top-left corners of the white w x h rectangles on a non-white page, top to bottom."""
    found, run = [], WHITE * w
    for y in range(1, len(rows) - h):
        row, at = rows[y], rows[y].find(run)
        while at >= 0:
            x = at // 3
            if at % 3 == 0 and pixel(rows[y - 1], x) != WHITE and (x == 0 or pixel(row, x - 1) != WHITE) \
                    and pixel(row, x + w) != WHITE \
                    and all(pixel(rows[y + k], x) == WHITE for k in range(h)) and pixel(rows[y + h], x) != WHITE:
                found.append((x, y))
            at = row.find(run, at + 1)
    return found


def expected_runs(fig, kind):
    """The pixel columns [a, b) of a kind's bars, by the rows, overlapping bars merged."""
    spans = []
    for m in fig["marks"]:
        if m["kind"] != kind:
            continue
        x0 = fig["left"] + (m["pos"] - 1) * fig["plot_width"] / fig["n"]
        x1 = fig["left"] + (m["pos"] - 1 + m["length"]) * fig["plot_width"] / fig["n"]
        a, b = round(x0), round(x1)
        if b - a < 2:
            a = round((x0 + x1) / 2) - 1
            b = a + 2
        spans.append([a, b])
    merged = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return merged


def found_runs(row, ox, colour):
    """The runs [a, b) of pixels of colour (within 3 per channel) in row, relative to ox."""
    runs, start = [], None
    for x in range(len(row) // 3 + 1):
        px = pixel(row, x) or WHITE
        hit = all(abs(px[i] - colour[i]) <= 3 for i in range(3))
        if hit and start is None:
            start = x
        elif not hit and start is not None:
            runs.append([start - ox, x - ox])
            start = None
    return runs


class Tap:
    def __init__(self):
        self.n, self.failed = 0, 0

    def check(self, ok, name, *diag):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        if not ok:
            self.failed += 1
            for d in diag:
                print("# " + str(d))


def main(html_path, png_path):
    tap = Tap()
    width, height, rows = read_png(png_path)
    figs = figures(open(html_path, encoding="utf-8").read())
    colours = {pixel(row, x) for row in rows[::7] for x in range(0, width, 7)}
    tap.check(len(colours) > 20, "the screenshot is not blank (%d colours sampled)" % len(colours))
    tap.check(len(figs) > 0, "the report has pictures (%d)" % len(figs))
    places = {}
    for fig in figs:
        size = (fig["width"], fig["height"])
        if size not in places:
            places[size] = white_rectangles(rows, *size)
    for k, fig in enumerate(figs):
        size = (fig["width"], fig["height"])
        if not places[size]:
            tap.check(False, "picture %d is on the page" % (k + 1), "no white %d x %d rectangle left" % size)
            continue
        ox, oy = places[size].pop(0)
        area = b"".join(rows[y][3 * ox:3 * (ox + fig["width"])] for y in range(oy, oy + fig["height"]))
        ink, dark = area.translate(INK).count(1) // 3, area.translate(DARK).count(1) // 3
        tap.check(ink > 0.02 * fig["width"] * fig["height"] and dark > 500,
                  "picture %d at (%d, %d) is not blank: about %d pixels drawn, %d dark (the series)" % (k + 1, ox, oy, ink, dark))
        bar = rows[oy + int(fig["bar_y"])]
        for kind in sorted({m["kind"] for m in fig["marks"]}):
            want = expected_runs(fig, kind)
            got = found_runs(bar, ox, COLOURS[kind])
            ok = len(got) == len(want) and all(abs(g[0] - w[0]) <= 1 and abs(g[1] - w[1]) <= 1
                                               for g, w in zip(got, want))
            tap.check(ok, "picture %d: the %d %s bar(s) sit where the rows say" % (k + 1, len(want), kind),
                      "want columns %s" % want, "found %s" % got)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

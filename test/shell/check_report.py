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
WHITE = (255, 255, 255)


def read_png(path):
    """(width, height, rows): rows[y][x] is an (r, g, b) tuple; 8-bit RGB or RGBA only."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
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
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


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
    found = []
    for y in range(1, len(rows) - h):
        row = rows[y]
        x = 0
        while x < len(row) - w:
            if row[x] == WHITE and rows[y - 1][x] != WHITE and (x == 0 or row[x - 1] != WHITE) \
                    and row[x + w - 1] == WHITE and row[x + w] != WHITE \
                    and all(rows[y + k][x] == WHITE for k in range(h)) and rows[y + h][x] != WHITE:
                found.append((x, y))
                x += w
            x += 1
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
    for x, px in enumerate(row + [WHITE]):
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
    colours = {px for row in rows[::7] for px in row[::7]}
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
        area = [rows[y][ox:ox + fig["width"]] for y in range(oy, oy + fig["height"])]
        ink = sum(px != WHITE for line in area for px in line)
        dark = sum(max(px) < 110 for line in area for px in line)
        tap.check(ink > 0.02 * fig["width"] * fig["height"] and dark > 500,
                  "picture %d at (%d, %d) is not blank: %d pixels drawn, %d dark (the series)" % (k + 1, ox, oy, ink, dark))
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

// plot.cpp — the SVG picture of a series with its marks (api_plot.h).
#include "plot.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "error.h"

namespace tsm::plot {

namespace {

constexpr double kMarginLeft = 72, kMarginRight = 20;
constexpr double kHeaderH = 24, kStripH = 24, kAxisH = 24, kGap = 14;
constexpr double kProfileShare = 0.35;  // of the panels' height, with a profile
constexpr const char* kSeriesColour = "#404040";
constexpr const char* kProfileColour = "#1f77b4";
constexpr const char* kFrameColour = "#c8c8c8";
constexpr const char* kTextColour = "#333333";

struct Kind {
    const char* colour;
    const char* letter;
    const char* name;
};
constexpr Kind kKinds[] = {{"#d62728", "D", "discord"},
                           {"#2ca02c", "M", "motif"},
                           {"#ff7f0e", "S", "match"},
                           {"#9467bd", "", "outlier"}};
constexpr int32_t kKindCount = 4;

void appendf(std::string& s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& s, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int k = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s.append(buf, (size_t)std::min<int>(k, (int)sizeof buf - 1));
}

// The y of value v in frame f for values in [lo, hi], with 5% room above and below.
struct YScale {
    double lo, hi;
    double y(const Frame& f, double v) const {
        if (!(hi > lo)) return f.top + f.height / 2;
        return f.top + f.height * (0.05 + 0.90 * (hi - v) / (hi - lo));
    }
};

YScale finite_range(const double* y, int64_t n) {
    YScale r{HUGE_VAL, -HUGE_VAL};
    for (int64_t i = 0; i < n; ++i)
        if (std::isfinite(y[i])) {
            r.lo = std::min(r.lo, y[i]);
            r.hi = std::max(r.hi, y[i]);
        }
    if (r.lo > r.hi) r.lo = r.hi = 0;  // no finite value
    return r;
}

// The points of one pixel column (values lo..hi-1, all finite): first,
// smallest, largest, last, in series order, each once.
void column_points(const double* y, int64_t lo, int64_t hi, double x, std::vector<Point>& out) {
    int64_t imin = lo, imax = lo;
    for (int64_t i = lo + 1; i < hi; ++i) {
        if (y[i] < y[imin]) imin = i;
        if (y[i] > y[imax]) imax = i;
    }
    int64_t idx[4] = {lo, std::min(imin, imax), std::max(imin, imax), hi - 1};
    for (int k = 0; k < 4; ++k)
        if (k == 0 || idx[k] != idx[k - 1]) out.push_back({x, y[idx[k]]});
}

void path_of(std::string& s, const std::vector<Point>& pts, const Frame& f, const YScale& ys) {
    bool pen = false;
    for (const Point& p : pts) {
        if (!std::isfinite(p.v)) {
            pen = false;
            continue;
        }
        appendf(s, "%s%.1f %.1f", pen ? " L" : (s.empty() ? "M" : " M"), p.x, ys.y(f, p.v));
        pen = true;
    }
}

void line(std::string& svg, const std::vector<Point>& pts, const Frame& f, const YScale& ys, const char* cls,
          const char* colour, double stroke) {
    std::string d;
    path_of(d, pts, f, ys);
    if (d.empty()) return;
    appendf(svg, "<path class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-linejoin=\"round\" d=\"",
            cls, colour, stroke);
    svg += d;
    svg += "\"/>\n";
}

}  // namespace

Layout layout(int32_t width, int32_t height, bool has_profile) {
    Layout L{};
    L.header_h = kHeaderH;
    const double left = kMarginLeft, w = width - kMarginLeft - kMarginRight;
    L.strip = {left, kHeaderH, w, kStripH};
    L.bar_top = L.strip.top + kStripH - TSM_PLOT_BAR_H - 3;
    const double top = L.strip.top + kStripH;
    const double panels = height - top - kAxisH - (has_profile ? kGap : 0);
    const double series_h = has_profile ? std::floor(panels * (1 - kProfileShare)) : panels;
    L.series = {left, top, w, series_h};
    L.profile = {left, top + series_h + (has_profile ? kGap : 0), w, has_profile ? panels - series_h : 0};
    L.axis_y = height - 8;
    return L;
}

std::vector<Point> downsample(const double* y, int64_t lo, int64_t hi, int64_t n, const Frame& f) {
    std::vector<Point> out;
    const int64_t cols = std::max<int64_t>(1, (int64_t)std::floor(f.width));
    if (n <= cols) {
        for (int64_t i = lo; i < hi; ++i) out.push_back({x_edge(f, n, i + 0.5), y[i]});
        return out;
    }
    int64_t i = lo;
    while (i < hi) {
        if (!std::isfinite(y[i])) {
            out.push_back({0, NAN});
            ++i;
            continue;
        }
        // the run of finite values of i's column: [i, j)
        const int64_t c = (int64_t)((__int128)i * cols / n);
        const int64_t col_end = std::min<int64_t>(hi, (int64_t)(((__int128)(c + 1) * n + cols - 1) / cols));
        int64_t j = i + 1;
        while (j < col_end && std::isfinite(y[j])) ++j;
        column_points(y, i, j, f.left + c + 0.5, out);
        i = j;
    }
    return out;
}

const char* kind_colour(int32_t kind) { return kKinds[kind].colour; }
const char* kind_name(int32_t kind) { return kKinds[kind].name; }

std::string xml_escape(const char* s) {
    std::string out;
    for (; s && *s; ++s) switch (*s) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // XML 1.0 forbids most control characters, even escaped
                if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') out += *s;
        }
    return out;
}

namespace {

struct Picture {
    const double* x;
    int64_t n;
    const TsPlotMark* marks;
    int64_t n_marks;
    const TsPlotOptions* opt;
    Layout L;
    YScale ys, ps;
};

void validate(const Picture& p) {
    const TsPlotOptions& o = *p.opt;
    if (o.width < 200 || o.width > 20000 || o.height < 100 || o.height > 20000)
        invalid(format("the picture must be 200 to 20000 pixels wide and 100 to 20000 high, not %d x %d",
                       o.width, o.height));
    if (o.profile && o.profile_n > p.n)
        invalid(format("the profile has %lld entries, more than the series' %lld values", (long long)o.profile_n,
                       (long long)p.n),
                "Pass the profile of this series (ts_matrix_profile_arrays(...).distance).");
    for (int64_t k = 0; k < p.n_marks; ++k) {
        const TsPlotMark& m = p.marks[k];
        if (m.kind < 0 || m.kind >= kKindCount) invalid(format("unknown mark kind %d", m.kind));
        if (m.length < 1)
            invalid(format("the %s at position %lld has length %lld: a mark covers 1 value or more",
                           kind_name(m.kind), (long long)m.pos + 1, (long long)m.length),
                    "Give the window length m (or a \"length\" in the mark).");
        if (m.pos < 0 || m.pos >= p.n || m.length > p.n - m.pos)
            invalid(format("the %s at position %lld (length %lld) is not inside the series of %lld values",
                           kind_name(m.kind), (long long)m.pos + 1, (long long)m.length, (long long)p.n),
                    "Plot the series the marks were computed on, with their window length.");
    }
}

void header(std::string& svg, const Picture& p) {
    const TsPlotOptions& o = *p.opt;
    appendf(svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"11\" data-n=\"%lld\" data-plot-left=\"%.1f\" "
            "data-plot-width=\"%.1f\" data-bar-y=\"%.1f\">\n",
            o.width, o.height, o.width, o.height, (long long)p.n, p.L.series.left, p.L.series.width,
            p.L.bar_top + TSM_PLOT_BAR_H / 2.0);
    appendf(svg, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", o.width, o.height);
    if (o.title && *o.title)
        appendf(svg, "<text x=\"%.1f\" y=\"16\" font-size=\"13\" fill=\"%s\">%s</text>\n", p.L.series.left,
                kTextColour, xml_escape(o.title).c_str());
    // the legend: the kinds present, right-aligned
    bool present[kKindCount] = {};
    for (int64_t k = 0; k < p.n_marks; ++k) present[p.marks[k].kind] = true;
    double x = o.width - kMarginRight;
    for (int32_t k = kKindCount - 1; k >= 0; --k) {
        if (!present[k]) continue;
        x -= 6.5 * std::strlen(kKinds[k].name) + 18;
        appendf(svg, "<rect x=\"%.1f\" y=\"7\" width=\"10\" height=\"10\" fill=\"%s\"/>", x, kKinds[k].colour);
        appendf(svg, "<text x=\"%.1f\" y=\"16\" fill=\"%s\">%s</text>\n", x + 14, kTextColour, kKinds[k].name);
    }
}

void frames(std::string& svg, const Picture& p) {
    for (const Frame* f : {&p.L.series, &p.L.profile})
        if (f->height > 0)
            appendf(svg,
                    "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                    "stroke=\"%s\" shape-rendering=\"crispEdges\"/>\n",
                    f->left, f->top, f->width, f->height, kFrameColour);
}

// The pixel span of a mark's values, at least 2 pixels wide.
void mark_span(const Picture& p, const TsPlotMark& m, double* x0, double* x1) {
    const Frame& f = p.L.series;
    *x0 = std::round(x_edge(f, p.n, (double)m.pos));
    *x1 = std::round(x_edge(f, p.n, (double)(m.pos + m.length)));
    if (*x1 - *x0 < 2) {
        *x0 = std::round((x_edge(f, p.n, (double)m.pos) + x_edge(f, p.n, (double)(m.pos + m.length))) / 2) - 1;
        *x1 = *x0 + 2;
    }
}

void bands(std::string& svg, const Picture& p) {
    for (int64_t k = 0; k < p.n_marks; ++k) {
        const TsPlotMark& m = p.marks[k];
        double x0, x1;
        mark_span(p, m, &x0, &x1);
        for (const Frame* f : {&p.L.series, &p.L.profile})
            if (f->height > 0)
                appendf(svg,
                        "<rect class=\"band %s\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"%s\" "
                        "fill-opacity=\"0.13\"/>\n",
                        kind_name(m.kind), x0, f->top, x1 - x0, f->height, kind_colour(m.kind));
    }
}

void mark_bars(std::string& svg, const Picture& p) {
    for (int64_t k = 0; k < p.n_marks; ++k) {
        const TsPlotMark& m = p.marks[k];
        double x0, x1;
        mark_span(p, m, &x0, &x1);
        appendf(svg,
                "<rect class=\"markbar %s\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%d\" fill=\"%s\" "
                "shape-rendering=\"crispEdges\" data-pos=\"%lld\" data-length=\"%lld\"/>\n",
                kind_name(m.kind), x0, p.L.bar_top, x1 - x0, TSM_PLOT_BAR_H, kind_colour(m.kind), (long long)m.pos,
                (long long)m.length);
        if (m.rank > 0 && kKinds[m.kind].letter[0])
            appendf(svg, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"10\" fill=\"%s\">%s%d</text>\n",
                    (x0 + x1) / 2, p.L.bar_top - 3, kind_colour(m.kind), kKinds[m.kind].letter, m.rank);
    }
}

void marked_values(std::string& svg, const Picture& p) {
    const Frame& f = p.L.series;
    for (int64_t k = 0; k < p.n_marks; ++k) {
        const TsPlotMark& m = p.marks[k];
        if (m.kind == TS_MARK_OUTLIER) {
            if (std::isfinite(p.x[m.pos]))
                appendf(svg, "<circle class=\"mark outlier\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                        x_edge(f, p.n, m.pos + 0.5), p.ys.y(f, p.x[m.pos]), kind_colour(m.kind));
            continue;
        }
        std::string cls = std::string("mark ") + kind_name(m.kind);
        line(svg, downsample(p.x, m.pos, m.pos + m.length, p.n, f), f, p.ys, cls.c_str(), kind_colour(m.kind), 1.6);
    }
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

void axes(std::string& svg, const Picture& p) {
    const TsPlotOptions& o = *p.opt;
    auto ylabel = [&](double y, const std::string& t) {
        appendf(svg, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s</text>\n", p.L.series.left - 6,
                y + 4, kTextColour, xml_escape(t.c_str()).c_str());
    };
    ylabel(p.ys.y(p.L.series, p.ys.hi), number(p.ys.hi));
    ylabel(p.ys.y(p.L.series, p.ys.lo), number(p.ys.lo));
    if (p.L.profile.height > 0) {
        ylabel(p.ps.y(p.L.profile, p.ps.hi), number(p.ps.hi));
        ylabel(p.ps.y(p.L.profile, 0), "0");
        appendf(svg, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">matrix profile</text>\n", p.L.profile.left + 4,
                p.L.profile.top + 12, kProfileColour);
    }
    int64_t auto_pos[16];
    int32_t count = o.n_ticks;
    const int64_t* pos = o.tick_pos;
    if (count == 0 && p.n > 0) {
        count = tsm_plot_ticks(p.n, std::max(2, std::min(16, (int)(p.L.series.width / 120))), auto_pos);
        pos = auto_pos;
    }
    for (int32_t t = 0; t < count; ++t) {
        const double x = x_edge(p.L.series, p.n, pos[t] + 0.5);
        const std::string label = o.n_ticks ? std::string(o.tick_label[t]) : std::to_string(pos[t] + 1);
        const double bottom = p.L.profile.height > 0 ? p.L.profile.top + p.L.profile.height
                                                     : p.L.series.top + p.L.series.height;
        appendf(svg, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x, bottom, x, bottom + 4,
                kFrameColour);
        // a label kept inside the picture (about 6.2 pixels a character)
        const double half = 3.1 * (double)label.size();
        const char* anchor = x + half > o.width - 4 ? "end" : x - half < 4 ? "start" : "middle";
        const double tx = anchor[0] == 'e' ? o.width - 4 : anchor[0] == 's' ? 4 : x;
        appendf(svg, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">%s</text>\n", tx, p.L.axis_y,
                anchor, kTextColour, xml_escape(label.c_str()).c_str());
    }
}

std::string draw(Picture& p) {
    const TsPlotOptions& o = *p.opt;
    p.L = layout(o.width, o.height, o.profile != nullptr);
    p.ys = finite_range(p.x, p.n);
    p.ps = o.profile ? finite_range(o.profile, o.profile_n) : YScale{0, 0};
    p.ps.lo = 0;
    if (!(p.ps.hi > 0)) p.ps.hi = 1;
    std::string svg;
    svg.reserve(4096 + 64 * (size_t)o.width);
    header(svg, p);
    frames(svg, p);
    bands(svg, p);
    line(svg, downsample(p.x, 0, p.n, p.n, p.L.series), p.L.series, p.ys, "series", kSeriesColour, 1);
    if (o.profile)
        line(svg, downsample(o.profile, 0, o.profile_n, p.n, p.L.profile), p.L.profile, p.ps, "profile",
             kProfileColour, 1);
    marked_values(svg, p);
    mark_bars(svg, p);
    axes(svg, p);
    svg += "</svg>\n";
    return svg;
}

}  // namespace

}  // namespace tsm::plot

extern "C" int tsm_plot_svg(const double* x, int64_t n, const TsPlotMark* marks, int64_t n_marks,
                            const TsPlotOptions* opt, TsExec* exec, char** svg, int64_t* len,
                            TsStatus* st) noexcept {
    return tsm::guard(st, [&] {
        exec->used_backend = TS_BACKEND_CPU;  // plots are drawn on the CPU
        tsm::plot::Picture p{x, n, marks, n_marks, opt, {}, {}, {}};
        tsm::plot::validate(p);
        const std::string s = tsm::plot::draw(p);
        char* out = tsm::alloc_result<char>(exec, s.size() + 1);
        std::memcpy(out, s.c_str(), s.size() + 1);
        *svg = out;
        *len = (int64_t)s.size();
    });
}

extern "C" int32_t tsm_plot_ticks(int64_t n, int32_t max_ticks, int64_t* pos) noexcept {
    if (n < 1 || max_ticks < 1) return 0;
    // the smallest step of 1, 2 or 5 times a power of ten that gives at most max_ticks labels
    double step = 1;
    for (double p10 = 1;; p10 *= 10) {
        bool found = false;
        for (double f : {1.0, 2.0, 5.0})
            if (std::floor(n / (f * p10)) + 1 <= max_ticks) {
                step = f * p10;
                found = true;
                break;
            }
        if (found) break;
    }
    // 1-based labels 1 (the first position, in place of 0), step, 2·step, ...
    int32_t count = 0;
    pos[count++] = 0;
    for (double v = step; v <= n && count < max_ticks; v += step)
        if ((int64_t)v > 1) pos[count++] = (int64_t)v - 1;
    return count;
}

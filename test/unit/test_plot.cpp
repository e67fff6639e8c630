// test_plot.cpp — the SVG picture (api_plot.h): well-formed XML, the marks'
// bars where the positions say, downsampling that keeps every extreme, gaps,
// axis ticks and the errors.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "api_plot.h"
#include "check.h"
#include "plot.h"

namespace {

struct Element {
    std::string name;
    std::map<std::string, std::string> attrs;
};

bool name_char(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == ':' || c == '.'; }

// Checks an entity at s[i] == '&'; returns its length, 0 if invalid.
size_t entity(const std::string& s, size_t i) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        if (s.compare(i, std::strlen(e), e) == 0) return std::strlen(e);
    return 0;
}

// "" when s is one well-formed XML element (balanced tags, quoted attributes,
// only the five entities, no raw '<' or '&' in text or values); else what is
// wrong.  Fills elements in document order (values unescaped: not needed).
std::string check_xml(const std::string& s, std::vector<Element>& elements) {
    std::vector<std::string> open;
    size_t i = 0;
    bool root_done = false;
    while (i < s.size()) {
        if (s[i] != '<') {
            if (s[i] == '&' && !entity(s, i)) return "bad entity at " + std::to_string(i);
            if (open.empty() && !std::isspace((unsigned char)s[i])) return "text outside the root";
            ++i;
            continue;
        }
        if (root_done) return "a second root element";
        if (s.compare(i, 2, "</") == 0) {
            size_t j = i + 2;
            while (j < s.size() && name_char(s[j])) ++j;
            const std::string name = s.substr(i + 2, j - i - 2);
            if (open.empty() || open.back() != name || j >= s.size() || s[j] != '>')
                return "mismatched </" + name + "> at " + std::to_string(i);
            open.pop_back();
            root_done = open.empty();
            i = j + 1;
            continue;
        }
        Element e;
        size_t j = i + 1;
        while (j < s.size() && name_char(s[j])) ++j;
        e.name = s.substr(i + 1, j - i - 1);
        if (e.name.empty()) return "empty tag name at " + std::to_string(i);
        for (;;) {
            while (j < s.size() && std::isspace((unsigned char)s[j])) ++j;
            if (j >= s.size()) return "unterminated tag";
            if (s[j] == '>' || s.compare(j, 2, "/>") == 0) break;
            size_t k = j;
            while (k < s.size() && name_char(s[k])) ++k;
            const std::string an = s.substr(j, k - j);
            if (an.empty() || k + 1 >= s.size() || s[k] != '=' || s[k + 1] != '"')
                return "bad attribute in <" + e.name + "> at " + std::to_string(j);
            size_t v = k + 2;
            while (v < s.size() && s[v] != '"') {
                if (s[v] == '<') return "'<' in an attribute value";
                if (s[v] == '&' && !entity(s, v)) return "bad entity in an attribute value";
                ++v;
            }
            if (v >= s.size()) return "unterminated attribute value";
            if (e.attrs.count(an)) return "attribute " + an + " twice";
            e.attrs[an] = s.substr(k + 2, v - k - 2);
            j = v + 1;
        }
        elements.push_back(e);
        if (s[j] == '>') {
            open.push_back(e.name);
            i = j + 1;
        } else {
            root_done = open.empty();
            i = j + 2;
        }
    }
    if (!open.empty()) return "unclosed <" + open.back() + ">";
    if (!root_done) return "no root element";
    return "";
}

std::string svg_of(const std::vector<double>& x, const std::vector<TsPlotMark>& marks, TsPlotOptions o,
                   TsStatus* st_out = nullptr) {
    TsExec ex = tsmt::cpu_exec();
    TsStatus st;
    char* svg = nullptr;
    int64_t len = 0;
    tsm_plot_svg(x.data(), (int64_t)x.size(), marks.data(), (int64_t)marks.size(), &o, &ex, &svg, &len, &st);
    if (st_out) *st_out = st;
    if (st.code != TS_OK) return "";
    std::string s(svg, (size_t)len);
    std::free(svg);
    return s;
}

TsPlotOptions options(int w = 1000, int h = 320) {
    TsPlotOptions o{};
    o.width = w;
    o.height = h;
    return o;
}

double attr(const Element& e, const char* name) { return std::atof(e.attrs.at(name).c_str()); }

const Element* root_of(const std::vector<Element>& els) { return els.empty() ? nullptr : &els[0]; }

// The points of a path's d ("M x y L x y ... M ..."), and how many lines it has.
std::vector<std::pair<double, double>> path_points(const std::string& d, int* lines) {
    std::vector<std::pair<double, double>> pts;
    *lines = 0;
    size_t i = 0;
    while (i < d.size()) {
        const char c = d[i];
        if (c == 'M' || c == 'L') {
            *lines += c == 'M';
            char* end;
            const double x = std::strtod(d.c_str() + i + 1, &end);
            const double y = std::strtod(end, &end);
            pts.push_back({x, y});
            i = (size_t)(end - d.c_str());
        } else {
            ++i;
        }
    }
    return pts;
}

const Element* element_with_class(const std::vector<Element>& els, const std::string& cls) {
    for (const Element& e : els)
        if (e.attrs.count("class") && e.attrs.at("class") == cls) return &e;
    return nullptr;
}

}  // namespace

TEST(plot_svg_is_well_formed_xml) {
    std::vector<double> x = tsmt::random_walk(5000, 11);
    std::vector<double> prof(4901);
    for (size_t i = 0; i < prof.size(); ++i) prof[i] = (i > 2000 && i < 2100) ? NAN : std::fabs(x[i]);
    std::vector<TsPlotMark> marks = {{TS_MARK_DISCORD, 1, 100, 100}, {TS_MARK_MOTIF, 1, 900, 100},
                                     {TS_MARK_MOTIF, 1, 3000, 100}, {TS_MARK_MATCH, 2, 4900, 100},
                                     {TS_MARK_OUTLIER, 0, 4999, 1}};
    const char* titles[] = {nullptr, "", "ECG <lead 1> & \"quotes\" 'single' \x01 ünïcödé"};
    for (const char* title : titles)
        for (bool with_profile : {false, true}) {
            TsPlotOptions o = options();
            o.title = title;
            if (with_profile) {
                o.profile = prof.data();
                o.profile_n = (int64_t)prof.size();
            }
            std::vector<Element> els;
            const std::string svg = svg_of(x, marks, o);
            CHECK_EQ(check_xml(svg, els), std::string());
            CHECK(root_of(els) && root_of(els)->name == "svg");
            CHECK_EQ(root_of(els)->attrs.at("xmlns"), std::string("http://www.w3.org/2000/svg"));
            if (title && *title) CHECK(svg.find("ECG &lt;lead 1&gt; &amp; &quot;quotes&quot; &apos;single&apos;") !=
                                       std::string::npos);
        }
    // an empty series and a single value draw too
    for (size_t n : {0, 1}) {
        std::vector<Element> els;
        CHECK_EQ(check_xml(svg_of(std::vector<double>(n, 1.0), {}, options()), els), std::string());
    }
    // the checker itself rejects what is not well-formed
    std::vector<Element> els;
    CHECK(!check_xml("<svg><g></svg>", els).empty());
    CHECK(!check_xml("<svg a=\"1 & 2\"/>", els).empty());
    CHECK(!check_xml("<svg/><svg/>", els).empty());
}

TEST(plot_mark_bars_sit_where_the_positions_say) {
    for (int64_t n : {int64_t(60), int64_t(1000), int64_t(123457), int64_t(5000000)}) {
        std::vector<double> x = tsmt::random_walk(n, 5);
        std::vector<TsPlotMark> marks;
        for (int64_t pos : {int64_t(0), n / 7, n / 2, n - std::max<int64_t>(1, n / 50)})
            marks.push_back({TS_MARK_DISCORD, 1, pos, std::max<int64_t>(1, n / 50)});
        marks.push_back({TS_MARK_OUTLIER, 0, n - 1, 1});
        std::vector<Element> els;
        CHECK_EQ(check_xml(svg_of(x, marks, options(900, 300)), els), std::string());
        const double left = attr(els[0], "data-plot-left"), width = attr(els[0], "data-plot-width");
        CHECK_EQ(attr(els[0], "data-n"), (double)n);
        size_t k = 0;
        for (const Element& e : els) {
            if (e.name != "rect" || !e.attrs.count("class") || e.attrs.at("class").rfind("markbar", 0) != 0) continue;
            const TsPlotMark& m = marks[k++];
            CHECK_EQ(attr(e, "data-pos"), (double)m.pos);
            // the bar spans the marked values' interval (to the pixel), or 2 pixels around it
            const double x0 = left + m.pos * width / n, x1 = left + (m.pos + m.length) * width / n;
            if (x1 - x0 >= 2) {
                CHECK_NEAR(attr(e, "x"), x0, 0.5);
                CHECK_NEAR(attr(e, "x") + attr(e, "width"), x1, 0.5);
            } else {
                CHECK_EQ(attr(e, "width"), 2.0);
                CHECK_NEAR(attr(e, "x") + 1, (x0 + x1) / 2, 0.5);
            }
            CHECK_NEAR(attr(e, "y") + TSM_PLOT_BAR_H / 2.0, attr(els[0], "data-bar-y"), 1e-9);
        }
        CHECK_EQ(k, marks.size());
    }
}

TEST(plot_downsampling_keeps_every_extreme) {
    const int64_t n = 1000000;
    std::vector<double> x = tsmt::random_walk(n, 21);
    const int64_t hi_at = 123457, lo_at = 800001;
    x[hi_at] += 1e5;  // beyond the walk's own range
    x[lo_at] -= 1e5;
    std::vector<Element> els;
    CHECK_EQ(check_xml(svg_of(x, {}, options()), els), std::string());
    const tsm::plot::Layout L = tsm::plot::layout(1000, 320, false);
    const Element* series = element_with_class(els, "series");
    CHECK(series != nullptr);
    if (!series) return;
    int lines;
    auto pts = path_points(series->attrs.at("d"), &lines);
    const int64_t cols = (int64_t)std::floor(L.series.width);
    CHECK(pts.size() <= (size_t)(4 * cols));
    CHECK(pts.size() >= (size_t)cols);
    CHECK_EQ(lines, 1);
    auto top = *std::min_element(pts.begin(), pts.end(), [](auto a, auto b) { return a.second < b.second; });
    auto bottom = *std::max_element(pts.begin(), pts.end(), [](auto a, auto b) { return a.second < b.second; });
    // the extremes are drawn, in the pixel columns of their positions, at the panel's 5% margins
    CHECK_NEAR(top.first, L.series.left + (double)(hi_at * cols / n) + 0.5, 0.051);
    CHECK_NEAR(bottom.first, L.series.left + (double)(lo_at * cols / n) + 0.5, 0.051);
    CHECK_NEAR(top.second, L.series.top + 0.05 * L.series.height, 0.051);
    CHECK_NEAR(bottom.second, L.series.top + 0.95 * L.series.height, 0.051);
    // and every column's: its largest and smallest values, found by a plain loop, are among the
    // points (of the walk without the two spikes, whose range is then the panel's)
    x[hi_at] -= 1e5;
    x[lo_at] += 1e5;
    els.clear();
    CHECK_EQ(check_xml(svg_of(x, {}, options()), els), std::string());
    pts = path_points(element_with_class(els, "series")->attrs.at("d"), &lines);
    const double vmax = *std::max_element(x.begin(), x.end()), vmin = *std::min_element(x.begin(), x.end());
    auto y_of = [&](double v) { return L.series.top + L.series.height * (0.05 + 0.90 * (vmax - v) / (vmax - vmin)); };
    auto drawn = [&](double cx, double v) {
        for (auto& p : pts)
            if (std::fabs(p.first - cx) < 0.01 && std::fabs(p.second - y_of(v)) < 0.051) return true;
        return false;
    };
    for (int64_t c = 0; c < cols; c += 37) {
        const int64_t a = (c * n + cols - 1) / cols, b = ((c + 1) * n + cols - 1) / cols;
        const double cx = L.series.left + c + 0.5;
        CHECK(drawn(cx, *std::max_element(x.begin() + a, x.begin() + b)));
        CHECK(drawn(cx, *std::min_element(x.begin() + a, x.begin() + b)));
    }
}

TEST(plot_short_series_draws_every_value) {
    std::vector<double> x = tsmt::random_walk(50, 2);
    std::vector<Element> els;
    CHECK_EQ(check_xml(svg_of(x, {{TS_MARK_MATCH, 3, 10, 5}}, options()), els), std::string());
    const tsm::plot::Layout L = tsm::plot::layout(1000, 320, false);
    int lines;
    auto pts = path_points(element_with_class(els, "series")->attrs.at("d"), &lines);
    CHECK_EQ(pts.size(), (size_t)50);
    for (size_t i = 0; i < pts.size(); ++i)
        CHECK_NEAR(pts[i].first, L.series.left + (i + 0.5) * L.series.width / 50, 0.051);
    // the marked values are drawn again in the mark's colour: values 10..14
    auto marked = path_points(element_with_class(els, "mark match")->attrs.at("d"), &lines);
    CHECK_EQ(marked.size(), (size_t)5);
    CHECK_NEAR(marked[0].first, pts[10].first, 1e-9);
    CHECK_NEAR(marked[0].second, pts[10].second, 1e-9);
}

TEST(plot_gaps_break_the_lines) {
    std::vector<double> x = tsmt::random_walk(3000, 4);
    x[1500] = NAN;
    x[2000] = INFINITY;
    std::vector<double> prof(2901, 1.0);
    for (int i = 100; i < 200; ++i) prof[i] = INFINITY;
    TsPlotOptions o = options();
    o.profile = prof.data();
    o.profile_n = (int64_t)prof.size();
    std::vector<Element> els;
    CHECK_EQ(check_xml(svg_of(x, {}, o), els), std::string());
    int lines;
    path_points(element_with_class(els, "series")->attrs.at("d"), &lines);
    CHECK_EQ(lines, 3);
    path_points(element_with_class(els, "profile")->attrs.at("d"), &lines);
    CHECK_EQ(lines, 2);
}

TEST(plot_ticks_are_round_positions) {
    int64_t pos[16];
    CHECK_EQ(tsm_plot_ticks(10000, 6, pos), 6);
    const int64_t want[] = {0, 1999, 3999, 5999, 7999, 9999};
    for (int i = 0; i < 6; ++i) CHECK_EQ(pos[i], want[i]);
    for (int64_t n : {int64_t(1), int64_t(7), int64_t(99), int64_t(12345), int64_t(1) << 40})
        for (int32_t k : {1, 2, 5, 16}) {
            const int32_t c = tsm_plot_ticks(n, k, pos);
            CHECK(c >= 1 && c <= k);
            for (int32_t i = 1; i < c; ++i) CHECK(pos[i] > pos[i - 1] && pos[i] < n);
        }
    CHECK_EQ(tsm_plot_ticks(0, 5, pos), 0);
}

TEST(plot_rejects_what_it_cannot_draw) {
    std::vector<double> x = tsmt::random_walk(100, 1);
    TsStatus st;
    svg_of(x, {{TS_MARK_DISCORD, 1, 95, 10}}, options(), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    CHECK(std::strstr(st.message, "not inside the series") != nullptr);
    svg_of(x, {{TS_MARK_DISCORD, 1, -1, 10}}, options(), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    svg_of(x, {{TS_MARK_MOTIF, 1, 5, 0}}, options(), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    svg_of(x, {{7, 1, 5, 1}}, options(), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    svg_of(x, {}, options(199, 300), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    svg_of(x, {}, options(300, 99), &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    std::vector<double> prof(101, 1.0);
    TsPlotOptions o = options();
    o.profile = prof.data();
    o.profile_n = 101;
    svg_of(x, {}, o, &st);
    CHECK_EQ(st.code, TS_INVALID_ARGUMENT);
    svg_of(x, {{TS_MARK_DISCORD, 1, 90, 10}}, options(), &st);
    CHECK_EQ(st.code, TS_OK);
}

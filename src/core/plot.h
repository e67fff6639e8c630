// plot.h — the pieces of the SVG picture (api_plot.h) that tests look at:
// the layout of the panels, the x of a value, and the downsampling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api_plot.h"

namespace tsm::plot {

// A panel's plotting area, in pixels.
struct Frame {
    double left = 0, top = 0, width = 0, height = 0;
};

struct Layout {
    double header_h;  // the title and the legend
    Frame strip;      // the mark bars and labels, above the series
    Frame series;
    Frame profile;    // height 0 without a profile
    double axis_y;    // baseline of the x-axis labels
    double bar_top;   // the mark bars span bar_top .. bar_top + TSM_PLOT_BAR_H
};

Layout layout(int32_t width, int32_t height, bool has_profile);

// The left edge of value i (0-based, fractional allowed) of n in frame f.
inline double x_edge(const Frame& f, int64_t n, double i) { return f.left + i * f.width / (double)n; }

// A point of a line; a NaN v ends the line there (a gap).
struct Point {
    double x, v;
};

// The points that draw values lo..hi-1 of y (an axis of n values): every
// value at the middle of its interval when n fits in the frame's pixel
// columns; otherwise, per column, its first, smallest, largest and last
// value in series order.  Non-finite values are gaps.
std::vector<Point> downsample(const double* y, int64_t lo, int64_t hi, int64_t n, const Frame& f);

// The kind's colour ("#rrggbb") and label letter.
const char* kind_colour(int32_t kind);
const char* kind_name(int32_t kind);

// Text with &, <, >, " and ' escaped for XML.
std::string xml_escape(const char* s);

}  // namespace tsm::plot

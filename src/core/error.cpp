#include "error.h"

#include <cmath>
#include <cstdarg>

namespace tsm {

std::string format(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

void set_status(TsStatus* st, int code, const char* state, const char* msg,
                const char* detail, const char* hint) noexcept {
    st->code = code;
    std::snprintf(st->sqlstate, sizeof st->sqlstate, "%s", state);
    std::snprintf(st->message, sizeof st->message, "%s", msg);
    std::snprintf(st->detail, sizeof st->detail, "%s", detail ? detail : "");
    std::snprintf(st->hint, sizeof st->hint, "%s", hint ? hint : "");
}

std::string number_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    return format("%g", v);
}

}  // namespace tsm

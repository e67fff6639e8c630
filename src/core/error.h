// error.h — how the core fails: throw tsm::Error inside, turn it into a
// TsStatus at the extern "C" boundary with tsm::guard().
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "tsm_api.h"

namespace tsm {

struct Error : std::exception {
    int code;
    char sqlstate[6];
    std::string message, detail, hint;
    Error(int code_, const char* state, std::string msg, std::string hint_ = {},
          std::string detail_ = {})
        : code(code_), message(std::move(msg)), detail(std::move(detail_)),
          hint(std::move(hint_)) {
        std::snprintf(sqlstate, sizeof sqlstate, "%s", state);
    }
    const char* what() const noexcept override { return message.c_str(); }
};

// SQLSTATEs the core uses (PostgreSQL's errcodes.h spelled out).
constexpr const char* kInvalidParameter = "22023";
constexpr const char* kDataException = "22000";
constexpr const char* kNullValueNotAllowed = "22004";
constexpr const char* kNumericOutOfRange = "22003";
constexpr const char* kFeatureNotSupported = "0A000";
constexpr const char* kOutOfMemory = "53200";
constexpr const char* kProgramLimitExceeded = "54000";
constexpr const char* kNotInPrerequisiteState = "55000";
constexpr const char* kSystemError = "58000";
constexpr const char* kQueryCanceled = "57014";
constexpr const char* kInternal = "XX000";

[[noreturn]] inline void invalid(std::string msg, std::string hint = {}) {
    throw Error(TS_INVALID_ARGUMENT, kInvalidParameter, std::move(msg), std::move(hint));
}
[[noreturn]] inline void over_budget() {
    throw Error(TS_OVER_BUDGET, kInternal, "the method ran past its time budget");
}
[[noreturn]] inline void cancelled() {
    throw Error(TS_CANCELLED, kQueryCanceled, "canceling statement due to user request");
}

// printf into a std::string
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// A number as PostgreSQL's %g prints it in messages ("Infinity", "NaN").
std::string number_text(double v);

void set_status(TsStatus* st, int code, const char* state, const char* msg,
                const char* detail = "", const char* hint = "") noexcept;
inline void set_ok(TsStatus* st) noexcept { set_status(st, TS_OK, "00000", ""); }

// Runs body; any exception becomes a status.  Returns the status code.
template <class F>
int guard(TsStatus* st, F&& body) noexcept {
    try {
        set_ok(st);
        body();
        return TS_OK;
    } catch (const Error& e) {
        set_status(st, e.code, e.sqlstate, e.message.c_str(), e.detail.c_str(), e.hint.c_str());
    } catch (const std::bad_alloc&) {
        set_status(st, TS_OUT_OF_MEMORY, kOutOfMemory, "out of memory in tsmine",
                   "", "Reduce the size of the input or raise the memory available to the server.");
    } catch (const std::exception& e) {
        set_status(st, TS_INTERNAL, kInternal, e.what(), "", "This is a bug in tsmine; please report it.");
    } catch (...) {
        set_status(st, TS_INTERNAL, kInternal, "unknown internal error in tsmine", "",
                   "This is a bug in tsmine; please report it.");
    }
    return st->code;
}

// Results go into memory from the caller's allocator (exec->alloc).
template <class T>
T* alloc_result(const TsExec* ex, size_t count) {
    if (count == 0) count = 1;
    void* p = ex->alloc(count * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
}

}  // namespace tsm

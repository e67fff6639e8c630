// args.cpp — the SQL functions' argument checks (args.h).
#include "args.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <string>

#include "error.h"

namespace tsm {
namespace args {

const char* const kDiscordMethods[3] = {"auto", "pd3", "matrix_profile"};
const char* const kMotifMethods[3] = {"auto", "mk", "matrix_profile"};
const char* const kOutlierMethods[2] = {"sigma", "mad"};
const char* const kBackends[3] = {"auto", "cpu", "gpu"};

void window(int32_t m) {
    if (m < 3)
        invalid(format("m must be at least 3, not %d", (int)m),
                "m is the length of the subsequences compared; a z-normalised window needs 3 values or more.");
}

int64_t exclusion(int64_t given, int64_t dflt) {
    if (given == TS_ARG_NULL) return dflt;
    if (given < 1)
        invalid(format("exclusion_zone must be at least 1, not %lld", (long long)given),
                "A neighbour j of window i must satisfy |i - j| >= exclusion_zone; NULL uses the default.");
    return given;
}

namespace {

void k_at_least_one(int64_t k, bool null_is_all) {
    if (k < 1)
        invalid(format("k must be at least 1, not %lld", (long long)k),
                format("k is how many results to return%s.", null_is_all ? "; NULL returns all of them" : ""));
}

}  // namespace

bool nan_given(double given) {
    uint64_t bits;
    std::memcpy(&bits, &given, sizeof bits);
    return bits == TS_NAN_GIVEN_BITS;
}

bool distance_limit(double given, const char* argname, const char* hint) {
    if (std::isnan(given) && !nan_given(given)) return false;
    if (!(given >= 0) || std::isinf(given))
        invalid(std::string(argname) + " must be a finite number >= 0, not " + number_text(given), hint);
    return true;
}

bool same_name(const char* a, const char* b) {
    for (; *a && *b; ++a, ++b)
        if (std::tolower((unsigned char)*a) != std::tolower((unsigned char)*b)) return false;
    return *a == *b;
}

int64_t k_or_all(int64_t given) {
    if (given != TS_ARG_NULL) k_at_least_one(given, true);
    return given;
}

int64_t top_k(int64_t given, const char* null_hint) {
    if (given == TS_ARG_NULL)
        throw Error(TS_INVALID_ARGUMENT, kNullValueNotAllowed, "k must not be NULL here", null_hint ? null_hint : "");
    k_at_least_one(given, false);
    return given;
}

int choice(const char* given, const char* argname, const char* const* names, int count) {
    for (int i = 0; i < count; ++i)
        if (same_name(given, names[i])) return i;
    std::string list;
    for (int i = 0; i < count; ++i)
        list += format("%s'%s'", i == 0 ? "" : (i == count - 1 ? " or " : ", "), names[i]);
    invalid(format("unknown %s \"%s\"", argname, given), "Use " + list + ".");
}

}  // namespace args
}  // namespace tsm

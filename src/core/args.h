// args.h — the checks of the SQL functions' arguments, with the messages and
// hints a SQL user sees.  The core entry of each SQL function calls them
// (the glue only converts: an integer argument left NULL arrives as
// TS_ARG_NULL, a text argument as its C string), and the method entries that
// other entries call check what they are given the same way, so no caller
// hands the methods an invalid value.
#pragma once

#include <cstdint>

#include "tsm_api.h"

namespace tsm {
namespace args {

// m, the length of the windows compared: at least 3.
void window(int32_t m);
// exclusion_zone: TS_ARG_NULL is the function's default dflt; else at least 1.
int64_t exclusion(int64_t given, int64_t dflt);
// k where NULL means every result: TS_ARG_NULL stays; else at least 1.
int64_t k_or_all(int64_t given);
// k where it must be given: TS_ARG_NULL is an error (22004) with null_hint;
// else at least 1.
int64_t top_k(int64_t given, const char* null_hint);
// A distance limit (min_distance, max_distance, named argname): none (a NaN
// other than TS_NAN_GIVEN_BITS': NULL) gives false; else it must be a finite
// number >= 0, the NaN a caller gave too (an error with hint otherwise), and
// gives true.
bool distance_limit(double given, const char* argname, const char* hint);
// given is the NaN a caller gave (TS_NAN_GIVEN_BITS), not NULL's.
bool nan_given(double given);
// A name from names[0 .. count) (any case): its index; otherwise an error
// naming the argument and listing the names.
int choice(const char* given, const char* argname, const char* const* names, int count);
// The names are the same but for the case of ASCII letters.
bool same_name(const char* a, const char* b);

// The method names of the SQL functions, in the order of their enums.
extern const char* const kDiscordMethods[3];  // TsDiscordMethod
extern const char* const kMotifMethods[3];    // TsMotifMethod
extern const char* const kOutlierMethods[2];  // TsOutlierMethod
extern const char* const kBackends[3];        // TsBackend (ts_estimate's backend)

}  // namespace args
}  // namespace tsm

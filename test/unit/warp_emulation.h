// warp_emulation.h — a warp's device code run on the host, a thread per lane
// (unit tests where there is no GPU).  The lanes meet at a barrier at every
// collective (__shfl_up_sync, __shfl_sync, __ballot_sync), twice: values in,
// then results out; so code whose lanes all reach the same collectives in the
// same order — what the device asks of *_sync with the full mask — computes
// what the warp computes.  Include it before the device header, inside
// whose namespace its names are made visible (using namespace warp_emulation).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#define __device__
#define __forceinline__ inline

namespace warp_emulation {

constexpr int kLanes = 32;

// The lanes' meeting point (std::barrier is C++20): the last lane to arrive
// starts the next generation; the others yield until it has.
class Barrier {
  public:
    void arrive_and_wait() {
        const uint64_t generation = generation_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == kLanes) {
            arrived_.store(0, std::memory_order_relaxed);
            generation_.store(generation + 1, std::memory_order_release);
            return;
        }
        while (generation_.load(std::memory_order_acquire) == generation) std::this_thread::yield();
    }

  private:
    std::atomic<int> arrived_{0};
    std::atomic<uint64_t> generation_{0};
};

// One warp's exchange slots.
struct Warp {
    Barrier barrier;
    double value[kLanes];
    bool flag[kLanes];
};

struct LaneContext {
    Warp* warp = nullptr;
    int lane = 0;
};
inline LaneContext& this_lane() {
    thread_local LaneContext context;
    return context;
}

struct double2 {
    double x, y;
};
inline double2 make_double2(double x, double y) { return {x, y}; }

// Every lane's value in, the lane's result (from lane src_of(lane)) out.
template <class Source>
double exchange(double v, Source src_of) {
    LaneContext& c = this_lane();
    c.warp->value[c.lane] = v;
    c.warp->barrier.arrive_and_wait();
    const double out = c.warp->value[src_of(c.lane)];
    c.warp->barrier.arrive_and_wait();
    return out;
}
inline double __shfl_up_sync(unsigned, double v, unsigned delta) {
    return exchange(v, [&](int lane) { return lane >= (int)delta ? lane - (int)delta : lane; });
}
inline double __shfl_sync(unsigned, double v, int src) {
    return exchange(v, [&](int) { return src; });
}
inline unsigned __ballot_sync(unsigned, bool predicate) {
    LaneContext& c = this_lane();
    c.warp->flag[c.lane] = predicate;
    c.warp->barrier.arrive_and_wait();
    unsigned mask = 0;
    for (int i = 0; i < kLanes; ++i) mask |= (c.warp->flag[i] ? 1u : 0u) << i;
    c.warp->barrier.arrive_and_wait();
    return mask;
}
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }

// body(lane) on kLanes threads that form one warp.
inline void run_warp(const std::function<void(int)>& body) {
    Warp warp;
    std::vector<std::thread> lanes;
    for (int l = 0; l < kLanes; ++l)
        lanes.emplace_back([&, l] {
            this_lane() = LaneContext{&warp, l};
            body(l);
        });
    for (auto& t : lanes) t.join();
}

}  // namespace warp_emulation

#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "error.h"

namespace tsm {

namespace {

// The CPUs this process may run on (its affinity mask; the online CPUs where
// that cannot be read).
int usable_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

// Threads runnable on the machine now, the caller included (the fourth field
// of /proc/loadavg, "running/total"); 0 where it cannot be read.
int runnable_now() {
    FILE* f = std::fopen("/proc/loadavg", "r");
    if (!f) return 0;
    double a, b, c;
    int running = 0, total = 0;
    if (std::fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5) running = 0;
    std::fclose(f);
    return running;
}

}  // namespace

int thread_count(const TsExec* ex) {
    if (ex && ex->cpu_threads > 0) return ex->cpu_threads;
    const int cpus = usable_cpus();
    const int running = runnable_now();
    if (running <= 1) return cpus;
    const int idle = cpus - (running - 1);  // the CPUs the others leave idle, besides the caller's own
    return idle < 1 ? 1 : (idle > cpus ? cpus : idle);
}

double steady_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check_budget(const TsExec* ex, double started_ms) {
    if (ex && ex->budget_ms > 0 && steady_ms() - started_ms > ex->budget_ms) over_budget();
}

void check_interrupt(const TsExec* ex) {
    if (ex && ex->interrupted && ex->interrupted()) cancelled();
}

namespace {

// One parallel_for's tasks, shared by the caller and the helpers that join it.
struct Job {
    const std::function<void(int64_t)>* fn;
    int64_t n_tasks;
    std::atomic<int64_t> next;
    std::atomic<bool> stop{false};
    int active = 0;  // helpers inside run_tasks (under the pool's mutex)
    std::exception_ptr first_error;
    Job(const std::function<void(int64_t)>& f, int64_t n, int64_t from) : fn(&f), n_tasks(n), next(from) {}
};

// Takes tasks of job in order until none is left or the job stops; the first
// exception is kept (under mu) and stops the job.
void run_tasks(Job& job, std::mutex& mu) {
    while (!job.stop.load(std::memory_order_relaxed)) {
        const int64_t t = job.next.fetch_add(1, std::memory_order_relaxed);
        if (t >= job.n_tasks) break;
        try {
            (*job.fn)(t);
        } catch (...) {
            std::lock_guard<std::mutex> lk(mu);
            if (!job.first_error) job.first_error = std::current_exception();
            job.stop = true;
        }
    }
}

// Set on the pool's threads, and on a caller while it runs a job's tasks: a
// parallel_for there runs its tasks inline (a nested one cannot wait for the
// pool, and only the caller may poll for cancel).
thread_local bool tl_in_job = false;

// The backend's threads: started on first need (never in the postmaster, which
// never runs a call, nor at library load), kept for the process's life, idle on
// a condition variable between jobs.  They run only the tasks' code: never a
// PostgreSQL function, never a signal handler (every signal is blocked in
// them).  The process that started them owns them: a forked child (which has
// none of them) gets a pool of its own.
class Pool {
  public:
    explicit Pool(pid_t owner) : owner_(owner) {}
    pid_t owner() const { return owner_; }

    // Offers job to up to `helpers` threads (started here as needed); returns
    // how many threads the pool has for it (fewer when threads could not start).
    int offer(Job* job, int helpers) {
        std::lock_guard<std::mutex> lk(mu_);
        while (threads_ < helpers && start_thread()) ++threads_;
        if (helpers > threads_) helpers = threads_;
        job_ = job;
        seats_ = helpers;
        for (int h = 0; h < helpers; ++h) work_cv_.notify_one();
        return helpers;
    }

    // Closes the job to latecomers and waits until its helpers have left it,
    // polling `poll` every 5 ms while they work (it may stop the job).
    void finish(Job* job, const std::function<void()>& poll) {
        std::unique_lock<std::mutex> lk(mu_);
        seats_ = 0;
        while (job->active > 0) {
            done_cv_.wait_for(lk, std::chrono::milliseconds(5));
            poll();
        }
        job_ = nullptr;
    }

    std::mutex& mutex() { return mu_; }

  private:
    bool start_thread() {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);  // the thread inherits the mask
        bool started = true;
        try {
            std::thread([this] { serve(); }).detach();
        } catch (...) {
            started = false;  // the threads that run will do the work
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        return started;
    }

    void serve() {
        tl_in_job = true;
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            work_cv_.wait(lk, [this] { return job_ != nullptr && seats_ > 0; });
            Job* job = job_;
            --seats_;
            ++job->active;
            lk.unlock();
            run_tasks(*job, mu_);
            lk.lock();
            if (--job->active == 0) done_cv_.notify_all();
        }
    }

    const pid_t owner_;
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    int threads_ = 0;  // started (detached: they live as long as the process)
    Job* job_ = nullptr;
    int seats_ = 0;  // helpers the current job may still take
};

// This process's pool, started on first use.  Never destroyed: its threads
// wait on it until the process exits.
Pool& pool() {
    static Pool* p = nullptr;
    const pid_t me = getpid();
    if (!p || p->owner() != me) p = new Pool(me);  // a forked child leaves its parent's pool alone
    return *p;
}

constexpr double kGrainMs = 1.0;  // work worth a thread: less runs on the caller alone

// Runs tasks [from, n_tasks) on the calling thread, polling for cancel between them (poll = true).
void run_inline(const TsExec* ex, int64_t from, int64_t n_tasks, const std::function<void(int64_t)>& fn, bool poll) {
    for (int64_t t = from; t < n_tasks; ++t) {
        if (poll) check_interrupt(ex);
        fn(t);
    }
    if (poll) check_interrupt(ex);
}

// The tasks from `from` on, with up to `helpers` pool threads beside the
// caller, which takes tasks too and polls for cancel between them.
void run_shared(const TsExec* ex, int64_t from, int64_t n_tasks, const std::function<void(int64_t)>& fn,
                int helpers) {
    Pool& p = pool();
    Job job(fn, n_tasks, from);
    p.offer(&job, helpers);
    bool was_cancelled = false;
    auto poll = [&] {
        if (!was_cancelled && ex && ex->interrupted && ex->interrupted()) {
            was_cancelled = true;
            job.stop = true;
        }
    };
    while (!job.stop.load(std::memory_order_relaxed) && job.next.load(std::memory_order_relaxed) < n_tasks) {
        poll();
        if (was_cancelled) break;
        const int64_t t = job.next.fetch_add(1, std::memory_order_relaxed);
        if (t >= n_tasks) break;
        try {
            fn(t);
        } catch (...) {
            std::lock_guard<std::mutex> lk(p.mutex());
            if (!job.first_error) job.first_error = std::current_exception();
            job.stop = true;
        }
    }
    p.finish(&job, poll);
    if (job.first_error) std::rethrow_exception(job.first_error);
    poll();
    if (was_cancelled) cancelled();
}

// Marks the calling thread as running a job's tasks while it lives.
struct InJob {
    InJob() { tl_in_job = true; }
    ~InJob() { tl_in_job = false; }
};

}  // namespace

void parallel_for(const TsExec* ex, int64_t n_tasks, const std::function<void(int64_t)>& fn) {
    if (n_tasks <= 0) return;
    if (tl_in_job) return run_inline(ex, 0, n_tasks, fn, false);  // nested in a task
    InJob mark;
    const bool one_thread = ex && ex->cpu_threads == 1;
    // the caller alone while the work so far is under kGrainMs
    const double t0 = steady_ms();
    int64_t done = 0;
    while (done < n_tasks && (one_thread || done == 0 || steady_ms() - t0 < kGrainMs)) {
        check_interrupt(ex);
        fn(done++);
    }
    check_interrupt(ex);
    if (done == n_tasks) return;
    // helpers for the rest: at most the threads allowed, about a grain of work each
    const double estimate = (steady_ms() - t0) / done * (n_tasks - done);
    int64_t helpers = std::min<int64_t>(thread_count(ex) - 1, n_tasks - done - 1);
    helpers = std::min<int64_t>(helpers, (int64_t)(estimate / kGrainMs));
    if (helpers < 1) return run_inline(ex, done, n_tasks, fn, true);
    run_shared(ex, done, n_tasks, fn, (int)helpers);
}

#if defined(__x86_64__)
bool cpu_has_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#endif

}  // namespace tsm

extern "C" int tsm_cpu_threads_now(int cpu_threads) noexcept {
    TsExec ex{};
    ex.cpu_threads = cpu_threads;
    return tsm::thread_count(&ex);
}

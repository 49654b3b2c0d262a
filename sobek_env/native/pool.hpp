// A crew of worker threads kept for a batch's whole life: each call of run(job) hands job(t) to thread t
// (t = 0 is the calling thread) and returns when every one is done. The workers are started at the first
// call that needs them and wait between calls, so a call of a few microseconds a game does not pay for
// starting threads. A waiting thread first spins for up to SPIN_MICROSECONDS (a batch is stepped again
// within microseconds when the caller is quick, and waking a sleeping thread costs about as long as a
// whole call's work on another core), then sleeps on a condition variable.
//
// A process forked while it holds a crew (multiprocessing's "fork") has no copy of its workers: the child
// leaves the parent's crew alone (never joined, its memory not freed) and starts its own at its first call.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace sobek_native {

constexpr int SPIN_MICROSECONDS = 200;

// Whether done() held within SPIN_MICROSECONDS of spinning (the clock read every 64 tries).
template <class Done>
bool spin_until(const Done& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(SPIN_MICROSECONDS);
    for (int tries = 1;; ++tries) {
        if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (tries % 64 == 0 && std::chrono::steady_clock::now() > deadline) return false;
    }
}

class ThreadPool {
  public:
    explicit ThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {}
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;
    ~ThreadPool() {
        if (crew_ != nullptr && crew_->owner == getpid()) {  // another process's crew (before a fork) is left
            crew_->stop();
            delete crew_;
        }
    }

    int threads() const { return threads_; }

    // job(t) for every t from 0 to threads() - 1, t = 0 on this thread; returns once all have returned.
    // job must not throw.
    template <class F>
    void run(const F& job) {
        if (threads_ == 1) {
            job(0);
            return;
        }
        if (crew_ == nullptr || crew_->owner != getpid()) crew_ = new Crew(threads_ - 1);
        crew_->start(&call<F>, &job);
        job(0);
        crew_->wait();
    }

  private:
    using Call = void (*)(const void* job, int t);

    template <class F>
    static void call(const void* job, int t) { (*static_cast<const F*>(job))(t); }

    struct Crew {
        pid_t owner;
        std::mutex lock;
        std::condition_variable work, done;
        std::atomic<uint64_t> generation{0};  // counts the jobs handed out; raised under the lock
        std::atomic<int> pending{0};          // workers still on the current job
        bool stopping = false;                // under the lock
        Call function = nullptr;              // the current job, written before generation is raised
        const void* job = nullptr;
        std::vector<std::thread> workers;

        explicit Crew(int count) : owner(getpid()) {
            workers.reserve(count);
            for (int t = 1; t <= count; ++t) workers.emplace_back([this, t] { serve(t); });
        }

        void serve(int t) {
            uint64_t seen = 0;
            for (;;) {
                if (!spin_until([&] { return generation.load(std::memory_order_acquire) != seen; })) {
                    std::unique_lock<std::mutex> held(lock);
                    work.wait(held, [&] { return stopping || generation.load(std::memory_order_acquire) != seen; });
                    if (stopping) return;
                }
                seen = generation.load(std::memory_order_acquire);
                function(job, t);
                if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                    std::lock_guard<std::mutex> held(lock);  // the caller waits under it: no lost wake-up
                    done.notify_one();
                }
            }
        }

        void start(Call f, const void* j) {
            function = f;
            job = j;
            pending.store(static_cast<int>(workers.size()), std::memory_order_relaxed);
            {
                std::lock_guard<std::mutex> held(lock);  // a worker about to sleep checks under it
                generation.fetch_add(1, std::memory_order_release);
            }
            work.notify_all();
        }

        void wait() {
            if (spin_until([&] { return pending.load(std::memory_order_acquire) == 0; })) return;
            std::unique_lock<std::mutex> held(lock);
            done.wait(held, [&] { return pending.load(std::memory_order_acquire) == 0; });
        }

        void stop() {
            {
                std::lock_guard<std::mutex> held(lock);
                stopping = true;
            }
            work.notify_all();
            for (std::thread& w : workers) w.join();
        }
    };

    int threads_;
    Crew* crew_ = nullptr;
};

}  // namespace sobek_native

// A crew of worker threads kept for a batch's whole life: each call of run(job) hands job(t) to thread t
// (t = 0 is the calling thread) and returns when every one is done. The workers are started at the first
// call that needs them and wait between calls, so a call of a few microseconds a game does not pay for
// starting threads.
//
// A process forked while it holds a crew (multiprocessing's "fork") has no copy of its workers: the child
// leaves the parent's crew alone (never joined, its memory not freed) and starts its own at its first call.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace sobek_native {

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
        uint64_t generation = 0;  // counts the jobs handed out
        int pending = 0;          // workers still on the current job
        bool stopping = false;
        Call function = nullptr;
        const void* job = nullptr;
        std::vector<std::thread> workers;

        explicit Crew(int count) : owner(getpid()) {
            workers.reserve(count);
            for (int t = 1; t <= count; ++t) workers.emplace_back([this, t] { serve(t); });
        }

        void serve(int t) {
            uint64_t seen = 0;
            std::unique_lock<std::mutex> held(lock);
            for (;;) {
                work.wait(held, [&] { return stopping || generation != seen; });
                if (stopping) return;
                seen = generation;
                Call f = function;
                const void* j = job;
                held.unlock();
                f(j, t);
                held.lock();
                if (--pending == 0) done.notify_one();
            }
        }

        void start(Call f, const void* j) {
            {
                std::lock_guard<std::mutex> held(lock);
                function = f;
                job = j;
                pending = static_cast<int>(workers.size());
                ++generation;
            }
            work.notify_all();
        }

        void wait() {
            std::unique_lock<std::mutex> held(lock);
            done.wait(held, [&] { return pending == 0; });
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

// CPython's random.Random, draw for draw, for the native engines.
//
// The Python engines draw every chance event from a random.Random (a Mersenne Twister, MT19937), and a
// state document carries the generator's state, so a native engine must draw the very same numbers:
// seeding from an integer, getrandbits, _randbelow (rejection on n.bit_length() bits), randrange,
// randint, choice, shuffle, sample and random() follow CPython's Lib/random.py and
// Modules/_randommodule.c step for step. The state is CPython's too: 624 words and the index, which
// random.Random.getstate() shows as its second item.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace sobek_native {

class PyRandom {
  public:
    static constexpr int N = 624;

    PyRandom() { seed(0); }
    explicit PyRandom(uint64_t s) { seed(s); }

    // random.Random(s) for a non-negative integer below 2**64.
    void seed(uint64_t s) {
        uint32_t key[2] = {static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32)};
        init_by_array(key, (s >> 32) ? 2 : 1);
    }

    // The state as random.Random.getstate()[1] holds it: mt[0..623] then the index.
    void get_state(uint32_t words[N], int* index) const {
        for (int i = 0; i < N; ++i) words[i] = mt_[i];
        *index = index_;
    }
    // Only for a state getstate() could show: index in 0..624 (checked by the caller).
    void set_state(const uint32_t words[N], int index) {
        for (int i = 0; i < N; ++i) mt_[i] = words[i];
        index_ = index;
    }

    uint32_t next32() {
        if (index_ >= N) twist();
        uint32_t y = mt_[index_++];
        y ^= (y >> 11);
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= (y >> 18);
        return y;
    }

    // getrandbits(k) for 0 <= k <= 64: words low to high, the last one cut to what remains.
    uint64_t getrandbits(int k) {
        if (k <= 0) return 0;
        if (k <= 32) return next32() >> (32 - k);
        uint64_t low = next32();
        uint64_t high = next32() >> (64 - k);
        return low | (high << 32);
    }

    // _randbelow(n) for n > 0: n.bit_length() bits until one is below n.
    uint64_t randbelow(uint64_t n) {
        int k = 0;
        for (uint64_t m = n; m; m >>= 1) ++k;
        uint64_t r = getrandbits(k);
        while (r >= n) r = getrandbits(k);
        return r;
    }
    int64_t randrange(int64_t stop) { return static_cast<int64_t>(randbelow(static_cast<uint64_t>(stop))); }
    int64_t randrange(int64_t start, int64_t stop) { return start + randrange(stop - start); }
    int64_t randint(int64_t a, int64_t b) { return randrange(a, b + 1); }

    double random() {
        uint32_t a = next32() >> 5, b = next32() >> 6;
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }

    template <class T>
    const T& choice(const std::vector<T>& seq) { return seq[randbelow(seq.size())]; }

    template <class T>
    void shuffle(std::vector<T>& x) {
        for (size_t i = x.size(); i-- > 1;) {
            size_t j = randbelow(i + 1);
            T t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    template <class T>
    void shuffle(T* x, size_t len) {
        for (size_t i = len; i-- > 1;) {
            size_t j = randbelow(i + 1);
            T t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }

    // sample(population, k), both of CPython's ways (a pool for small populations, a set otherwise).
    template <class T>
    std::vector<T> sample(const std::vector<T>& population, size_t k) {
        size_t n = population.size();
        std::vector<T> result(k);
        size_t setsize = 21;
        if (k > 5) setsize += static_cast<size_t>(std::pow(4.0, std::ceil(std::log(k * 3.0) / std::log(4.0))));
        if (n <= setsize) {
            std::vector<T> pool(population);
            for (size_t i = 0; i < k; ++i) {
                size_t j = randbelow(n - i);
                result[i] = pool[j];
                pool[j] = pool[n - i - 1];
            }
        } else {
            std::vector<bool> selected(n, false);
            for (size_t i = 0; i < k; ++i) {
                size_t j = randbelow(n);
                while (selected[j]) j = randbelow(n);
                selected[j] = true;
                result[i] = population[j];
            }
        }
        return result;
    }

  private:
    uint32_t mt_[N];
    int index_ = N + 1;

    void init_genrand(uint32_t s) {
        mt_[0] = s;
        for (int i = 1; i < N; ++i) mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
        index_ = N;
    }
    void init_by_array(const uint32_t* key, int key_length) {
        init_genrand(19650218U);
        int i = 1, j = 0;
        for (int k = (N > key_length ? N : key_length); k; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] + static_cast<uint32_t>(j);
            ++i;
            ++j;
            if (i >= N) { mt_[0] = mt_[N - 1]; i = 1; }
            if (j >= key_length) j = 0;
        }
        for (int k = N - 1; k; --k) {
            mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
            ++i;
            if (i >= N) { mt_[0] = mt_[N - 1]; i = 1; }
        }
        mt_[0] = 0x80000000U;
    }
    void twist() {
        static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
        int kk;
        uint32_t y;
        for (kk = 0; kk < N - 397; ++kk) {
            y = (mt_[kk] & 0x80000000U) | (mt_[kk + 1] & 0x7fffffffU);
            mt_[kk] = mt_[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < N - 1; ++kk) {
            y = (mt_[kk] & 0x80000000U) | (mt_[kk + 1] & 0x7fffffffU);
            mt_[kk] = mt_[kk + (397 - N)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (mt_[N - 1] & 0x80000000U) | (mt_[0] & 0x7fffffffU);
        mt_[N - 1] = mt_[396] ^ (y >> 1) ^ mag01[y & 1U];
        index_ = 0;
    }
};

}  // namespace sobek_native

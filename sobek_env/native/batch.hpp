// Many games of one native engine stepped in one call: the core of sobek_env.vector_env's native path.
//
// Each game has one learner seat; the other seats play uniformly random legal actions drawn from the
// game's own generator. The draws follow sobek_env/vector.py's Python path exactly (a seeder per game
// index gives the deal's seed, the learner's seat and the opponents' generator; an opponent takes
// legal[randbelow(count)], as random.Random.choice does), so both paths give the same games.
//
// A game plugs in through a traits class G with static members:
//   using State;                                    copyable by value
//   static constexpr int NUM_ACTIONS, MAX_PLAYERS;
//   static void deal(State& s, const State& prototype, uint64_t seed);   prototype: the table's rules
//   static int legal(const State&, int* out);       sorted legal ids of the player to act
//   static void apply(State&, int action);          a legal action
//   static bool over(const State&);
//   static int current(const State&);
//   static int score(const State&, int seat);
//   static bool winner(const State&, int seat);      once over
//   static double margin(const State&, int seat);   once over: the game's margin in points
//   static void encode(const State&, int seat, bool memory, float* out);   thread-safe
//
// With num_threads > 1 the games are shared out in contiguous blocks, one per thread of the batch's pool
// (pool.hpp: started once, kept between calls): a game touches only its own state, generators and rows of
// the arrays, so the results are the same for any number of threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pool.hpp"
#include "pyrandom.hpp"

namespace sobek_native {

enum RewardMode { REWARD_WIN = 0, REWARD_MARGIN = 1, REWARD_SCORE = 2 };

constexpr uint64_t SEED_BOUND = uint64_t(1) << 63;  // random.Random.randrange(2**63)

template <class G>
class Batch {
  public:
    using State = typename G::State;

    Batch(int num_envs, int num_players, int observation_size, bool memory, int reward_mode, int fixed_seat,
          double score_scale, const State& prototype, int num_threads)
        : num_envs_(num_envs), num_players_(num_players), size_(observation_size), memory_(memory),
          reward_mode_(reward_mode), fixed_seat_(fixed_seat), scale_(score_scale), prototype_(prototype),
          pool_(std::max(1, std::min(num_threads, num_envs))), states_(num_envs), seeders_(num_envs),
          chance_(num_envs), seats_(num_envs, 0) {}

    int num_envs() const { return num_envs_; }
    const State& state(int i) const { return states_[i]; }
    int seat(int i) const { return seats_[i]; }
    // What one game holds besides its rows of the arrays: its state, its two generators and its seat.
    static constexpr size_t bytes_per_game() { return sizeof(State) + 2 * sizeof(PyRandom) + sizeof(int); }

    // Every game dealt anew, game i from seeder random.Random(base + i); its learner's observation and mask.
    void reset(uint64_t base, float* obs, uint8_t* masks) {
        share_out([&](int i) {
            seeders_[i].seed(base + static_cast<uint64_t>(i));
            deal(i);
            settle(i, obs, masks);
        });
    }

    // The learner actions (legal: checked by the caller), the opponents' replies until each learner's next
    // turn or the game's end, the rewards; a finished game leaves its last observation in final_obs, its
    // seat, scores and winners in final_seat / final_scores (num_envs x MAX_PLAYERS) / final_winners, and
    // is dealt anew at once.
    void step(const int64_t* actions, float* obs, uint8_t* masks, float* rewards, uint8_t* terminated,
              float* final_obs, int32_t* final_seat, int32_t* final_scores, uint8_t* final_winners) {
        share_out([&](int i) {
            State& s = states_[i];
            int seat = seats_[i];
            double reward = act(s, seat, static_cast<int>(actions[i]));
            reward += settle(i, obs, masks);
            terminated[i] = G::over(s);
            if (terminated[i]) {
                std::memcpy(final_obs + static_cast<size_t>(i) * size_, obs + static_cast<size_t>(i) * size_,
                            sizeof(float) * size_);
                final_seat[i] = seat;
                for (int p = 0; p < G::MAX_PLAYERS; ++p) {
                    bool seated = p < num_players_;
                    final_scores[i * G::MAX_PLAYERS + p] = seated ? G::score(s, p) : 0;
                    final_winners[i * G::MAX_PLAYERS + p] = seated && G::winner(s, p);
                }
                deal(i);
                settle(i, obs, masks);
            }
            rewards[i] = static_cast<float>(reward);
        });
    }

  private:
    int num_envs_, num_players_, size_;
    bool memory_;
    int reward_mode_, fixed_seat_;
    double scale_;
    State prototype_;
    ThreadPool pool_;
    std::vector<State> states_;
    std::vector<PyRandom> seeders_, chance_;
    std::vector<int> seats_;

    // game(i) for every game, the games shared out in contiguous blocks among the pool's threads (this one
    // included).
    template <class F>
    void share_out(const F& game) {
        const int threads = pool_.threads();
        pool_.run([&](int t) {
            int lo = static_cast<int>(static_cast<int64_t>(num_envs_) * t / threads);
            int hi = static_cast<int>(static_cast<int64_t>(num_envs_) * (t + 1) / threads);
            for (int i = lo; i < hi; ++i) game(i);
        });
    }

    void deal(int i) {
        PyRandom& seeder = seeders_[i];
        uint64_t game_seed = seeder.randbelow(SEED_BOUND);
        seats_[i] = fixed_seat_ >= 0 ? fixed_seat_ : static_cast<int>(seeder.randbelow(num_players_));
        chance_[i].seed(seeder.randbelow(SEED_BOUND));
        G::deal(states_[i], prototype_, game_seed);
    }

    // One action and the learner's reward for it (the AEC environment's reward of the learner's seat).
    double act(State& s, int seat, int action) {
        int before = reward_mode_ == REWARD_SCORE ? G::score(s, seat) : 0;
        G::apply(s, action);
        if (reward_mode_ == REWARD_SCORE) return (G::score(s, seat) - before) / scale_;
        if (!G::over(s)) return 0.0;
        if (reward_mode_ == REWARD_WIN) return G::winner(s, seat) ? 1.0 : -1.0;
        return G::margin(s, seat) / scale_;
    }

    // Game i's opponents play until its learner must act or the game ends; the learner's reward meanwhile,
    // and its observation and mask written to row i.
    double settle(int i, float* obs, uint8_t* masks) {
        State& s = states_[i];
        int seat = seats_[i];
        int legal[G::NUM_ACTIONS];
        double reward = 0.0;
        while (!G::over(s) && G::current(s) != seat) {
            int count = G::legal(s, legal);
            reward += act(s, seat, legal[chance_[i].randbelow(static_cast<uint64_t>(count))]);
        }
        G::encode(s, seat, memory_, obs + static_cast<size_t>(i) * size_);
        uint8_t* mask = masks + static_cast<size_t>(i) * G::NUM_ACTIONS;
        std::memset(mask, 0, G::NUM_ACTIONS);
        if (!G::over(s)) {
            int count = G::legal(s, legal);
            for (int k = 0; k < count; ++k) mask[legal[k]] = 1;
        }
        return reward;
    }
};

}  // namespace sobek_native

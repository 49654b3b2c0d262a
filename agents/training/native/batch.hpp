// The learner's games for train.py, stepped natively: many games of one native engine, one learner seat each,
// the other seats played by the opponents of the training pool (agents/training/pool.py).
//
// Each seat of each game gets, at the deal, one of the pool's options, drawn independently with the options'
// weights (OpponentPool.sample's distribution): RANDOM (a uniformly drawn legal action), GREEDY or HEURISTIC
// (the native baselines, deciding from the seat's observation as agents.make's agents do) or EXTERNAL (an agent
// that lives in Python: a snapshot of the learner, any other spec). A game whose external opponent must act
// stops there with that seat's observation (and features) in the pending buffers; the caller decides for every
// pending game at once (one forward pass per snapshot) and resumes them.
//
// The learner's row is what TrainingEnv shows it: the observation, then (advice_size > 0) the heuristic's advice
// as agents/<game>/features.py writes it. Rewards are the environment's (win, margin or score) for the learner's
// seat summed over the actions since its last one; lead is its margin / score scale (Game.margins; with
// REWARD_OUTLOOK, Game.outlook: the margin were the game to end now), from which the caller pays the lead
// rewards (round-margin, capped-margin, outlook-margin).
//
// G: the engine's traits (sobek_env/<game>/native/vector.hpp's VectorGame). B: the baselines' entry points
// (decide, advise on B::Table, the game's agents/<game>/native/baselines.hpp). O: the game's Game.outlook
// (O::outlook(state, margins), agents/<game>/native/playout.hpp's traits).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "sobek_env/native/pyrandom.hpp"

namespace training_native {

enum Kind { RANDOM = 0, GREEDY = 1, HEURISTIC = 2, EXTERNAL = 3 };
// REWARD_OUTLOOK: the environment's reward is the margin, the lead is Game.outlook's
enum Reward { REWARD_WIN = 0, REWARD_MARGIN = 1, REWARD_SCORE = 2, REWARD_OUTLOOK = 3 };
constexpr uint64_t SEED_BOUND = uint64_t(1) << 63;
constexpr int MAX_SEATS = 8;

// Where the batch writes (arrays the binding owns, C-contiguous): F = observation size + advice size, A = actions
struct Buffers {
    float* obs;              // num_envs x F: the learner's row
    uint8_t* masks;          // num_envs x A
    float* rewards;          // num_envs
    double* lead;            // num_envs: the learner's margin / score scale now (a new game's, after an end)
    uint8_t* terminated;     // num_envs
    float* final_obs;        // num_envs x F: a finished game's last row (its advice part zero)
    int32_t* final_seat;     // num_envs
    int32_t* final_scores;   // num_envs x MAX_SEATS
    uint8_t* final_winners;  // num_envs x MAX_SEATS
    double* final_lead;      // num_envs
    int32_t* seats;          // num_envs: the learner's seat
    int32_t* options;        // num_envs x MAX_SEATS: each seat's option (-1: the learner's)
    uint8_t* pending;        // num_envs: waits for an external opponent's action
    int32_t* pending_option; // num_envs
    int32_t* pending_seat;   // num_envs
    float* pending_obs;      // num_envs x F: that seat's row (observation, then advice)
    uint8_t* pending_masks;  // num_envs x A
};

template <class G, class B, class O>
class TrainingBatch {
  public:
    using State = typename G::State;

    TrainingBatch(int num_envs, int num_players, int observation_size, int advice_size, bool memory, int reward_mode,
                  int fixed_seat, double score_scale, double advice_tolerance, const State& prototype,
                  const typename B::Table* table, const Buffers& out)
        : n_(num_envs), players_(num_players), size_(observation_size), advice_(advice_size),
          width_(observation_size + advice_size), memory_(memory), reward_mode_(reward_mode), fixed_seat_(fixed_seat),
          scale_(score_scale), advice_tolerance_(advice_tolerance), prototype_(prototype), table_(table), out_(out),
          states_(num_envs), seeders_(num_envs), chance_(num_envs), counting_(num_envs, 0),
          scratch_(observation_size) {}

    // The pool's options: kinds, tolerances (for HEURISTIC) and weights (> 0 to be drawn); games already dealt
    // keep their opponents. Returns false if no option has a positive weight.
    bool set_options(int count, const int* kinds, const double* tolerances, const double* weights) {
        double total = 0.0;
        for (int k = 0; k < count; ++k) total += weights[k] > 0 ? weights[k] : 0.0;
        if (!(total > 0.0)) return false;
        kinds_.assign(kinds, kinds + count);
        tolerances_.assign(tolerances, tolerances + count);
        cumulative_.assign(count, 0.0);
        double sum = 0.0;
        for (int k = 0; k < count; ++k) {
            sum += weights[k] > 0 ? weights[k] : 0.0;
            cumulative_[k] = sum / total;
        }
        return true;
    }

    // Every game dealt anew (game i from a seeder seeded base + i), played to its learner's first decision (or
    // to a pending external opponent).
    void reset(uint64_t base) {
        for (int i = 0; i < n_; ++i) {
            seeders_[i].seed(base + static_cast<uint64_t>(i));
            out_.terminated[i] = 0;
            out_.pending[i] = 0;
            deal(i);
            run(i);
        }
    }

    // The learner actions (legal: the caller checks), then each game on to its learner's next decision.
    void step(const int64_t* actions) {
        for (int i = 0; i < n_; ++i) {
            out_.terminated[i] = 0;
            out_.rewards[i] = 0.0f;
            counting_[i] = 1;
            play(i, static_cast<int>(actions[i]));
            run(i);
        }
    }

    // The external opponents' actions for the pending games (actions[i] for game i), then on as step does.
    void resume(const int64_t* actions) {
        for (int i = 0; i < n_; ++i) {
            if (!out_.pending[i]) continue;
            out_.pending[i] = 0;
            play(i, static_cast<int>(actions[i]));
            run(i);
        }
    }

    const State& state(int i) const { return states_[i]; }
    long refusals() const { return refusals_; }

  private:
    int n_, players_, size_, advice_, width_;
    bool memory_;
    int reward_mode_, fixed_seat_;
    double scale_, advice_tolerance_;
    State prototype_;
    const typename B::Table* table_;
    Buffers out_;
    std::vector<State> states_;
    std::vector<sobek_native::PyRandom> seeders_, chance_;
    std::vector<uint8_t> counting_;  // whether the learner's reward for this step still accrues (not a new deal's)
    std::vector<int> kinds_;
    std::vector<double> tolerances_, cumulative_;
    std::vector<float> scratch_;
    uint8_t scratch_mask_[G::NUM_ACTIONS];
    long refusals_ = 0;

    void deal(int i) {
        sobek_native::PyRandom& seeder = seeders_[i];
        const uint64_t game_seed = seeder.randbelow(SEED_BOUND);
        const int seat = fixed_seat_ >= 0 ? fixed_seat_ : static_cast<int>(seeder.randbelow(players_));
        chance_[i].seed(seeder.randbelow(SEED_BOUND));
        int32_t* options = out_.options + static_cast<size_t>(i) * MAX_SEATS;
        for (int p = 0; p < MAX_SEATS; ++p) options[p] = -1;
        for (int p = 0; p < players_; ++p) {
            if (p == seat) continue;
            const double u = seeder.random();
            int k = 0;
            while (k + 1 < static_cast<int>(cumulative_.size()) && u >= cumulative_[k]) ++k;
            options[p] = k;
        }
        out_.seats[i] = seat;
        counting_[i] = 0;
        G::deal(states_[i], prototype_, game_seed);
    }

    // One action in game i, and (while counting) the learner's reward for it, as the AEC environment gives it.
    void play(int i, int action) {
        State& s = states_[i];
        const int seat = out_.seats[i];
        const int before = reward_mode_ == REWARD_SCORE ? G::score(s, seat) : 0;
        G::apply(s, action);
        if (!counting_[i]) return;
        double reward = 0.0;
        if (reward_mode_ == REWARD_SCORE)
            reward = (G::score(s, seat) - before) / scale_;
        else if (G::over(s))
            reward = reward_mode_ == REWARD_WIN ? (G::winner(s, seat) ? 1.0 : -1.0) : G::margin(s, seat) / scale_;
        out_.rewards[i] += static_cast<float>(reward);
    }

    // The legal actions of game i's player to act, as flags into mask; how many.
    int flags(const State& s, uint8_t* mask) {
        int legal[G::NUM_ACTIONS];
        const int count = G::legal(s, legal);
        std::memset(mask, 0, G::NUM_ACTIONS);
        for (int k = 0; k < count; ++k) mask[legal[k]] = 1;
        return count;
    }

    // The row of ``seat`` in game i: its observation, then its advice (zero once the game is over).
    void row(const State& s, int seat, float* out, uint8_t* mask) {
        G::encode(s, seat, memory_, out);
        if (!advice_) return;
        std::memset(out + size_, 0, sizeof(float) * advice_);
        if (!G::over(s) && B::advise(*table_, advice_tolerance_, out, mask, out + size_) < 0) ++refusals_;
    }

    // Game i played on until its learner must decide (its row, mask and lead written) or an external
    // opponent must (the pending buffers written). A game that ends is recorded and dealt anew.
    void run(int i) {
        for (;;) {
            State& s = states_[i];
            const int seat = out_.seats[i];
            if (G::over(s)) {
                if (counting_[i]) finish(i);
                deal(i);
                continue;
            }
            const int actor = G::current(s);
            if (actor == seat) {
                uint8_t* mask = out_.masks + static_cast<size_t>(i) * G::NUM_ACTIONS;
                flags(s, mask);
                row(s, seat, out_.obs + static_cast<size_t>(i) * width_, mask);
                out_.lead[i] = lead(s, seat);
                return;
            }
            const int option = out_.options[static_cast<size_t>(i) * MAX_SEATS + actor];
            const int kind = kinds_[option];
            int action;
            if (kind == RANDOM) {
                int legal[G::NUM_ACTIONS];
                const int count = G::legal(s, legal);
                action = legal[chance_[i].randbelow(static_cast<uint64_t>(count))];
            } else if (kind == EXTERNAL) {
                uint8_t* mask = out_.pending_masks + static_cast<size_t>(i) * G::NUM_ACTIONS;
                flags(s, mask);
                row(s, actor, out_.pending_obs + static_cast<size_t>(i) * width_, mask);
                out_.pending[i] = 1;
                out_.pending_option[i] = option;
                out_.pending_seat[i] = actor;
                return;
            } else {
                const int count = flags(s, scratch_mask_);
                G::encode(s, actor, memory_, scratch_.data());
                action = B::decide(*table_, kind == GREEDY ? 0 : 1, tolerances_[option], scratch_.data(),
                                   scratch_mask_);
                if (action < 0 || action >= G::NUM_ACTIONS || !scratch_mask_[action]) {  // cannot happen on the
                    ++refusals_;                                                        // engine's own rows
                    for (action = 0; count && !scratch_mask_[action]; ++action) {}
                }
            }
            play(i, action);
        }
    }

    // The learner's lead in s: its margin (or, with REWARD_OUTLOOK, its outlook) / the score scale
    double lead(const State& s, int seat) const {
        if (reward_mode_ != REWARD_OUTLOOK) return G::margin(s, seat) / scale_;
        double margins[MAX_SEATS];
        O::outlook(s, margins);
        return margins[seat] / scale_;
    }

    // Game i is over in the learner's step: its last row, seat, scores, winners and lead.
    void finish(int i) {
        const State& s = states_[i];
        const int seat = out_.seats[i];
        float* last = out_.final_obs + static_cast<size_t>(i) * width_;
        G::encode(s, seat, memory_, last);
        if (advice_) std::memset(last + size_, 0, sizeof(float) * advice_);
        out_.terminated[i] = 1;
        out_.final_seat[i] = seat;
        for (int p = 0; p < MAX_SEATS; ++p) {
            const bool seated = p < players_;
            out_.final_scores[i * MAX_SEATS + p] = seated ? G::score(s, p) : 0;
            out_.final_winners[i * MAX_SEATS + p] = seated && G::winner(s, p);
        }
        out_.final_lead[i] = lead(s, seat);
        counting_[i] = 0;
    }
};

}  // namespace training_native

// Sobek's baselines (greedy, heuristic) compiled: the twins of agents/sobek/greedy.py and heuristic.py.
//
// They read what the Python baselines read: one seat's float32 observation vector and its action mask,
// decoded as sobek_env/sobek/decode.py's View decodes them, and the table (players, rules options). So they
// work on any engine's observations and cannot see hidden state. Arithmetic follows the Python reference
// operation for operation, so the decisions are the same (tests/sobek/test_native_baselines.py).
#pragma once

#include <cstdint>

#include "agents/search/native/decide.hpp"  // Agent, and the Refusal codes decide answers

namespace sobek_native {

constexpr int KINDS = 28;
constexpr int GOODS = 6;
constexpr int SLOTS = 7;         // the six goods, then the amulets-only set
constexpr int TOKEN_KINDS = 9;
constexpr int NUM_ACTIONS = 76;
constexpr int MAX_PLAYERS = 4;
constexpr int NILE_SLOTS = 9;
constexpr int NILE_COLUMNS = 20;  // the 19 face-up kinds, then "a character, face down"
constexpr int NUM_PHASES = 19;
constexpr double OBSERVATION_HIGH = 100.0;  // every entry of a valid observation lies in [0, 100]

// Offsets of the observation's named sections (sobek_env/sobek/observation.py's layout, in its order).
struct Layout {
    int hand, pile, nile, deck_size, round, scores, to_move, first_player, track_symbol, hand_backs,
        pile_backs, curses, sets, set_cards, set_points, horizontal, known_hands, known_piles, tokens_left,
        used_tokens, token_choice, tokens_known, discard, vizier_pile, building, phase, phase_goods,
        phase_target, guild_symbol, last_points, last_corruption, last_curses, last_most_corrupt, last_penalty,
        last_horizontal, size;
};

// A table: the number of players and the rules options' tables (catalogue.Rules), with the layout.
struct Table {
    int n = 0;
    int kind_goods[KINDS];    // goods a kind counts as, -1 for the amulet
    int kind_scarabs[KINDS];
    int catalogue[KINDS];     // cards of each kind
    int members[GOODS][KINDS];  // per goods: the kinds that count as it, ascending
    int n_members[GOODS];
    int fits[GOODS][KINDS];     // members, then the amulet
    int n_fits[GOODS];
    int round_cards = 0;        // cards in play during a round (decode.Counts.round_cards)
    Layout at;
};

// Fills ``table`` for ``num_players`` (2 to 4) and the rules' per-kind tables; false if out of range.
bool make_table(Table& table, int num_players, const int* kind_goods, const int* kind_scarabs,
                const int* catalogue) noexcept;

// The action of ``agent`` (GREEDY or HEURISTIC, the latter with ``tolerance`` from 0 to 1) for the observation
// ``obs`` (table.at.size float32 entries) and ``mask`` (NUM_ACTIONS bytes, nonzero = legal); a Refusal (< 0)
// for input it cannot read. ``*bad_entry`` (if given) receives the index of a refused entry.
int decide(const Table& table, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry = nullptr) noexcept;

// The ``advice`` features of agents/sobek/features.py (the heuristic at ``tolerance``): 2 * NUM_ACTIONS + n + 4
// floats written into ``out``, which the caller zeroes; returns the advised action, or a Refusal.
int advise(const Table& table, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry = nullptr) noexcept;

// The decoded fields the baselines read (for the tests: compared with decode.View field for field).
struct View {
    int n;
    const uint8_t* mask;
    long hand[KINDS], pile[KINDS];
    int nile[NILE_SLOTS];
    int nile_len;
    long deck;
    long scores[MAX_PLAYERS];
    long hand_backs[MAX_PLAYERS][3];
    long hand_size[MAX_PLAYERS];
    long curses[MAX_PLAYERS];
    long sets[MAX_PLAYERS][SLOTS][3];
    long set_points[MAX_PLAYERS];
    long known_hands[MAX_PLAYERS - 1][KINDS], known_piles[MAX_PLAYERS - 1][KINDS];
    long tokens_left;
    long used_tokens[TOKEN_KINDS], token_choice[TOKEN_KINDS], tokens_known[TOKEN_KINDS];
    bool has_tokens_known;
    long vizier_pile[KINDS], building[KINDS];
    int phase, phase_goods, phase_target, guild_symbol;  // -1 where no entry is set (phase: 0 = turn start)
    long horizontal[MAX_PLAYERS][KINDS];
    double unseen[KINDS];
    double coming[GOODS], coming_scarabs[GOODS], coming_amulets, coming_total;
    double pile_size[MAX_PLAYERS];
};

// Decodes ``obs`` into ``view``; 0, or BAD_ENTRY with ``*bad_entry`` set.
int decode(const Table& table, const float* obs, const uint8_t* mask, View& view, int* bad_entry) noexcept;

}  // namespace sobek_native

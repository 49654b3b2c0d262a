// Sobek's baselines compiled (see baselines.hpp). Each function names the Python function it mirrors; the
// order of every sum and product is the reference's, on doubles where Python uses floats.
#include "baselines.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace sobek_native {
namespace {

// ---------------------------------------------------------------------- the catalogue (sobek_env/sobek/catalogue.py)

constexpr int AMULET = 18;
constexpr int FIRST_CHARACTER = 19;
constexpr int HIDDEN = FIRST_CHARACTER;  // decode.HIDDEN: the Nile column of a face-down character
constexpr int QUEEN = 19, VIZIER = 20, MERCHANT = 21, HIGH_PRIEST = 22, THIEF = 23, HIGH_PRIESTESS = 24,
              SCRIBE_FISH = 25, SCRIBE_WHEAT = 26, COURTESAN = 27;
constexpr int AMULET_SET = GOODS;
constexpr int GREEN = 0, BEIGE = 1, ORANGE = 2;
constexpr int FLOOD = 4, CURSE = 5, PROSPERITY = 6, EMBALMING = 7, DECEIT = 8;
constexpr int TOKEN_COUNTS[TOKEN_KINDS] = {1, 1, 1, 1, 2, 2, 2, 1, 1};
constexpr int PROSPERITY_GOODS[3] = {3, 4, 5};
constexpr int SET_MIN_CARDS = 3;
constexpr int TAKE_WINDOW = 4;
constexpr int SCRIBE_HAND_LIMIT = 6;
constexpr int QUEEN_DRAW = 3;
constexpr int CURSE_WEIGHT = 2;
constexpr int PROSPERITY_SCARABS = 2;
constexpr int POINTS_PER_LOT = 10;
constexpr int START_HAND = 2;
constexpr int TWO_PLAYER_SET_ASIDE = 9;
constexpr int TOTAL_CARDS = 63;
constexpr double SCORE_SCALE = 100.0;
constexpr int NUMBER = 4;  // the symbol of the numbered spaces
constexpr int TRACK_CYCLE[20] = {4, 0, 1, 2, 3, 4, 1, 3, 0, 2, 4, 2, 0, 3, 1, 4, 3, 2, 1, 0};

// action ids (sobek_env/sobek/actions.py)
constexpr int A_TAKE = 0, A_CHARACTER = 9, A_SET = 18, A_CARD = 24, A_DONE = 52, A_TOKEN = 53, A_PLAYER = 62,
              A_GOODS_CHOICE = 66, A_BACK = 72, A_GOODS_AMULET = 75;
constexpr int SLOT_ACTIONS[SLOTS] = {66, 67, 68, 69, 70, 71, 75};

// phases, in the order of the observation's one-hot (sobek_env/sobek/phases.py PHASES)
enum Phase {
    TURN, BUILD_SET, TOKEN, GUILD, CURSE_TARGET, PROSPERITY_SET, PRIEST, VIZIER_TARGET, VIZIER_CARD, SCRIBE,
    THIEF_TARGET, THIEF_BACK, COURTESAN_SET, COURTESAN_CARD, MERCHANT_TAKE, FIRST_PLAYER, PRIEST_CHARACTERS,
    HORIZONTAL, HORIZONTAL_SET
};

inline int kind_back(int k) { return k >= FIRST_CHARACTER ? ORANGE : (k >= 12 && k < 18) ? GREEN : BEIGE; }
inline bool is_start(int k) { return k >= 12 && k < 18; }
inline bool prosperity_goods(int g) { return g >= 3 && g <= 5; }

inline int symbol_at(long position) {
    long r = position % 20;
    return TRACK_CYCLE[r < 0 ? r + 20 : r];
}

long next_space(long position, int symbol) {
    ++position;
    while (symbol_at(position) != symbol) ++position;
    return position;
}

// previous_space: the last space strictly before ``position`` with ``symbol``, or -1 (None)
long previous_space(long position, int symbol) {
    --position;
    while (position >= 0) {
        if (symbol_at(position) == symbol) return position;
        --position;
    }
    return -1;
}

long penalised_position(long position, long round_points) {  // scoring.penalised_position, rules §8.3
    int symbol = symbol_at(position);
    long lots = round_points >= 0 ? round_points / POINTS_PER_LOT : -((-round_points + 9) / POINTS_PER_LOT);
    for (long i = 0; i < lots; ++i) {
        long earlier = previous_space(position, symbol);
        if (earlier < 0) return 0;
        position = earlier;
    }
    return position;
}

double at_least(double mean, long k) {  // decode.at_least
    if (k <= 0) return 1.0;
    if (mean <= 0.0) return 0.0;
    double term = std::exp(-mean), total = term;
    for (long i = 1; i < k; ++i) {
        term *= mean / i;
        total += term;
    }
    return 1.0 - total;
}

double py_round(double x) { return std::nearbyint(x); }  // Python's round(): halves to even

struct Tab {  // a set slot: cards, scarabs, Prosperity tokens
    long c, s, p;
};
using Tables = Tab[SLOTS];

// ---------------------------------------------------------------------- sets.py

void goods_groups(const Table& t, const long* hand, long* counts, long* scarabs) {
    for (int g = 0; g < GOODS; ++g) {
        counts[g] = scarabs[g] = 0;
        for (int i = 0; i < t.n_members[g]; ++i) {
            int k = t.members[g][i];
            if (hand[k]) {
                counts[g] += hand[k];
                scarabs[g] += hand[k] * t.kind_scarabs[k];
            }
        }
    }
}

Tab table_for(const Tab* tables, int goods) {
    const Tab& own = tables[goods];
    if (own.c) return own;
    const Tab& loose = tables[AMULET_SET];
    if (loose.c && (!loose.p || prosperity_goods(goods))) return loose;
    return own;
}

int amulet_set_kinds(const Table& t, const Tab* tables, int* out) {
    bool limited = tables[AMULET_SET].p > 0;
    int n = 0;
    for (int k = 0; k < KINDS; ++k) {
        int g = t.kind_goods[k];
        if (k == AMULET || (g >= 0 && !tables[g].c && (!limited || prosperity_goods(g)))) out[n++] = k;
    }
    return n;
}

int landing_slot(const Tab* tables, int goods, bool amulets_only) {
    if (tables[goods].c) return goods;
    const Tab& loose = tables[AMULET_SET];
    if (loose.c && (amulets_only || !loose.p || prosperity_goods(goods))) return AMULET_SET;
    return amulets_only ? AMULET_SET : goods;
}

void after_set(const Table& t, const Tab* tables, int goods, const long* cards, Tab* out) {
    long total = 0, scarabs = 0;
    for (int k = 0; k < KINDS; ++k) {
        total += cards[k];
        if (cards[k]) scarabs += t.kind_scarabs[k] * cards[k];
    }
    bool amulets_only = cards[AMULET] == total;
    int slot = landing_slot(tables, goods, amulets_only);
    for (int s = 0; s < SLOTS; ++s) out[s] = tables[s];
    Tab merged{out[slot].c + total, out[slot].s + scarabs, out[slot].p};
    if (slot == AMULET_SET && !amulets_only) {
        out[AMULET_SET] = Tab{0, 0, 0};
        slot = goods;
    }
    out[slot] = merged;
}

struct HSet {
    int goods;
    long cards[KINDS];
};
struct Layout_ {
    int count = 0;
    HSet sets[SLOTS];
};
using Layouts = std::vector<Layout_>;

// horizontal_layouts: every sensible layout of horizontal sets, the empty one first, in the reference's order
void horizontal_layouts(const Table& t, const long* hand, const bool* laid, Layouts& layouts) {
    long counts[GOODS], scarabs[GOODS];
    goods_groups(t, hand, counts, scarabs);
    long amulets = hand[AMULET];
    int groups[GOODS], n_groups = 0, free[GOODS], n_free = 0;
    for (int g = 0; g < GOODS; ++g) {
        if (!laid[g] && counts[g] && counts[g] + amulets >= SET_MIN_CARDS) groups[n_groups++] = g;
        if (!laid[g]) free[n_free++] = g;
    }
    layouts.clear();
    layouts.emplace_back();
    int chosen[GOODS];
    for (int size = 0; size <= n_groups; ++size) {
        // itertools.combinations(groups, size), lexicographic
        int idx[GOODS];
        for (int i = 0; i < size; ++i) idx[i] = i;
        while (true) {
            for (int i = 0; i < size; ++i) chosen[i] = groups[idx[i]];
            long need = 0;
            for (int i = 0; i < size; ++i) need += std::max(0L, SET_MIN_CARDS - counts[chosen[i]]);
            if (need <= amulets) {
                long spare = amulets - need;
                Layout_ sets;
                sets.count = size;
                for (int i = 0; i < size; ++i) {
                    int g = chosen[i];
                    HSet& h = sets.sets[i];
                    h.goods = g;
                    for (int k = 0; k < KINDS; ++k) h.cards[k] = t.kind_goods[k] == g ? hand[k] : 0;
                    h.cards[AMULET] = std::max(0L, SET_MIN_CARDS - counts[g]);
                }
                if (size && spare) {
                    Layout_ with_spare = sets;
                    with_spare.sets[0].cards[AMULET] += spare;
                    layouts.push_back(with_spare);
                } else if (size) {
                    layouts.push_back(sets);
                }
                if (spare >= SET_MIN_CARDS && n_free) {
                    int declared = free[0];
                    for (int i = 0; i < n_free; ++i) {
                        bool taken = false;
                        for (int j = 0; j < size; ++j) taken = taken || chosen[j] == free[i];
                        if (!taken) {
                            declared = free[i];
                            break;
                        }
                    }
                    Layout_ loose;
                    loose.count = size + 1;
                    loose.sets[0].goods = declared;
                    std::memset(loose.sets[0].cards, 0, sizeof loose.sets[0].cards);
                    loose.sets[0].cards[AMULET] = spare;
                    for (int i = 0; i < size; ++i) loose.sets[i + 1] = sets.sets[i];
                    layouts.push_back(loose);
                }
            }
            // the next combination
            int i = size - 1;
            while (i >= 0 && idx[i] == n_groups - size + i) --i;
            if (i < 0) break;
            ++idx[i];
            for (int j = i + 1; j < size; ++j) idx[j] = idx[j - 1] + 1;
        }
    }
}

long layout_points(const Table& t, const Layout_& layout) {
    long out = 0;
    for (int i = 0; i < layout.count; ++i)
        for (int k = 0; k < KINDS; ++k)
            if (layout.sets[i].cards[k]) out += layout.sets[i].cards[k] * t.kind_scarabs[k];
    return out;
}

long layout_cards(const Layout_& layout) {
    long out = 0;
    for (int i = 0; i < layout.count; ++i)
        for (int k = 0; k < KINDS; ++k) out += layout.sets[i].cards[k];
    return out;
}

// ---------------------------------------------------------------------- shared by both baselines (greedy.py)

bool legal(const View& v, int action) { return action >= 0 && action < NUM_ACTIONS && v.mask[action]; }

// _laid_goods: the goods of the horizontal sets it laid this round's end
void laid_goods(const Table& t, const View& v, bool* laid) {
    for (int g = 0; g < GOODS; ++g) {
        laid[g] = false;
        for (int i = 0; i < t.n_members[g]; ++i) laid[g] = laid[g] || v.horizontal[0][t.members[g][i]];
    }
}

// horizontal_card: the next card of the horizontal set being laid, following the layout ``plan`` chose for
// the hand as it was before this set
template <class Plan>
int horizontal_card(const Table& t, const View& v, Plan plan) {
    int goods = v.phase_goods;
    if (goods < 0 || goods >= GOODS) return -1;
    long hand[KINDS], building_total = 0;
    for (int k = 0; k < KINDS; ++k) {
        hand[k] = v.hand[k] + v.building[k];
        building_total += v.building[k];
    }
    bool only_amulets = v.building[AMULET] == building_total;
    bool laid[GOODS];
    laid_goods(t, v, laid);
    Layout_ layout = plan(hand, laid);
    const long* target = nullptr;
    for (int i = 0; i < layout.count; ++i) {
        const HSet& h = layout.sets[i];
        long total = 0;
        for (int k = 0; k < KINDS; ++k) total += h.cards[k];
        if (h.goods == goods && (only_amulets || h.cards[AMULET] != total)) {
            target = h.cards;
            break;
        }
    }
    if (target) {
        for (int i = 0; i < t.n_fits[goods]; ++i) {
            int k = t.fits[goods][i];
            if (v.hand[k] && v.building[k] < target[k]) return A_CARD + k;
        }
    }
    if (legal(v, A_DONE)) return A_DONE;
    for (int i = 0; i < t.n_fits[goods]; ++i)
        if (v.hand[t.fits[goods][i]]) return A_CARD + t.fits[goods][i];
    return -1;
}

// ---------------------------------------------------------------------- the greedy baseline (greedy.py)

namespace greedy {

constexpr double CORRUPTION_PRICE = 2.0;
constexpr double FILL_SCARABS = 0.7;
constexpr double COMPLETION[3] = {0.0, 0.2, 0.5};
constexpr double HIDDEN_CHARACTER = 2.0;
constexpr double MIN_SET = 3;
constexpr double FLOOD_VALUE = 3.0;
constexpr double AMULET_SET_VALUE = MIN_SET;

double character_value(int kind) { return kind == QUEEN ? 5.0 : 2.5; }  // the Vizier and the Thief: 2.5

double group_value(long cards, long scarabs, const Tab& table) {
    long base = table.s + 2 * table.p;
    if (cards >= SET_MIN_CARDS) return double((base + scarabs) * (table.c + cards) - base * table.c);
    if (cards == 0) return 0.0;
    if (table.c) return double((base + scarabs) * (table.c + cards) - base * table.c) * COMPLETION[cards];
    return (scarabs + FILL_SCARABS * (SET_MIN_CARDS - cards)) * SET_MIN_CARDS * COMPLETION[cards];
}

double hand_value(const Table& t, const long* hand, const Tab* sets) {
    long counts[GOODS], scarabs[GOODS];
    goods_groups(t, hand, counts, scarabs);
    Tab tables[GOODS];
    double values[GOODS];
    for (int g = 0; g < GOODS; ++g) {
        tables[g] = table_for(sets, g);
        values[g] = group_value(counts[g], scarabs[g], tables[g]);
    }
    for (long a = 0; a < hand[AMULET]; ++a) {
        double best = 0.0;
        int best_g = -1;
        for (int g = 0; g < GOODS; ++g) {
            double gain = group_value(counts[g] + 1, scarabs[g], tables[g]) - values[g];
            if (gain > best) {
                best = gain;
                best_g = g;
            }
        }
        if (best_g < 0) break;
        counts[best_g] += 1;
        values[best_g] += best;
    }
    double total = 0.0;
    for (int g = 0; g < GOODS; ++g) total += values[g];
    return total;
}

struct Greedy {
    const Table& t;
    View& v;
    Tab sets0[SLOTS];  // its own sets

    Greedy(const Table& t_, View& v_) : t(t_), v(v_) {
        for (int g = 0; g < SLOTS; ++g) sets0[g] = Tab{v.sets[0][g][0], v.sets[0][g][1], v.sets[0][g][2]};
    }

    const Tab* own_sets() const { return sets0; }

    double card_gain(int kind, double now) {
        if (kind == HIDDEN) return HIDDEN_CHARACTER;
        v.hand[kind] += 1;
        double gain = hand_value(t, v.hand, own_sets()) - now;
        v.hand[kind] -= 1;
        return gain;
    }

    double set_gain(int g) {
        long members = 0, scarabs = 0;
        for (int i = 0; i < t.n_members[g]; ++i) members += v.hand[t.members[g][i]];
        Tab table = table_for(own_sets(), g);
        if (!members && !table.c) return AMULET_SET_VALUE;  // amulets only: a base for a later extension
        long cards = members + v.hand[AMULET];
        for (int i = 0; i < t.n_members[g]; ++i) {
            int k = t.members[g][i];
            scarabs += v.hand[k] * t.kind_scarabs[k];
        }
        return group_value(cards, scarabs, table);
    }

    // _courtesan_gain: the best one or two fitting cards for the set in slot ``g`` (their kinds in ``fitting``)
    double courtesan_gain(int g, int* fitting, int* n_fitting) {
        const Tab& set = own_sets()[g];
        int fits[KINDS], n_fits;
        if (g == AMULET_SET) {
            n_fits = amulet_set_kinds(t, own_sets(), fits);
        } else {
            n_fits = t.n_fits[g];
            for (int i = 0; i < n_fits; ++i) fits[i] = t.fits[g][i];
        }
        // sorted by scarabs, highest first, stable; the first two
        int n = 0;
        for (int pass = 0; pass < 2; ++pass) {
            int best = -1;
            long best_s = -1;
            for (int i = 0; i < n_fits; ++i) {
                int k = fits[i];
                long left = v.hand[k];
                for (int j = 0; j < n; ++j) left -= fitting[j] == k;
                if (left > 0 && t.kind_scarabs[k] > best_s) {
                    best = k;
                    best_s = t.kind_scarabs[k];
                }
            }
            if (best < 0) break;
            fitting[n++] = best;
        }
        *n_fitting = n;
        long base = set.s + 2 * set.p, added = 0;
        for (int i = 0; i < n; ++i) added += t.kind_scarabs[fitting[i]];
        return double((base + added) * (set.c + n) - base * set.c);
    }

    double power(int kind, double now) {
        if (kind == MERCHANT) {
            double best = 0.0;
            for (int i = 0; i < v.nile_len; ++i) {
                double gain = card_gain(v.nile[i], now);
                if (i == 0 || gain > best) best = gain;
            }
            return best;
        }
        if (kind == HIGH_PRIEST || kind == HIGH_PRIESTESS) {
            long most = 0;
            for (int g = 0; g < GOODS; ++g) {
                long c = 0;
                for (int i = 0; i < t.n_members[g]; ++i) c += v.pile[t.members[g][i]];
                if (g == 0 || c > most) most = c;
            }
            return CORRUPTION_PRICE * most;
        }
        if (kind == SCRIBE_FISH || kind == SCRIBE_WHEAT) {
            long excess = 0;
            for (int o = 1; o < v.n; ++o) excess += std::max(0L, v.hand_size[o] - SCRIBE_HAND_LIMIT);
            return CORRUPTION_PRICE * excess;
        }
        if (kind == COURTESAN) {
            double best = 0.0;
            bool any = false;
            for (int g = 0; g < SLOTS; ++g) {
                if (!own_sets()[g].c) continue;
                int fitting[2], n;
                double gain = courtesan_gain(g, fitting, &n);
                if (!any || gain > best) best = gain;
                any = true;
            }
            return best;
        }
        return character_value(kind);
    }

    int turn() {
        const Tab* tables = own_sets();
        int best_set = -1;
        double best_value = MIN_SET;
        bool ending = v.deck == 0;
        for (int g = 0; g < GOODS; ++g) {
            if (legal(v, A_SET + g)) {
                double value = set_gain(g);
                if (value >= best_value || (ending && value > 0)) {
                    best_set = A_SET + g;
                    best_value = value;
                }
            }
        }
        if (best_set >= 0) return best_set;
        double now = hand_value(t, v.hand, tables);
        int best = A_TAKE;
        double best_score = -std::numeric_limits<double>::infinity();
        for (int i = 0; i < std::min(TAKE_WINDOW, v.nile_len); ++i) {
            double score = card_gain(v.nile[i], now) - CORRUPTION_PRICE * i;
            if (score > best_score) {
                best = A_TAKE + i;
                best_score = score;
            }
        }
        for (int kind = FIRST_CHARACTER; kind < KINDS; ++kind) {
            if (v.hand[kind]) {
                v.hand[kind] -= 1;
                double rest = hand_value(t, v.hand, tables);
                double score = power(kind, rest) - (now - rest);  // the power, less the card's worth in hand
                v.hand[kind] += 1;
                if (score > best_score) {
                    best = A_CHARACTER + kind - FIRST_CHARACTER;
                    best_score = score;
                }
            }
        }
        return best;
    }

    int build() {
        int g = v.phase_goods;
        if (g < 0 || g >= GOODS) return -1;
        for (int i = 0; i < t.n_fits[g]; ++i)
            if (v.hand[t.fits[g][i]]) return A_CARD + t.fits[g][i];
        return A_DONE;
    }

    int token() {
        long pos = v.scores[0], pile = 0;
        for (int k = 0; k < KINDS; ++k) pile += v.pile[k];
        double value[TOKEN_KINDS];
        value[FLOOD] = FLOOD_VALUE;
        value[CURSE] = 2 * CORRUPTION_PRICE;
        long most = 0;  // rules §7: Prosperity may also go on the amulets-only set
        for (int g : {3, 4, 5, AMULET_SET}) most = std::max(most, v.sets[0][g][0]);
        value[PROSPERITY] = double(2 * most);
        value[EMBALMING] = CORRUPTION_PRICE * pile;
        value[DECEIT] = double(pile);
        for (int g = 0; g < 4; ++g) {
            long back = 0;
            bool any = false;
            for (int o = 1; o < v.n; ++o) {
                long e = previous_space(v.scores[o], g);
                if (e < 0) continue;
                if (!any || v.scores[o] - e > back) back = v.scores[o] - e;
                any = true;
            }
            value[g] = double(next_space(pos, g) - pos + back);
        }
        static const int ORDER[TOKEN_KINDS] = {FLOOD, CURSE, PROSPERITY, EMBALMING, DECEIT, 0, 1, 2, 3};  // dict order
        int best = -1;
        for (int t_ : ORDER)
            if (v.token_choice[t_] && (best < 0 || value[t_] > value[best])) best = t_;
        return best < 0 ? -1 : A_TOKEN + best;
    }

    int leader() {
        int best = -1;
        for (int o = 1; o < v.n; ++o)
            if (legal(v, A_PLAYER + o) && (best < 0 || v.scores[o] > v.scores[best])) best = o;
        return best < 0 ? -1 : A_PLAYER + best;
    }

    int prosperity() {
        int best = -1;
        for (int g : {3, 4, 5, AMULET_SET})
            if (legal(v, SLOT_ACTIONS[g]) && (best < 0 || v.sets[0][g][0] > v.sets[0][best][0])) best = g;
        return best < 0 ? -1 : SLOT_ACTIONS[best];
    }

    int priest() {
        int best = 0;
        long best_c = -1;
        for (int g = 0; g < GOODS; ++g) {
            long c = 0;
            for (int i = 0; i < t.n_members[g]; ++i) c += v.pile[t.members[g][i]];
            if (c > best_c) {
                best = g;
                best_c = c;
            }
        }
        return A_GOODS_CHOICE + best;
    }

    int vizier() {
        int best = 1;
        for (int o = 2; o < v.n; ++o)
            if (v.pile_size[o] > v.pile_size[best]) best = o;
        return A_PLAYER + best;
    }

    int pick_card(const long* pool) {
        double now = hand_value(t, v.hand, own_sets());
        int best = -1;
        double best_gain = 0.0;
        for (int k = 0; k < KINDS; ++k) {
            if (!pool[k]) continue;
            double gain = card_gain(k, now);
            if (best < 0 || gain > best_gain) {
                best = k;
                best_gain = gain;
            }
        }
        return best < 0 ? -1 : A_CARD + best;
    }

    int scribe() {
        double now = hand_value(t, v.hand, own_sets());
        int best = -1;
        double best_loss = 0.0;
        for (int k = 0; k < KINDS; ++k) {
            if (!v.hand[k]) continue;
            v.hand[k] -= 1;
            double lost = now - hand_value(t, v.hand, own_sets());
            v.hand[k] += 1;
            if (best < 0 || lost < best_loss) {
                best = k;
                best_loss = lost;
            }
        }
        return best < 0 ? -1 : A_CARD + best;
    }

    int thief() {
        int best = 1;
        for (int o = 2; o < v.n; ++o) {
            long a = v.hand_backs[o][BEIGE], b = v.hand_backs[best][BEIGE];
            if (a > b || (a == b && v.hand_size[o] > v.hand_size[best])) best = o;
        }
        return A_PLAYER + best;
    }

    int thief_back() {  // beige goods first, then characters, then plain start cards
        for (int b : {BEIGE, ORANGE, GREEN})
            if (legal(v, A_BACK + b)) return A_BACK + b;
        return -1;
    }

    int courtesan() {
        int best = -1;
        double best_gain = 0.0;
        for (int g = 0; g < SLOTS; ++g) {
            if (!legal(v, SLOT_ACTIONS[g])) continue;
            int fitting[2], n;
            double gain = courtesan_gain(g, fitting, &n);
            if (best < 0 || gain > best_gain) {
                best = g;
                best_gain = gain;
            }
        }
        return best < 0 ? -1 : SLOT_ACTIONS[best];
    }

    int courtesan_card() {
        int g = v.phase_goods;
        if (g < 0 || g >= SLOTS) return -1;
        int fitting[2], n;
        courtesan_gain(g, fitting, &n);
        return n ? A_CARD + fitting[0] : A_DONE;
    }

    int merchant() {
        double now = hand_value(t, v.hand, own_sets());
        int best = -1;
        double best_gain = 0.0;
        for (int i = 0; i < v.nile_len; ++i) {
            double gain = card_gain(v.nile[i], now);
            if (best < 0 || gain > best_gain) {
                best = i;
                best_gain = gain;
            }
        }
        return best < 0 ? -1 : A_TAKE + best;
    }

    int priest_characters() {  // every family character it may discard leaves the pile
        for (int a = A_CARD; a <= A_DONE; ++a)
            if (legal(v, a)) return a;
        return -1;
    }

    // _most_cards: the layout that places the most cards, then scores the most scarabs
    Layout_ most_cards(const long* hand, const bool* laid) {
        Layouts layouts;
        horizontal_layouts(t, hand, laid, layouts);
        size_t best = 0;
        long best_cards = -1, best_scarabs = -1;
        for (size_t i = 0; i < layouts.size(); ++i) {
            long cards = layout_cards(layouts[i]), scarabs = layout_points(t, layouts[i]);
            if (cards > best_cards || (cards == best_cards && scarabs > best_scarabs)) {
                best = i;
                best_cards = cards;
                best_scarabs = scarabs;
            }
        }
        return layouts[best];
    }

    int horizontal() {
        bool laid[GOODS];
        laid_goods(t, v, laid);
        Layout_ layout = most_cards(v.hand, laid);
        return layout.count ? A_SET + layout.sets[0].goods : A_DONE;
    }

    int horizontal_set() {
        return horizontal_card(t, v, [this](const long* hand, const bool* laid) { return most_cards(hand, laid); });
    }

    int act() {
        switch (v.phase) {
            case TURN: return turn();
            case BUILD_SET: return build();
            case TOKEN: return token();
            case GUILD: case CURSE_TARGET: return leader();
            case PROSPERITY_SET: return prosperity();
            case PRIEST: return priest();
            case VIZIER_TARGET: return vizier();
            case VIZIER_CARD: return pick_card(v.vizier_pile);
            case SCRIBE: return scribe();
            case THIEF_TARGET: return thief();
            case THIEF_BACK: return thief_back();
            case COURTESAN_SET: return courtesan();
            case COURTESAN_CARD: return courtesan_card();
            case MERCHANT_TAKE: return merchant();
            case FIRST_PLAYER: return A_PLAYER;  // itself: the first pick of the fresh Nile
            case PRIEST_CHARACTERS: return priest_characters();
            case HORIZONTAL: return horizontal();
            case HORIZONTAL_SET: return horizontal_set();
        }
        return -1;
    }
};

}  // namespace greedy

#include "heuristic.inc"

// ---------------------------------------------------------------------- decoding (decode.View)

// numpy's sum of a float64 vector (pairwise_sum: eight accumulators, then the rest in order)
double numpy_sum(const double* a, int n) {
    if (n < 8) {
        double r = 0.0;
        for (int i = 0; i < n; ++i) r += a[i];
        return r;
    }
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    int i = 8;
    for (; i < n - n % 8; i += 8)
        for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
}

}  // namespace

bool make_table(Table& t, int n, const int* kind_goods, const int* kind_scarabs, const int* catalogue) noexcept {
    if (n < 2 || n > MAX_PLAYERS) return false;
    t.n = n;
    for (int k = 0; k < KINDS; ++k) {
        if (kind_goods[k] < -1 || kind_goods[k] >= GOODS || (kind_goods[k] < 0) != (k == AMULET)) return false;
        t.kind_goods[k] = kind_goods[k];
        t.kind_scarabs[k] = kind_scarabs[k];
        t.catalogue[k] = catalogue[k];
    }
    for (int g = 0; g < GOODS; ++g) {
        t.n_members[g] = 0;
        for (int k = 0; k < KINDS; ++k)
            if (kind_goods[k] == g) t.members[g][t.n_members[g]++] = k;
        for (int i = 0; i < t.n_members[g]; ++i) t.fits[g][i] = t.members[g][i];
        t.fits[g][t.n_members[g]] = AMULET;
        t.n_fits[g] = t.n_members[g] + 1;
    }
    int green = 0;
    for (int k = 0; k < KINDS; ++k)
        if (is_start(k)) green += catalogue[k];
    t.round_cards = TOTAL_CARDS - green - (n == 2 ? TWO_PLAYER_SET_ASIDE : 0) + START_HAND * n;
    // observation._shapes, in order
    const int K = KINDS;
    const int sizes[] = {K, K, NILE_SLOTS * NILE_COLUMNS, 1, 3, n, n, n, n * 5, n * 3, n * 3, n, n * SLOTS * 3,
                         n * K, n, n * K, (n - 1) * K, (n - 1) * K, 1, TOKEN_KINDS, TOKEN_KINDS, TOKEN_KINDS, K, K,
                         K, NUM_PHASES, SLOTS, n, 4, n, n, n, n, n, n * K};
    int* fields[] = {&t.at.hand, &t.at.pile, &t.at.nile, &t.at.deck_size, &t.at.round, &t.at.scores,
                     &t.at.to_move, &t.at.first_player, &t.at.track_symbol, &t.at.hand_backs, &t.at.pile_backs,
                     &t.at.curses, &t.at.sets, &t.at.set_cards, &t.at.set_points, &t.at.horizontal,
                     &t.at.known_hands, &t.at.known_piles, &t.at.tokens_left, &t.at.used_tokens,
                     &t.at.token_choice, &t.at.tokens_known, &t.at.discard, &t.at.vizier_pile, &t.at.building,
                     &t.at.phase, &t.at.phase_goods, &t.at.phase_target, &t.at.guild_symbol, &t.at.last_points,
                     &t.at.last_corruption, &t.at.last_curses, &t.at.last_most_corrupt, &t.at.last_penalty,
                     &t.at.last_horizontal};
    int start = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        *fields[i] = start;
        start += sizes[i];
    }
    t.at.size = start;
    return true;
}

int decode(const Table& t, const float* x, const uint8_t* mask, View& v, int* bad_entry) noexcept {
    const Layout& at = t.at;
    const int n = t.n;
    // every entry a number from 0 to 100 (NaN fails both tests); blocks of 8 without branches, which the
    // compiler turns into vector compares: this check is a good part of the decoding's time
    const float high = float(OBSERVATION_HIGH);
    int outside = 0, i = 0;
    for (; i + 8 <= at.size; i += 8)
        for (int j = 0; j < 8; ++j) outside |= !((x[i + j] >= 0.0f) & (x[i + j] <= high));
    for (; i < at.size; ++i) outside |= !((x[i] >= 0.0f) & (x[i] <= high));
    if (outside) {
        for (i = 0; i < at.size; ++i)
            if (!(x[i] >= 0.0f && x[i] <= high)) break;
        if (bad_entry) *bad_entry = i;
        return BAD_ENTRY;
    }
    auto count = [&](int i) { return long(x[i]); };  // numpy's astype(int64): toward zero
    auto scaled = [&](int i) { return long(py_round(double(x[i]) * SCORE_SCALE)); };
    auto index = [&](int start, int width) {
        for (int i = 0; i < width; ++i)
            if (count(start + i) == 1) return i;
        return -1;
    };
    v.n = n;
    v.mask = mask;
    for (int k = 0; k < KINDS; ++k) {
        v.hand[k] = count(at.hand + k);
        v.pile[k] = count(at.pile + k);
        v.vizier_pile[k] = count(at.vizier_pile + k);
        v.building[k] = count(at.building + k);
    }
    v.nile_len = 0;
    int occupied[NILE_SLOTS];  // the rows with a nonzero entry: the others count for nothing below either
    for (int r = 0; r < NILE_SLOTS; ++r) {  // argmax of each row with a nonzero entry
        int row = at.nile + r * NILE_COLUMNS, best = 0, any = 0;
        for (int c = 0; c < NILE_COLUMNS; ++c) any |= x[row + c] >= 1.0f;  // an entry from 0 to 100 counts
        if (!any) continue;                                                  // nonzero from 1 on
        long top = count(row);
        for (int c = 0; c < NILE_COLUMNS; ++c) {
            long value = count(row + c);
            if (value > top) {
                best = c;
                top = value;
            }
        }
        occupied[v.nile_len] = row;
        v.nile[v.nile_len++] = best;
    }
    v.deck = count(at.deck_size);
    for (int p = 0; p < n; ++p) {
        v.scores[p] = scaled(at.scores + p);
        v.hand_size[p] = 0;
        for (int b = 0; b < 3; ++b) {
            v.hand_backs[p][b] = count(at.hand_backs + 3 * p + b);
            v.hand_size[p] += v.hand_backs[p][b];
        }
        v.curses[p] = count(at.curses + p);
        for (int g = 0; g < SLOTS; ++g)
            for (int j = 0; j < 3; ++j) v.sets[p][g][j] = count(at.sets + (p * SLOTS + g) * 3 + j);
        v.set_points[p] = scaled(at.set_points + p);
        for (int k = 0; k < KINDS; ++k) v.horizontal[p][k] = count(at.horizontal + p * KINDS + k);
    }
    for (int o = 0; o < n - 1; ++o)
        for (int k = 0; k < KINDS; ++k) {
            v.known_hands[o][k] = count(at.known_hands + o * KINDS + k);
            v.known_piles[o][k] = count(at.known_piles + o * KINDS + k);
        }
    v.tokens_left = count(at.tokens_left);
    v.has_tokens_known = false;
    for (int i = 0; i < TOKEN_KINDS; ++i) {
        v.used_tokens[i] = count(at.used_tokens + i);
        v.token_choice[i] = count(at.token_choice + i);
        v.tokens_known[i] = count(at.tokens_known + i);
        v.has_tokens_known = v.has_tokens_known || v.tokens_known[i];
    }
    int phase = index(at.phase, NUM_PHASES);
    v.phase = phase < 0 ? NUM_PHASES - 1 : phase;  // no entry of 1 names the last phase, as View does
    v.phase_goods = index(at.phase_goods, SLOTS);
    v.phase_target = index(at.phase_target, n);
    v.guild_symbol = index(at.guild_symbol, 4);

    // what the observer has seen this round (View._read)
    long own[KINDS], seen[KINDS];
    bool building_off = v.phase == BUILD_SET || v.phase == HORIZONTAL_SET;
    long own_total = 0;
    for (int k = 0; k < KINDS; ++k) {
        own[k] = v.hand[k] + v.pile[k] + count(at.discard + k);
        for (int p = 0; p < n; ++p) own[k] += count(at.set_cards + p * KINDS + k);
        if (building_off) own[k] += v.building[k];
        for (int p = 0; p < n; ++p) own[k] += v.horizontal[p][k];
        own_total += own[k];
        seen[k] = own[k];
        for (int o = 0; o < n - 1; ++o) seen[k] += v.known_hands[o][k] + v.known_piles[o][k];
        if (k < NILE_COLUMNS - 1)
            for (int i = 0; i < v.nile_len; ++i) seen[k] += count(occupied[i] + k);
    }
    for (int k = 0; k < KINDS; ++k) v.unseen[k] = double(std::max(long(t.catalogue[k]) - seen[k], 0L));
    int hidden = 0;
    for (int i = 0; i < v.nile_len; ++i) hidden += v.nile[i] == HIDDEN;
    if (hidden) {  // a face-down character on the Nile is no longer in the deck
        double left = 0.0;
        for (int k = FIRST_CHARACTER; k < KINDS; ++k) left += v.unseen[k];
        double factor = left ? std::max(0.0, left - hidden) / left : 0.0;
        for (int k = FIRST_CHARACTER; k < KINDS; ++k) v.unseen[k] *= factor;
    }
    // deck_like @ Counts.coming, in the order numpy's BLAS (OpenBLAS dgemv_n) sums here: goods 0-3 by blocks
    // of four kinds, goods 4-5 kind after kind; only face-down characters make the sums inexact
    double deck_like[KINDS];
    for (int k = 0; k < KINDS; ++k) deck_like[k] = is_start(k) ? v.unseen[k] * 0.0 : v.unseen[k] * 1.0;
    for (int g = 0; g < GOODS; ++g) {
        double terms[KINDS], scarab_terms[KINDS];
        for (int k = 0; k < KINDS; ++k) {
            bool member = t.kind_goods[k] == g && !is_start(k);
            terms[k] = deck_like[k] * (member ? 1.0 : 0.0);
            scarab_terms[k] = deck_like[k] * (member ? double(t.kind_scarabs[k]) : 0.0);
        }
        double y = 0.0, ys = 0.0;
        if (g < 4) {
            for (int b = 0; b < KINDS; b += 4) {
                double s = terms[b], ss = scarab_terms[b];
                for (int j = 1; j < 4; ++j) {
                    s += terms[b + j];
                    ss += scarab_terms[b + j];
                }
                y += s;
                ys += ss;
            }
        } else {
            for (int k = 0; k < KINDS; ++k) {
                y += terms[k];
                ys += scarab_terms[k];
            }
        }
        v.coming[g] = y;
        v.coming_scarabs[g] = ys;
    }
    v.coming_amulets = deck_like[AMULET];
    v.coming_total = numpy_sum(deck_like, KINDS);
    // View._pile_sizes
    long placed = v.deck + v.nile_len + own_total;
    for (int p = 0; p < n; ++p) placed += v.hand_size[p];
    for (int k = 0; k < KINDS; ++k) placed -= v.hand[k];
    long others = std::max(0L, t.round_cards - placed), opponents_piles = 0;
    long sizes[MAX_PLAYERS] = {0, 0, 0, 0};
    for (int p = 0; p < n; ++p) {
        sizes[p] = count(at.pile_backs + 3 * p) + count(at.pile_backs + 3 * p + 1) + count(at.pile_backs + 3 * p + 2);
        if (p) opponents_piles += sizes[p];
    }
    bool memory = opponents_piles > 0 || others == 0;
    v.pile_size[0] = double(sizes[0]);
    for (int p = 1; p < n; ++p) v.pile_size[p] = memory ? double(sizes[p]) : double(others) / (n - 1);
    return 0;
}

int decide(const Table& t, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry) noexcept {
    if (t.n < 2 || t.n > MAX_PLAYERS) return BAD_TABLE;
    if (agent != GREEDY && agent != HEURISTIC) return BAD_AGENT;
    View v;
    int fallback = -1;
    for (int a = 0; a < NUM_ACTIONS && fallback < 0; ++a)
        if (mask[a]) fallback = a;
    if (fallback < 0) return NO_LEGAL_ACTION;
    int status = decode(t, obs, mask, v, bad_entry);
    if (status) return status;
    int action;
    if (agent == GREEDY) {
        greedy::Greedy g(t, v);
        action = g.act();
    } else {
        action = heuristic::decide(t, v, tolerance);
    }
    return legal(v, action) ? action : fallback;  // a safety net: every handler aims at a legal id
}

int advise(const Table& t, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry) noexcept {
    if (t.n < 2 || t.n > MAX_PLAYERS) return BAD_TABLE;
    int fallback = -1;
    for (int a = 0; a < NUM_ACTIONS && fallback < 0; ++a)
        if (mask[a]) fallback = a;
    if (fallback < 0) return NO_LEGAL_ACTION;
    View v;
    int status = decode(t, obs, mask, v, bad_entry);
    if (status) return status;
    return heuristic::advise(t, v, tolerance, out);
}

}  // namespace sobek_native

// What every game's native baselines (agents/<game>/native/baselines.hpp) answer alike: the agents a decide call
// names, and its answers for input it refuses (a valid decision is an action id, from 0). Bound once for the
// games' _baselines.pyx by decide.pxi.
#pragma once

namespace sobek_native {

enum Agent { GREEDY = 0, HEURISTIC = 1 };

enum Refusal { BAD_ENTRY = -1, NO_LEGAL_ACTION = -2, BAD_AGENT = -3, BAD_TABLE = -4 };

}  // namespace sobek_native

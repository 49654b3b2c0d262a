# cython: boundscheck=False, wraparound=False
"""The Sobek heuristic's estimate of a hand, compiled: :meth:`agents.sobek.heuristic.Model.hand_points`
(the reference, with ``Model.group`` and :func:`sobek_env.sobek.decode.at_least`) done with the same
operations in the same order on C doubles, which hold every count exactly, so it returns the same two
floats; its lists are summed by Python's own ``sum``, as the reference sums them. The heuristic's
rollouts in search spend about a third of their time here."""

from libc.math cimport exp

from sobek_env.sobek.catalogue import AMULET, CHARACTER_KINDS, PROSPERITY_SCARABS, SCRIBE_HAND_LIMIT, SET_MIN_CARDS

cdef enum:
    GOODS = 6  # NUM_GOODS, checked against it at import by agents.sobek.heuristic

GOODS_COUNT = GOODS
cdef double _PROSPERITY = PROSPERITY_SCARABS
cdef long _MIN_CARDS = SET_MIN_CARDS
cdef long _AMULET = AMULET


cdef double _at_least(double mean, long k):
    """P(Poisson(mean) >= k), as decode.at_least."""
    cdef double term, total
    cdef long i
    if k <= 0:
        return 1.0
    if mean <= 0.0:
        return 0.0
    term = exp(-mean)
    total = term
    for i in range(1, k):
        term *= mean / i
        total += term
    return 1.0 - total


cdef struct Group:
    double points
    double leftover


cdef Group _group(double future, double future_scarabs, double future_amulets, double risk,
                  double cards, double scarabs, double on_table, double table_scarabs, double prosperity):
    """Model.group: (expected points, expected leftover cards) of a hand group."""
    cdef Group out
    cdef double base, gain, chance, need
    if not cards and not on_table:
        out.points = 0.0
        out.leftover = 0.0
        return out
    base = table_scarabs + _PROSPERITY * prosperity
    gain = (base + scarabs + future_scarabs) * (on_table + cards + future) - base * on_table
    need = _MIN_CARDS - cards
    if need <= 0:
        out.points = gain * (1.0 - risk) + risk * scarabs
        out.leftover = 0.0
        return out
    chance = _at_least(future + future_amulets, <long>need)
    out.points = chance * gain
    out.leftover = (1.0 - chance) * cards
    return out


def hand_points(model, hand, tables, effective_tables, hold_worth):
    """``model.hand_points(hand, tables)``; ``effective_tables`` and ``hold_worth`` (HOLD) are the
    heuristic's own."""
    cdef double counts[GOODS]
    cdef double scarabs[GOODS]
    cdef double points[GOODS]
    cdef double leftover[GOODS]
    cdef double on_table[GOODS]
    cdef double table_scarabs[GOODS]
    cdef double prosperity[GOODS]
    cdef double future[GOODS]
    cdef double future_scarabs[GOODS]
    cdef double future_amulets = model.future_amulets
    cdef double risk = model.risk
    cdef double best, best_lo
    cdef long g, k, n, best_g, spare = 0
    cdef Group grp
    rules = model.v.rules
    members, kind_scarabs = rules.members, rules.kind_scarabs
    for g in range(GOODS):  # goods_groups
        counts[g] = 0.0
        scarabs[g] = 0.0
        for k in members[g]:
            n = hand[k]
            if n:
                counts[g] += n
                scarabs[g] += n * <long>kind_scarabs[k]
    tables = effective_tables(tables, [int(counts[g]) for g in range(GOODS)])
    model_future, model_future_scarabs = model.future, model.future_scarabs
    for g in range(GOODS):
        table = tables[g]
        on_table[g], table_scarabs[g], prosperity[g] = table[0], table[1], table[2]
        future[g], future_scarabs[g] = model_future[g], model_future_scarabs[g]
        grp = _group(future[g], future_scarabs[g], future_amulets, risk, counts[g], scarabs[g], on_table[g],
                     table_scarabs[g], prosperity[g])
        points[g], leftover[g] = grp.points, grp.leftover
    for _ in range(hand[_AMULET]):
        best, best_g, best_lo = 0.0, -1, 0.0
        for g in range(GOODS):
            if counts[g] or on_table[g]:
                grp = _group(future[g], future_scarabs[g], future_amulets, risk, counts[g] + 1, scarabs[g],
                             on_table[g], table_scarabs[g], prosperity[g])
                if grp.points - points[g] > best:
                    best, best_g, best_lo = grp.points - points[g], g, grp.leftover
        if best_g < 0:
            spare += 1
            continue
        counts[best_g] += 1
        points[best_g] += best
        leftover[best_g] = best_lo
    held = sum([hold_worth[k] * hand[k] for k in CHARACTER_KINDS if hand[k]]) * model.hold
    scribed = model.scribe_threat * max(0, sum(hand) - SCRIBE_HAND_LIMIT)
    return (sum([points[g] for g in range(GOODS)]) + held,
            sum([leftover[g] for g in range(GOODS)]) + spare + scribed)

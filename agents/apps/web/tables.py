"""Each game's table as HTML (with SVG for the boards), drawn from one seat's document only.

The documents are the games' ``seat_document`` (what the seat may see); nothing here reads a state, so a
page cannot show more than its seat sees. The colours and the layout's ideas are the drawn pictures'
(``sobek_env/<game>/picture.py``): their tables are reused, their pixels are not. ``privates`` (a replay's
full view) gives, per seat, that seat's own document, whose private part is shown in its panel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from sobek_env.kleopatra import picture as kleo_picture
from sobek_env.kleopatra.catalogue import (
    CATEGORIES,
    CLEOPATRA_END,
    DICE,
    GATE_PARTS,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    SPHINX_PIECES,
    THRONE_PIECES,
)
from sobek_env.picture import SEAT_COLOURS, text_colour
from sobek_env.sobek import picture as sobek_picture
from sobek_env.sobek.catalogue import FIRST_CHARACTER, KINDS, SYMBOLS, symbol_at

Doc = Mapping[str, Any]


def rgb(colour: Sequence[int]) -> str:
    return f"rgb({colour[0]},{colour[1]},{colour[2]})"


def seat_colour(seat: int) -> str:
    return rgb(SEAT_COLOURS[seat % len(SEAT_COLOURS)])


def chip(label: str, fill: Sequence[int], count: int = 1, title: str = "", kind: str = "card") -> str:
    """A card or token: ``label`` on ``fill``, with a count badge when it stands for several."""
    badge = f'<b class="count">{count}</b>' if count > 1 else ""
    tip = f' title="{escape(title)}"' if title else ""
    return (f'<span class="{kind}" style="background:{rgb(fill)};color:{rgb(text_colour(tuple(fill)))}"{tip}>'
            f'{escape(label)}{badge}</span>')


def seat_name(seat: int, you: int | None = None) -> str:
    mine = " (you)" if seat == you else ""
    return f'<span class="seat-name" style="color:{seat_colour(seat)}">player_{seat}{mine}</span>'


def panel(title: str, body: str, cls: str = "") -> str:
    return f'<section class="panel {cls}"><h3>{escape(title)}</h3>{body}</section>'


# ====================================================================== Sobek

SOBEK_CHARACTERS = {"queen": "Queen", "vizier": "Vizier", "merchant": "Merchant", "high-priest": "High Priest",
                    "thief": "Thief", "high-priestess": "High Priestess", "scribe-fish": "Scribe (fish)",
                    "scribe-wheat": "Scribe (wheat)", "courtesan": "Courtesan"}
GLYPHS = {"ankh": "\N{ANKH}", "eye": "\N{FISHEYE}", "feather": "\N{BLACK NIB}",
          "lotus": "\N{EIGHT PETALLED OUTLINED BLACK FLORETTE}"}


def sobek_label(name: str) -> str:
    """A card's words on its face: ``fish ••`` for scarabs, ``wheat start``, ``amulet``, ``Vizier``."""
    if name in SOBEK_CHARACTERS:
        return SOBEK_CHARACTERS[name]
    goods, _, sort = name.partition("-")
    return {"plain": goods, "scarab": f"{goods} \N{BULLET}", "start": f"{goods} start", "": goods}[sort]


def sobek_card(name: str, count: int = 1) -> str:
    kind = KINDS.index(name)
    if kind >= FIRST_CHARACTER:
        fill = sobek_picture.BACK_COLOURS["orange"]
    else:
        goods = "amulet" if name == "amulet" else name.partition("-")[0]
        fill = sobek_picture.GOODS_COLOURS[goods]
    return chip(sobek_label(name), fill, count, title=name)


def sobek_cards(cards: Mapping[str, int], empty: str = "none") -> str:
    order = [KINDS[k] for k in sobek_picture.HAND_ORDER]
    shown = [sobek_card(name, cards[name]) for name in order if cards.get(name)]
    return f'<span class="cards">{"".join(shown)}</span>' if shown else f'<span class="none">{empty}</span>'


def sobek_token(name: str, count: int = 1) -> str:
    kind, _, symbol = name.partition("-")
    label = f"{kind} {GLYPHS[symbol]}" if symbol else kind
    return chip(label, sobek_picture.TOKEN_COLOURS[kind], count, title=name, kind="token")


def sobek_track(seats: Sequence[Doc]) -> str:
    """The scoring track as two rows of 50 spaces: numbers every 5, hieroglyphs between, a marker per seat."""
    cell, rows = 19, 2
    markers: dict[int, list[int]] = {}
    for entry in seats:
        markers.setdefault(entry["score"] % 100, []).append(entry["seat"])
    parts = []
    for pos in range(100):
        row, col = divmod(pos, 50)
        x, y = 4 + col * cell, 4 + row * 40
        numbered = pos % 5 == 0
        parts.append(f'<rect x="{x}" y="{y}" width="{cell - 1}" height="20" class="{"num" if numbered else "glyph"}"/>')
        label = str(pos) if numbered else GLYPHS[SYMBOLS[symbol_at(pos)]]
        parts.append(f'<text x="{x + cell / 2 - 0.5}" y="{y + 14}" text-anchor="middle">{label}</text>')
        for i, seat in enumerate(markers.get(pos, [])):
            cx = x + cell / 2 + (i - (len(markers[pos]) - 1) / 2) * 8
            parts.append(f'<circle cx="{cx}" cy="{y + 28}" r="5" fill="{seat_colour(seat)}" stroke="#fff">'
                         f'<title>player_{seat}</title></circle>')
    return (f'<svg class="track" viewBox="0 0 {8 + 50 * cell} {rows * 40 + 4}" role="img" '
            f'aria-label="the scoring track">{"".join(parts)}</svg>')


def sobek_table(doc: Doc, seat: int | None, legal: Sequence[Mapping[str, Any]] = (),
                privates: Mapping[int, Doc] | None = None) -> str:
    """Sobek's table as ``seat`` sees it (None: the full view, with ``privates``)."""
    takes = {int(a["name"].partition(":")[2]): a["id"] for a in legal if a["name"].startswith("take:")}
    nile = []
    for i, name in enumerate(doc["nile"]):
        face = sobek_card(name) if name else chip("character", sobek_picture.BACK_COLOURS["orange"],
                                                     title="a character, face down")
        window = " window" if i < doc["take_window"] else ""
        pick = f' data-action="{takes[i]}" role="button" tabindex="0"' if i in takes else ""
        nile.append(f'<div class="nile-slot{window}{" pick" if pick else ""}"{pick}><i>{i}</i>{face}</div>')
    used = "".join(sobek_token(t, k) for t, k in doc["used_tokens"].items()) or '<span class="none">none</span>'
    river = (f'<div class="nile">{"".join(nile) or "<span class=none>empty</span>"}</div>'
             f'<p class="board-line">deck <b>{doc["deck"]}</b> &middot; face-down tokens '
             f'<b>{doc["tokens_face_down"]}</b> &middot; used tokens {used} &middot; discard '
             f'{sobek_cards(doc["discard"])}</p>')
    panels = [sobek_seat(entry, doc, seat, (privates or {}).get(entry["seat"])) for entry in doc["seats"]]
    out = [f'<div class="sobek-board">{sobek_track(doc["seats"])}',
           panel("The Nile (position 0 is nearest the 0 space; 0-3 may be taken)", river, "nile-panel"),
           f'<div class="seats">{"".join(panels)}</div>', sobek_context(doc), sobek_rounds(doc), "</div>"]
    return "".join(out)


def sobek_seat(entry: Doc, doc: Doc, seat: int | None, private: Doc | None) -> str:
    p = entry["seat"]
    own = private["seats"][p] if private is not None else entry
    acting = p == doc.get("current_player") and not doc.get("over")
    rows = [f'<p class="score"><b>{entry["score"]}</b> points'
            + (' &middot; <span class="first">first player</span>' if p == doc["first_player"] else "") + "</p>"]
    if "hand" in own:
        rows.append(f'<p>hand ({entry["hand_size"]}): {sobek_cards(own["hand"], "empty")}</p>')
    else:
        backs = "".join(chip(b, sobek_picture.BACK_COLOURS[b], k, title=f"{k} {b}-backed") for b, k in
                        entry["hand_backs"].items() if k) or '<span class="none">empty</span>'
        rows.append(f'<p>hand ({entry["hand_size"]}): {backs}</p>')
        if entry.get("remembered_hand"):
            rows.append(f'<p class="memory">remembered in hand: {sobek_cards(entry["remembered_hand"])}</p>')
    size = own.get("pile_size")
    pile = f'corruption pile: <b>{"?" if size is None else size}</b>'
    if "pile" in own:
        pile += f" {sobek_cards(own['pile'], '')}"
    elif entry.get("remembered_pile"):
        pile += f' <span class="memory">remembered: {sobek_cards(entry["remembered_pile"])}</span>'
    if entry["curses"]:
        pile += " " + sobek_token("curse", entry["curses"])
    rows.append(f"<p>{pile}</p>")
    sets = [f'<div class="set"><b>{escape(s["slot"])}</b> {sobek_cards(s["cards"])}'
            + ("".join(sobek_token("prosperity") for _ in range(s["prosperity"])))
            + f' <span class="value">= {s["value"]}</span></div>' for s in entry["sets"]]
    sets += [f'<div class="set horizontal"><b>horizontal {escape(s["slot"])}</b> {sobek_cards(s["cards"])}'
             f' <span class="value">= {s["value"]}</span></div>' for s in entry["horizontal"]]
    rows.append(f'<div class="sets">sets: {"".join(sets) or "<span class=none>none</span>"}</div>')
    title = seat_name(p, seat)
    return (f'<section class="panel seat{" acting" if acting else ""}" data-seat="{p}" '
            f'style="border-left-color:{seat_colour(p)}"><h3>{title}</h3>{"".join(rows)}</section>')


def sobek_context(doc: Doc) -> str:
    parts = []
    if "laying" in doc:
        parts.append(f'<p>laying {escape(doc["laying"]["slot"])}: {sobek_cards(doc["laying"]["cards"])}</p>')
    if "guild" in doc:
        parts.append(f'<p>Guild of the {escape(doc["guild"])} {GLYPHS[doc["guild"]]}: an opponent moves back</p>')
    if "token_choice" in doc:
        parts.append("<p>tokens to choose from: " + "".join(sobek_token(t, k) for t, k in doc["token_choice"].items())
                     + "</p>")
    if "tokens_known" in doc:
        parts.append("<p>face-down tokens you know: " + "".join(sobek_token(t, k) for t, k in
                                                                doc["tokens_known"].items()) + "</p>")
    if "vizier_pile" in doc:
        pile = doc["vizier_pile"]
        parts.append(f'<p>player_{pile["seat"]}\'s corruption pile: {sobek_cards(pile["cards"], "empty")}</p>')
    return panel("Now: " + doc["doing"], "".join(parts), "now") if parts else ""


def sobek_rounds(doc: Doc) -> str:
    if not doc["rounds_scored"]:
        return ""
    n = len(doc["seats"])
    head = "".join(f"<th>{seat_name(p)}</th>" for p in range(n))
    rows = []
    for entry in doc["rounds_scored"]:
        cells = []
        for p in range(n):
            penalty = f" / &minus;{entry['penalty'][p]}" if entry["penalty"][p] else ""
            corrupt = p in entry["most_corrupt"]
            cells.append(f'<td class="{"corrupt" if corrupt else ""}">+{entry["points"][p]} / '
                         f'{entry["corruption"][p]}{penalty}{" most corrupt" if corrupt else ""}</td>')
        rows.append(f'<tr><th>round {entry["round"]}</th>{"".join(cells)}</tr>')
    table = f'<table class="rounds"><tr><th></th>{head}</tr>{"".join(rows)}</table>'
    return panel("Scored rounds: points / corruption / penalty", table, "rounds-panel")


def sobek_result(doc: Doc) -> list[str]:
    """The end's lines besides scores and winners: who was most corrupt in each round."""
    out = []
    for entry in doc["rounds_scored"]:
        corrupt = ", ".join(f"player_{p}" for p in entry["most_corrupt"]) or "nobody"
        out.append(f'round {entry["round"]}: most corrupt {corrupt}')
    return out


# ====================================================================== Kleopatra

UNIT_NAMES = ("artisan", "stone", "marble", "wood", "lapis", "trompe", "merchant")


def kleo_card(kind: int, kinds: Sequence[str], count: int = 1) -> str:
    if kind >= len(kinds):
        return chip("face down", kleo_picture.BACK, count, title="a card face down")
    name = kinds[kind]
    base = name.rstrip("2")
    fill = kleo_picture.KIND_COLOURS.get(base, kleo_picture.KIND_COLOURS["character"])
    label = base.title() if base not in kleo_picture.KIND_COLOURS else (f"{base} x2" if name.endswith("2") else base)
    tainted = " tainted" if kinds.index(name) >= kinds.index("artisan2") else ""
    return chip(label, fill, count, title=name + tainted)


def kleo_cards(counts: Sequence[int], kinds: Sequence[str], empty: str = "none") -> str:
    shown = [kleo_card(k, kinds, c) for k, c in enumerate(counts) if c]
    return f'<span class="cards">{"".join(shown)}</span>' if shown else f'<span class="none">{empty}</span>'


def absolute(doc: Doc, seat: int, r: int) -> int:
    return (seat + r) % doc["num_players"]


def kleo_palace(doc: Doc, seat: int, squares: Mapping[int, int]) -> str:
    """The palace from above, the back on top: the garden's squares (ids, palms, tiles, sanctuaries and their
    owners), the walls round it, the throne and pedestal behind, the gate, sphinxes and obelisks before it."""
    size, cell = doc["garden_size"], 40
    left, top = 50, 90
    width, height = left * 2 + size * cell, top + size * cell + 150
    tile_at = {sq: m["tile"] for m in doc["mosaics"] for sq in m["squares"]}
    tiles = doc["tiles"]
    owner = {sq: absolute(doc, seat, r) for r, owned in enumerate(doc["owned"]) for sq in owned}
    sanctuaries, palms = set(doc["sanctuaries"]), set(doc["palms"])
    parts = []
    for y in range(size):
        for x in range(size):
            sq = 8 * y + x
            px, py = left + x * cell, top + (size - 1 - y) * cell
            if sq in tile_at:
                fill, label = rgb(kleo_picture.TILE_COLOURS[tiles.index(tile_at[sq])]), tile_at[sq]
            elif sq in sanctuaries:
                fill = rgb(SEAT_COLOURS[owner[sq]]) if sq in owner else "#c8c4bc"
                label = f"P{owner[sq]}" if sq in owner else "--"
            else:
                fill, label = rgb(kleo_picture.SAND), str(sq)
            pick = f' data-action="{squares[sq]}" class="pick"' if sq in squares else ""
            parts.append(f'<g{pick}><rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="{fill}" '
                         f'stroke="#d6c496"/>')
            if sq in palms:
                parts.append(f'<circle cx="{px + cell - 9}" cy="{py + 9}" r="5" fill="{rgb(kleo_picture.PALM)}">'
                             '<title>a palm</title></circle>')
            parts.append(f'<text x="{px + 4}" y="{py + cell - 6}" class="sq">{label}</text></g>')
    for k, slot in enumerate(doc["wall_slots"]):
        built, sq = doc["walls"][k], slot["squares"]
        if slot["side"] is None or not sq:
            continue
        xs, ys = [s % 8 for s in sq], [s // 8 for s in sq]
        if slot["side"] == "back":
            rect = (left + min(xs) * cell + 2, top - 16, (max(xs) - min(xs) + 1) * cell - 4, 12)
        else:
            x = left - 16 if slot["side"] == "left" else left + size * cell + 4
            rect = (x, top + (size - 1 - max(ys)) * cell + 2, 12, (max(ys) - min(ys) + 1) * cell - 4)
        parts.append(element(rect, built, f"W{k + 1}"))
    cx = left + size * cell / 2
    parts.append(element((cx - 60, top - 44, 120, 18), doc["pedestal"], "pedestal"))
    parts.append(element((cx - 25, top - 84, 50, 34), doc["throne"], "throne"))
    front = top + size * cell
    parts.append(element((left - 16, front + 6, cx - left + 10, 16), doc["gate"][0], "gate left"))
    parts.append(element((cx + 6, front + 6, cx - left + 10, 16), doc["gate"][1], "gate right"))
    for i in range(SPHINX_PIECES):
        row, side = divmod(i, 2)
        parts.append(element((cx - 70 if side == 0 else cx + 20, front + 32 + row * 28, 50, 22), i < doc["sphinxes"],
                             f"S{i + 1}"))
    for i in range(OBELISK_PIECES):
        parts.append(element((left + 4 if i == 0 else left + size * cell - 24, front + 32, 20, 80),
                             i < doc["obelisks"], f"O{i + 1}"))
    return (f'<svg class="palace" viewBox="0 0 {width} {height}" role="img" aria-label="the palace">'
            f'{"".join(parts)}</svg>')


def element(rect: tuple[float, float, float, float], built: bool, label: str) -> str:
    x, y, w, h = rect
    cls = "built" if built else "unbuilt"
    vertical = h > w * 2
    text = (f'<text x="{x + w / 2}" y="{y + h / 2 + 4}" text-anchor="middle" class="el"'
            + (f' transform="rotate(-90 {x + w / 2} {y + h / 2})"' if vertical else "") + f">{label}</text>")
    return f'<g class="{cls}"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="3"/>{text}<title>{label}' \
           f'{" (built)" if built else " (still in the quarry)"}</title></g>'


def kleopatra_table(doc: Doc, seat: int | None, legal: Sequence[Mapping[str, Any]] = (),
                    privates: Mapping[int, Doc] | None = None) -> str:
    """Kleopatra's table as ``seat`` sees it (None: the full view, seat 0's table with ``privates``)."""
    base = 0 if seat is None else seat
    kinds = doc["kinds"]
    squares = {int(a["name"].partition(":")[2]): a["id"] for a in legal if a["name"].startswith("square:")}
    stalls_legal = {int(a["name"].partition(":")[2]): a["id"] for a in legal if a["name"].startswith("market:")}
    stalls = []
    for i, row in enumerate(doc["stalls"]):
        pick = f' data-action="{stalls_legal[i]}" role="button" tabindex="0"' if i in stalls_legal else ""
        stalls.append(f'<div class="stall{" pick" if pick else ""}"{pick}><h4>stall {i}</h4>'
                      f'{kleo_cards(row, kinds, "empty")}</div>')
    top = doc["deck_top"]
    deck = ("empty" if top > len(kinds) else kleo_card(top, kinds))
    market = (f'<div class="stalls">{"".join(stalls)}<div class="stall"><h4>deck</h4>{doc["deck_size"]} cards, top: '
              f'{deck}<h4>discard pile</h4>{doc["discard_size"]} cards</div></div>')
    steps = "".join(f'<span class="step{" here" if i == doc["cleopatra"] else ""}">{"end" if i == CLEOPATRA_END else i}'
                    f'</span>' for i in range(CLEOPATRA_END + 1))
    dice = "".join('<span class="die on">&#9765;</span>' if i < doc["altar"] else '<span class="die"></span>'
                   for i in range(DICE))
    counts = (sum(doc["walls"]), doc["sphinxes"], doc["obelisks"], sum(doc["gate"]),
              int(doc["pedestal"]) + int(doc["throne"]), len(doc["mosaics"]))
    pieces = (NUM_WALL_SLOTS, SPHINX_PIECES, OBELISK_PIECES, GATE_PARTS, THRONE_PIECES, len(doc["tiles"]))
    quarry = "".join(f'<li class="{"complete" if doc["complete"][i] else ""}">{name} {counts[i]}/{pieces[i]}'
                     f'{" complete" if doc["complete"][i] else ""}</li>' for i, name in enumerate(CATEGORIES))
    tiles_left = [doc["tiles"][t] for t, here in enumerate(doc["in_quarry"]) if here]
    removed = [doc["tiles"][t] for t, gone in enumerate(doc["removed"]) if gone]
    top_tile = doc["tiles"][doc["top_tile"]] if doc["top_tile"] is not None else "none"
    progress = (f'<p>Cleopatra\'s steps: {steps}</p><p>altar: {dice} ({doc["altar"]} of {DICE}; '
                f'5 on the altar: offering ceremony)</p><ul class="quarry">{quarry}</ul>'
                f'<p>mosaic tiles in the quarry: {" ".join(tiles_left) or "none"}; top: <b>{top_tile}</b>; '
                f'removed: {" ".join(removed) or "none"}</p>')
    panels = [kleo_seat(doc, base, r, seat, (privates or {}).get(absolute(doc, base, r)))
              for r in range(doc["num_players"])]
    return (f'<div class="kleo-board"><div class="kleo-left">'
            f'{panel("The palace (from above, the back on top)", kleo_palace(doc, base, squares), "palace-panel")}'
            f'</div><div class="kleo-right">{panel("The market", market, "market")}'
            f'{panel("Progress", progress, "progress")}</div>'
            f'<div class="seats">{"".join(panels)}</div>{kleo_context(doc, base)}</div>')


def kleo_seat(doc: Doc, base: int, r: int, seat: int | None, private: Doc | None) -> str:
    p = absolute(doc, base, r)
    kinds = doc["kinds"]
    own = private if private is not None else (doc if r == 0 and seat is not None else None)
    # rules §12: the others' talents and amulets are known only in memory mode and at the end
    talents = own["talents"][0] if own is not None else doc["talents"][r] if doc["revealed"] else None
    amulets = own["amulets"][0] if own is not None else doc["amulets"][r] if doc["revealed"] else None
    notes = []
    if doc["over"] and doc["eliminated"][r]:
        notes.append('<b class="eaten">eaten by the crocodile</b>')
    if doc["over"] and doc["winners"][r]:
        notes.append('<b class="winner">winner</b>')
    if not doc["over"] and r == doc["active"]:
        notes.append("your turn" if p == seat else "his turn")
    acting = not doc["over"] and r == doc["acting"]
    rows = [f'<p>talents <b>{"?" if talents is None else talents}</b> &middot; amulets '
            f'<b>{"?" if amulets is None else amulets}</b> &middot; merchants <b>{doc["merchants"][r]}</b> &middot; '
            f'statues <b>{doc["statues"][r]}</b> &middot; sanctuary squares <b>{doc["sanctuary_squares"][r]}</b></p>']
    if own is not None:
        rows.append(f'<p>hand ({doc["hand_sizes"][r]}): {kleo_cards(own["hand"], kinds, "empty")}</p>')
    else:
        size = doc["hand_sizes"][r]
        rows.append(f'<p>hand: {f"{size} cards face down" if size else "empty"}</p>')
        known = doc["shown_hands"][r - 1] if doc["shown"][r - 1] else doc["known_hands"][r - 1]
        if any(known):
            label = "shown to you" if doc["shown"][r - 1] else "known to be in it"
            rows.append(f'<p class="memory">{label}: {kleo_cards(known, kinds)}</p>')
    return (f'<section class="panel seat{" acting" if acting else ""}" data-seat="{p}" '
            f'style="border-left-color:{seat_colour(p)}"><h3>{seat_name(p, seat)} {" ".join(notes)}</h3>'
            f'{"".join(rows)}</section>')


def kleo_context(doc: Doc, base: int) -> str:
    kinds, n, parts = doc["kinds"], doc["num_players"], []

    def name(r: int) -> str:
        return f"player_{absolute(doc, base, r)}"

    if any(doc["pool"]) or any(doc["paid"]) or any(doc["built"]):
        pool = "".join(chip(UNIT_NAMES[u], kleo_picture.UNIT_COLOURS[u], c) for u, c in enumerate(doc["pool"]) if c)
        parts.append(f'<p>quarry visit: pool {pool or "empty"}; paid {kleo_cards(doc["paid"], kinds)}; built '
                     f'{sum(doc["built"])} this visit</p>')
    if doc["refill_cards"]:
        filled = ", ".join(str(i) for i, f in enumerate(doc["refill_filled"]) if f) or "none yet"
        parts.append("<p>refill, the next card first: " + "".join(kleo_card(c, kinds) for c in doc["refill_cards"])
                     + f"; stalls filled: {filled}</p>")
    if doc["tile"] is not None:
        orient = f", orientation {doc['orient']}" if doc["orient"] is not None else ""
        parts.append(f'<p>placing mosaic tile {doc["tiles"][doc["tile"]]}{orient}</p>')
    if doc["offered_sanctuary"]:
        parts.append(f'<p>new sanctuary on squares {doc["offered_sanctuary"]}: a statue of Anubis on it?</p>')
    if doc["envoy_resource"] is not None:
        offers = ", ".join(f"{name(r)} {doc['envoy_offers'][r]}" for r in range(1, n))
        parts.append(f'<p>the Envoy asks for {kinds[doc["envoy_resource"]]}; offered: {offers}</p>')
    if any(doc["vizier_drawn"]):
        parts.append(f'<p>your Vizier drew (kept {doc["vizier_kept"]}): {kleo_cards(doc["vizier_drawn"], kinds)}</p>')
    if any(doc["courtesan_discard"]):
        parts.append(f'<p>the discard pile your Courtesan searches: {kleo_cards(doc["courtesan_discard"], kinds)}</p>')
    if doc["phase"] == "ceremony":
        closed = ", ".join(name(r) for r in range(n) if doc["ceremony_closed"][r]) or "nobody"
        parts.append(f'<p>offering ceremony: your secret offer so far {doc["ceremony_offer"]}; closed: {closed}</p>')
    if any(doc["last_places"]):
        parts.append("<p>last ceremony: " + ", ".join(f"{name(r)} offered {doc['last_offers'][r]} (place "
                                                      f"{doc['last_places'][r]})" for r in range(n)) + "</p>")
    return panel("Now: " + doc["doing"], "".join(parts), "now") if parts else ""


def kleopatra_result(doc: Doc, seat: int) -> list[str]:
    eaten = [f"player_{absolute(doc, seat, r)}" for r in range(doc["num_players"]) if doc["eliminated"][r]]
    amulets = ", ".join(f"player_{absolute(doc, seat, r)} {doc['amulets'][r]}" for r in range(doc["num_players"]))
    return [f"eaten by the crocodile: {', '.join(eaten) or 'nobody'}", f"amulets: {amulets}"]


TABLES = {"sobek": sobek_table, "kleopatra": kleopatra_table}


def table(game: str, doc: Doc, seat: int | None, legal: Sequence[Mapping[str, Any]] = (),
          privates: Mapping[int, Doc] | None = None) -> str:
    """The table of ``game`` from ``doc`` (see the module docstring)."""
    return TABLES[game](doc, seat, legal, privates)


def result_lines(game: str, doc: Doc, seat: int) -> list[str]:
    """What the end says besides scores and winners: most corrupt (Sobek), eaten (Kleopatra)."""
    return sobek_result(doc) if game == "sobek" else kleopatra_result(doc, seat)


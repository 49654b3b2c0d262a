"""The web app's HTML: the start page, a game's page and its table, a replay's page, an error page.

Pages are drawn on the server from the API's documents (:mod:`.tables` draws the boards); the scripts in
``static/`` only send actions and swap in the table the server draws next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from sobek_env.registry import GAMES, load_game

from . import tables


def document(title: str, body: str, script: str = "") -> str:
    js = f'<script src="/static/{script}" defer></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)}</title><link rel="stylesheet" href="/static/style.css">{js}</head>'
            f'<body>{body}</body></html>')


def error_page(status: int, message: str) -> str:
    return document(f"{status}", f'<main class="narrow"><h1>Sorry</h1><p class="error">{escape(message)}</p>'
                                 f'<p><a href="/">Start a game</a></p></main>')


def start_page(replay_folder: bool = False) -> str:
    """Choose the game, the players, each seat's agent and a seed; or open a replay."""
    games = "".join(f'<option value="{g}" data-min="{load_game(g).min_players}" data-max="{load_game(g).max_players}"'
                    f' data-default="{load_game(g).default_players}">{escape(load_game(g).title)}</option>'
                    for g in GAMES)
    by_path = ('<p><label>or a file in the server\'s replay folder: <input id="replay-path" name="path" '
               'placeholder="game.jsonl"></label> <button id="open-path" type="button">Open</button></p>'
               if replay_folder else "")
    body = f"""<main class="narrow">
<h1>Sobek and Kleopatra</h1>
<form id="start" autocomplete="off">
<p><label>Game <select id="game" name="game">{games}</select></label>
<label>Players <select id="players" name="num_players"></select></label>
<label>Seats remember <select id="mode" name="mode"><option value="original">what is on view (original)</option>
<option value="memory">everything they saw (memory)</option></select></label></p>
<fieldset id="seats"><legend>Who sits where</legend></fieldset>
<p><label>Seed <input id="seed" name="seed" type="number" min="0" placeholder="random"></label>
<label>People <select id="screen" name="screen"><option value="shared">share this screen (hand over between
turns)</option><option value="links">each gets a link of his own</option></select></label></p>
<p><button id="play" type="submit">Play</button></p>
<p class="error" id="start-error" role="alert"></p>
<div id="links" hidden><h2>Links for the people at this table</h2><p>Give each his own link: it holds the
token that lets him play his seat and see what it sees.</p><ul id="link-list"></ul></div>
</form>
<h2>Replays</h2>
<p><label>Open a replay file (<code>sobek-replay/1</code>): <input id="replay-file" type="file"
accept=".jsonl,.json,.txt"></label></p>{by_path}
<p class="error" id="replay-error" role="alert"></p>
<p class="small">The JSON API these pages use is described in the documentation (Play in the browser).</p>
</main>"""
    return document("Sobek and Kleopatra: play", body, "start.js")


def seat_links(pairs: Sequence[tuple[int, str]]) -> str:
    return ",".join(f"{seat}:{token}" for seat, token in pairs)


def play_page(view: Mapping[str, Any], pairs: Sequence[tuple[int, str]]) -> str:
    """A game's page for the people of ``pairs`` (seat, token), showing ``view``'s seat."""
    body = (f'<main id="game-page" data-game="{escape(view["id"])}" data-seats="{escape(seat_links(pairs))}" '
            f'data-shown="{view["seat"]}">'
            f'<div id="handover" class="handover" hidden><div><h2 id="handover-title"></h2>'
            f'<p>Only that player should look now.</p><button id="handover-ready" type="button">I am '
            f'<span id="handover-seat"></span>: show my table</button></div></div>'
            f'<div id="table">{table_html(view)}</div><p class="error" id="play-error" role="alert"></p></main>')
    return document(f"{view['title']}: player_{view['seat']}", body, "play.js")


def status(view: Mapping[str, Any]) -> str:
    doc, seat, n = view["table"], view["seat"], view["num_players"]
    where = f"round {doc['round']} of {doc['rounds']}" if view["game"] == "sobek" else f"turn {doc['turn']}"
    if view["over"]:
        winners = ", ".join(f"player_{p}" for p in view["winners"])
        now = f'<b class="over">Game over. Winner{"s" if len(view["winners"]) > 1 else ""}: {winners}</b>'
    elif view.get("thinking") and view["current_player"] != seat:
        now = f'{tables.seat_name(view["current_player"])} ({escape(view["agents"][view["current_player"]])}) ' \
              f'is thinking&hellip;'
    else:
        who = "You" if view["current_player"] == seat else tables.seat_name(view["current_player"])
        now = f'{who} to act: {escape(doc["doing"])}'
    agents = ", ".join(f"player_{p}: {escape(a)}" for p, a in enumerate(view["agents"]))
    return (f'<header class="status"><h1>{escape(view["title"])}</h1><p>{where} &middot; {n} players &middot; '
            f'as {tables.seat_name(seat, seat)} sees it &middot; <span class="small">{agents}</span></p>'
            f'<p class="now">{now}</p></header>')


def moves_html(view: Mapping[str, Any]) -> str:
    moves = view["moves"]
    if not moves:
        return ""
    looking = view.get("looking_back")
    items = "".join(f'<li class="{"seen" if i == looking else ""}"><button type="button" class="look" '
                    f'data-move="{i}" title="the table after this move">{tables.seat_name(m["seat"])} '
                    f'{escape(m["text"])}</button></li>' for i, m in enumerate(moves))
    back = ('<p class="looking">You are looking back at the table after a move. <button type="button" '
            'class="look" data-move="">Back to now</button></p>' if looking is not None else "")
    controls = ('<p class="steps"><button type="button" id="step-first">first</button> <button type="button" '
                'id="step-prev">previous</button> <button type="button" id="step-next">next</button> '
                '<button type="button" id="step-now">now</button></p>')
    return tables.panel(f"What the others did since your last move ({len(moves)})",
                        f"{back}{controls}<ol class=\"moves\">{items}</ol>", "moves-panel")


def actions_html(view: Mapping[str, Any]) -> str:
    legal = view["legal"]
    if not legal:
        return ""
    buttons = "".join(f'<li><button type="button" class="action" data-action="{a["id"]}" '
                      f'data-name="{escape(a["name"])}"><span class="name">{escape(a["name"])}</span> '
                      f'{escape(a["text"])}</button></li>' for a in legal)
    return tables.panel("Your choices", f'<ol class="actions">{buttons}</ol>', "choices")


def result_html(view: Mapping[str, Any]) -> str:
    if not view["over"]:
        return ""
    scores = "".join(f'<li>{tables.seat_name(p)} <b>{v}</b>{" &#9733; winner" if p in view["winners"] else ""}'
                     f'</li>' for p, v in sorted(enumerate(view["scores"]), key=lambda pv: -pv[1]))
    lines = "".join(f"<li>{escape(line)}</li>" for line in tables.result_lines(view["game"], view["table"],
                                                                                view["seat"]))
    links = ""
    if "id" in view and "steps" not in view:
        links = (f'<p><a class="button" id="download-replay" href="/api/games/{escape(view["id"])}/replay" download>'
                 f'Download the replay</a> <button type="button" id="open-replay" data-game="{escape(view["id"])}">'
                 f'Step through this game</button> <a class="button" href="/">New game</a></p>')
    return tables.panel("The end", f'<ol class="scores">{scores}</ol><ul class="result-lines">{lines}</ul>{links}',
                        "result")


def table_html(view: Mapping[str, Any]) -> str:
    """A game's table for its seat: status, the others' moves, the choices, the board, the end."""
    board = tables.table(view["game"], view["table"] | {"current_player": view["current_player"],
                                                        "over": view["over"]},
                         view["seat"], view["legal"] if view.get("looking_back") is None else [])
    error = f'<p class="error">{escape(view["error"])}</p>' if view.get("error") else ""
    data = (f'data-seat="{view["seat"]}" data-current="{view["current_player"]}" '
            f'data-over="{str(view["over"]).lower()}" data-step="{view["step"]}" '
            f'data-thinking="{str(view["thinking"]).lower()}" '
            f'data-legal="{len(view["legal"])}" data-moves="{len(view["moves"])}"'
            f' data-looking="{"" if view.get("looking_back") is None else view["looking_back"]}"')
    return (f'<div class="game" {data}>{status(view)}{error}{result_html(view)}{moves_html(view)}'
            f'{actions_html(view) if view.get("looking_back") is None else ""}{board}</div>')


def replay_page(view: Mapping[str, Any]) -> str:
    body = (f'<main id="replay-page" data-replay="{escape(view["id"])}" data-steps="{view["steps"]}">'
            f'<div id="replay">{replay_html(view)}</div></main>')
    return document(f"{view['title']}: replay", body, "replay.js")


def replay_html(view: Mapping[str, Any]) -> str:
    """One step of a replay: the controls, the move that led here, the table from the chosen seat or all."""
    n, seat, step = view["num_players"], view["seat"], view["step"]
    options = "".join(f'<option value="{p}"{" selected" if seat == p else ""}>player_{p} '
                      f'({escape(view["agents"][p]) if p < len(view["agents"]) else "?"})</option>' for p in range(n))
    options = f'<option value="full"{" selected" if seat == "full" else ""}>everything (full view)</option>' + options
    move = view["move"]
    said = ""
    if move is not None:
        text = move["text"] if move["text"] is not None else "(nothing this seat could see)"
        name = f' chose <code>{escape(move["name"])}</code>:' if move["name"] else ""
        said = f'<p class="move">step {step}: {tables.seat_name(move["seat"])}{name} {escape(text)}</p>'
    else:
        said = '<p class="move">the deal</p>'
    controls = (f'<form id="replay-controls" class="steps"><button type="button" id="r-first">first</button> '
                f'<button type="button" id="r-prev">previous</button> <label>step <input id="r-step" type="number" '
                f'min="0" max="{view["steps"]}" value="{step}"> of {view["steps"]}</label> '
                f'<button type="button" id="r-next">next</button> <button type="button" id="r-last">last</button> '
                f'<label>as seen by <select id="r-seat">{options}</select></label></form>')
    docs = view["tables"]
    if seat == "full":
        board = tables.table(view["game"], docs[0] | {"current_player": view["current_player"], "over": view["over"]},
                             None, (), dict(enumerate(docs)))
    else:
        board = tables.table(view["game"], docs[0] | {"current_player": view["current_player"], "over": view["over"]},
                             seat)
    end = ""
    if view["over"]:
        end = result_html(view | {"table": docs[0], "seat": 0 if seat == "full" else seat})
    head = (f'<header class="status"><h1>{escape(view["title"])}: replay</h1><p>{n} players &middot; seed '
            f'{view["seed"]} &middot; {escape(view["mode"])} &middot; <a href="/">new game</a></p></header>')
    return (f'<div class="replay" data-step="{step}" data-steps="{view["steps"]}" data-seat="{seat}">{head}{controls}'
            f'{said}{end}{board}</div>')

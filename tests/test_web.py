"""The web app over HTTP (Starlette's TestClient): whole games played by a program through the JSON API of
INTERFACE.md ("Web"), the leak test (what a seat is served is the same, byte for byte, when everything it
cannot see is dealt again), refusals that change nothing, isolation, expiry and the bound on live games.
The browser's tests are in tests/web/ (``make test-web``)."""

from __future__ import annotations

import json
import random
import threading
import time
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # Starlette 1.x suggests another HTTP client for its TestClient; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from agents.apps.web import app as web_app
from agents.apps.web import build_parser
from agents.apps.web.app import MAX_JSON_BYTES, Settings, create_app
from agents.apps.web.sessions import GameSession, Store
from sobek_env.registry import load_game
from sobek_env.replay import Replay

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture
def client():
    with TestClient(create_app(Settings(models=MODELS))) as client:
        yield client


def create(client, game="sobek", agents=("human", "heuristic"), seed=3, **extra):
    response = client.post("/api/games", json={"game": game, "num_players": len(agents), "agents": list(agents),
                                               "seed": seed, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def session_of(client, game_id: str) -> GameSession:
    return client.app.state.store.sessions[game_id]


# what the bot below prefers: building and ending steps, so that a game of Kleopatra ends in fewer steps
EAGER = ("quarry", "wall:", "gate:", "sphinx", "obelisk", "pedestal", "throne", "mosaic", "tile:", "orient:", "square:",
         "card:", "merchant", "done", "yes", "set:", "take:")


def play_out(client, game_id: str, tokens: dict[str, str], seed: int = 0) -> dict:
    """Play every person's seat through the API until the game ends: a bot that reads only the JSON, choosing
    at random, mostly among the building and ending choices."""
    rng = random.Random(seed)
    seats = sorted(int(s) for s in tokens)
    view = client.get(f"/api/games/{game_id}?seat={seats[0]}", headers=auth(tokens[str(seats[0])])).json()
    while not view["over"]:
        seat = view["current_player"]
        assert seat in seats, "the server plays the agents' seats before it answers"
        if view["seat"] != seat:
            view = client.get(f"/api/games/{game_id}?seat={seat}", headers=auth(tokens[str(seat)])).json()
        assert view["legal"], "the seat to act is offered its choices"
        eager = [a for a in view["legal"] if a["name"].startswith(EAGER)]
        choice = rng.choice(eager if eager and rng.random() < 0.9 else view["legal"])
        assert choice["name"] == load_game(view["game"]).action_names[choice["id"]] and choice["text"]
        response = client.post(f"/api/games/{game_id}/actions", json={"seat": seat, "action": choice["id"]},
                               headers=auth(tokens[str(seat)]))
        assert response.status_code == 200, response.text
        view = response.json()
    return view


@pytest.mark.parametrize(("game", "agents"), [("sobek", ("human", "heuristic")),
                                              ("sobek", ("random", "human", "human")),
                                              ("kleopatra", ("human", "heuristic", "greedy")),
                                              ("kleopatra", ("heuristic", "human"))])
def test_a_program_plays_whole_games_over_http_and_gets_the_replay(client, game, agents) -> None:
    made = create(client, game, agents)
    assert set(made["tokens"]) == {str(s) for s, a in enumerate(agents) if a == "human"}
    final = play_out(client, made["id"], made["tokens"])
    assert final["over"] and final["winners"] and final["legal"] == []
    assert set(final) >= {"game", "num_players", "seat", "current_player", "over", "scores", "winners", "legal"}
    response = client.get(f"/api/games/{made['id']}/replay")
    assert response.status_code == 200
    replay = Replay.loads(response.text)  # checked by playing it again
    state = replay.final_state()
    assert list(state.scores) == final["scores"] and list(state.winners) == final["winners"]
    assert replay.agents == list(agents) and replay.seed == 3


def test_creation_answers_the_contract_and_agents_move_first(client) -> None:
    seed = next(s for s in range(50) if load_game("sobek").new(2, s).current_player == 0)
    made = create(client, "sobek", ("heuristic", "human"), seed=seed)
    view = client.get(f"/api/games/{made['id']}?seat=1", headers=auth(made["tokens"]["1"])).json()
    assert view["current_player"] == 1 or view["over"]  # seat 0 (the agent) moved until seat 1 must act
    assert view["step"] >= 1 and view["seat"] == 1 and view["game"] == "sobek" and view["num_players"] == 2
    assert view["moves"] and all(m["seat"] == 0 and m["text"] for m in view["moves"])
    assert all({"id", "name", "text"} == set(a) for a in view["legal"])


def served(client, game_id: str, seat: int, token: str) -> list[bytes]:
    """Everything ``seat`` is served: its JSON, its page and its table's HTML."""
    return [client.get(f"/api/games/{game_id}?seat={seat}", headers=auth(token)).content,
            client.get(f"/play/{game_id}?seat={seat}&token={token}").content,
            client.get(f"/play/{game_id}/table?seat={seat}&token={token}").content]


@pytest.mark.parametrize(("game", "agents", "mode"), [("sobek", ("human", "human", "random"), "original"),
                                                      ("sobek", ("human", "random", "human", "random"), "memory"),
                                                      ("kleopatra", ("human", "random", "human"), "original"),
                                                      ("kleopatra", ("human", "human", "random", "random"), "memory")])
def test_what_a_seat_is_served_is_unchanged_when_what_it_cannot_see_is_dealt_again(client, game, agents, mode):
    made = create(client, game, agents, seed=5, mode=mode)
    session = session_of(client, made["id"])
    rng = random.Random(1)
    checked = 0
    while not session.state.is_over and checked < 30:
        for seat_text, token in made["tokens"].items():
            seat = int(seat_text)
            before = served(client, made["id"], seat, token)
            real = session.state
            for k in range(2):
                session.state = real.resample(seat, random.Random(k))
                assert served(client, made["id"], seat, token) == before
            session.state = real
            checked += 1
        for _ in range(rng.randrange(1, 7)):  # on to another position, played by the people there
            if session.state.is_over:
                break
            seat = session.state.current_player
            action = rng.choice(session.state.legal_actions())
            response = client.post(f"/api/games/{made['id']}/actions", json={"seat": seat, "action": action},
                                   headers=auth(made["tokens"][str(seat)]))
            assert response.status_code == 200, response.text
    assert checked >= 12


def test_the_check_would_see_a_leak(client) -> None:
    """The leak test is able to fail: the full state's JSON differs after a re-deal, the seat's view does not."""
    made = create(client, "sobek", ("human", "random"), seed=5)
    real = session_of(client, made["id"]).state
    other = real.resample(0, random.Random(0))
    assert other.to_json() != real.to_json()
    game = load_game("sobek")
    assert game.seat_document(other, 0) == game.seat_document(real, 0)
    assert game.seat_document(other, 1) != game.seat_document(real, 1)  # what seat 0 cannot see moved


def test_kleopatra_hides_the_others_scores_until_the_end(client) -> None:
    made = create(client, "kleopatra", ("human", "random", "random"), seed=2)
    view = client.get(f"/api/games/{made['id']}?seat=0", headers=auth(made["tokens"]["0"])).json()
    assert view["scores"][0] is not None and view["scores"][1:] == [None, None]
    memory = create(client, "kleopatra", ("human", "random", "random"), seed=2, mode="memory")
    view = client.get(f"/api/games/{memory['id']}?seat=0", headers=auth(memory["tokens"]["0"])).json()
    assert None not in view["scores"]


def unchanged(client, made, seat=0):
    return client.get(f"/api/games/{made['id']}?seat={seat}", headers=auth(made["tokens"][str(seat)])).json()


def test_bad_requests_get_a_clear_4xx_and_change_nothing(client) -> None:
    made = create(client, "sobek", ("human", "human"), seed=4)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    before = unchanged(client, made)
    mover = before["current_player"]
    waiting = 1 - mover
    token = {0: t0, 1: t1}
    legal = [a["id"] for a in unchanged(client, made, mover)["legal"]]
    illegal = next(a for a in range(76) if a not in legal)
    cases = [
        (client.get("/api/games/nope?seat=0", headers=auth(t0)), 404, "no game"),
        (client.get(f"/api/games/{gid}?seat=0"), 403, "token"),
        (client.get(f"/api/games/{gid}?seat=0", headers=auth(t1)), 403, "token"),
        (client.get(f"/api/games/{gid}?seat=7", headers=auth(t0)), 400, "seat"),
        (client.get(f"/api/games/{gid}?seat=x", headers=auth(t0)), 400, "seat"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": mover, "action": illegal}, headers=auth(token[mover])),
         400, "not legal"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": mover, "action": 10**30}, headers=auth(token[mover])),
         400, "not legal"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": mover, "action": "take:0"},
                     headers=auth(token[mover])), 400, "integer"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": waiting, "action": legal[0]},
                     headers=auth(token[waiting])), 409, "not seat"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": mover, "action": legal[0]},
                     headers=auth(token[waiting])), 403, "token"),
        (client.post(f"/api/games/{gid}/actions", content=b"{not json", headers=auth(token[mover])), 400, "not JSON"),
        (client.post(f"/api/games/{gid}/actions", json=[1, 2], headers=auth(token[mover])), 400, "object"),
        (client.post(f"/api/games/{gid}/actions", json={"seat": mover, "action": legal[0], "x": 1},
                     headers=auth(token[mover])), 400, "unknown field"),
        (client.post(f"/api/games/{gid}/actions", content=b" " * (MAX_JSON_BYTES + 1), headers=auth(token[mover])),
         413, "larger"),
        (client.post("/api/games/nope/actions", json={"seat": 0, "action": 0}, headers=auth(t0)), 404, "no game"),
        (client.get(f"/api/games/{gid}/replay"), 409, "not over"),
        (client.post("/api/games", json={"game": "chess", "num_players": 2, "agents": ["human", "random"]}), 400,
         "game must be"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 9, "agents": ["human"] * 9}), 400, "players"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 2, "agents": ["human"]}), 400, "one spec"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 2, "agents": ["random", "random"]}), 400,
         "human"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 2, "agents": ["human", "ppo:/etc/passwd"]}),
         400, "not offered"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 2,
                                         "agents": ["human", "ismcts:simulations=100000000"]}), 400, "not offered"),
        (client.post("/api/games", json={"game": "sobek", "num_players": 2, "agents": ["human", "heuristic"],
                                         "seed": -1}), 400, "seed"),
        (client.post("/api/replays", content=b"not a replay\n"), 400, "cannot open"),
        (client.post("/api/replays", json={"path": "../../etc/passwd"}), 403, "by path"),
        (client.get("/api/replays/nope?step=0"), 404, "no replay"),
        (client.get("/api/nothing"), 404, "nothing at"),
    ]
    for response, status, words in cases:
        assert response.status_code == status, (words, response.text)
        message = response.json()["error"]
        assert words in message and "\n" not in message and "Traceback" not in message
    assert unchanged(client, made) == before
    assert len(client.app.state.store.sessions) == 1  # nothing refused was made


def test_a_replay_opens_from_a_file_from_a_finished_game_or_from_the_allowed_folder(tmp_path) -> None:
    state = load_game("kleopatra").new(3, 9)
    rng = random.Random(0)
    replay = Replay("kleopatra", 3, 9, {}, "original", ["random"] * 3)
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        replay.actions.append((state.current_player, action))
        state.apply(action)
    (tmp_path / "game.jsonl").write_text(replay.dumps(state))
    (tmp_path / "cut.jsonl").write_text(replay.dumps(state).splitlines()[0] + "\n")
    with TestClient(create_app(Settings(replays=tmp_path))) as client:
        made = client.post("/api/replays", json={"path": "game.jsonl"})
        assert made.status_code == 201 and made.json()["steps"] == len(replay.actions)
        rid = made.json()["id"]
        last = client.get(f"/api/replays/{rid}?step={len(replay.actions)}&seat=full").json()
        assert last["over"] and last["scores"] == list(state.scores) and len(last["tables"]) == 3
        first = client.get(f"/api/replays/{rid}?step=1&seat=2").json()
        assert first["move"]["seat"] == replay.actions[0][0] and len(first["tables"]) == 1
        assert client.get(f"/replay/{rid}?step=7&seat=1").status_code == 200
        assert client.get(f"/api/replays/{rid}?step={len(replay.actions) + 1}").status_code == 400
        assert client.get(f"/api/replays/{rid}?step=1&seat=5").status_code == 400
        cut = client.post("/api/replays", json={"path": "cut.jsonl"})
        assert cut.status_code == 400 and "cannot open the replay" in cut.json()["error"]
        assert client.post("/api/replays", json={"path": "../game.jsonl"}).status_code in (403, 404)
        assert client.post("/api/replays", json={"path": "missing.jsonl"}).status_code == 404
        uploaded = client.post("/api/replays", content=replay.dumps(state).encode())
        assert uploaded.status_code == 201
        as_json = client.post("/api/replays", content=replay.dumps(state).encode(),
                              headers={"content-type": "application/json"})  # its lines, though labelled JSON
        assert as_json.status_code == 201
        game = create(client, "sobek", ("human", "random"), seed=8)
        play_out(client, game["id"], game["tokens"])
        from_game = client.post("/api/replays", json={"game": game["id"]})
        assert from_game.status_code == 201


def test_a_full_server_says_so_and_games_expire() -> None:
    now = [0.0]
    app = create_app(Settings(max_games=2, finished_ttl=10, idle_ttl=100))
    store: Store = app.state.store
    store.clock = lambda: now[0]
    with TestClient(app) as client:
        first = create(client, "sobek", ("human", "random"))
        create(client, "sobek", ("human", "random"))
        full = client.post("/api/games", json={"game": "sobek", "num_players": 2, "agents": ["human", "random"]})
        assert full.status_code == 503 and "--max-games" in full.json()["error"]
        now[0] = 50.0
        assert unchanged(client, first)["step"] >= 0  # used at 50: the other, idle since 0, expires at 100
        now[0] = 120.0
        assert len(client.post("/api/games", json={"game": "sobek", "num_players": 2,
                                                   "agents": ["human", "random"]}).json()["id"]) > 10
        play_out(client, first["id"], first["tokens"])
        now[0] = 131.0  # finished at 120, dropped 10 seconds later
        gone = client.get(f"/api/games/{first['id']}?seat=0", headers=auth(first["tokens"]["0"]))
        assert gone.status_code == 404 and "expired" in gone.json()["error"]


class Waiting:
    """An agent that thinks until it is let go: a long search."""

    name = "waiting"

    def __init__(self) -> None:
        self.go = threading.Event()
        self.started = threading.Event()

    def act(self, observation: dict) -> int:
        self.started.set()
        assert self.go.wait(30)
        return int(observation["action_mask"].nonzero()[0][0])


def test_a_long_search_in_one_game_holds_up_no_other(client, monkeypatch) -> None:
    slow = Waiting()

    def agents(specs, game, players, mode, seed):
        return [slow if spec == "random" else None for spec in specs]

    monkeypatch.setattr(web_app, "make_agents", agents)
    created: dict = {}
    seed = next(s for s in range(50) if load_game("sobek").new(2, s).current_player == 0)
    thread = threading.Thread(target=lambda: created.update(
        create(client, "sobek", ("random", "human"), seed=seed)))  # the agent moves first, and waits
    thread.start()
    assert slow.started.wait(10)
    other = create(client, "sobek", ("human", "human"), seed=2)  # another game is served meanwhile
    start = time.monotonic()
    play_out(client, other["id"], other["tokens"])
    assert time.monotonic() - start < 25
    thinking = next(s for s in client.app.state.store.sessions.values() if s.id != other["id"])
    token = thinking.tokens[1]
    view = client.get(f"/api/games/{thinking.id}?seat=1", headers=auth(token)).json()
    assert view["thinking"] and view["current_player"] == 0 and view["legal"] == []  # read while it thinks
    slow.go.set()
    thread.join(30)
    assert created["id"] == thinking.id


def test_page_routes_check_tokens_and_draw_the_table(client) -> None:
    made = create(client, "kleopatra", ("human", "human", "random"), seed=6)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    page = client.get(f"/play/{gid}?seats=0:{t0},1:{t1}")
    assert page.status_code == 200 and "The palace" in page.text and 'id="handover"' in page.text
    assert client.get(f"/play/{gid}?seats=0:{t0},1:{t0}").status_code == 403
    assert client.get(f"/play/{gid}?seat=0&token=wrong").status_code == 403
    assert "Sorry" in client.get("/play/nope?seat=0&token=x").text
    start = client.get("/")
    assert start.status_code == 200 and "Sobek" in start.text and "/static/start.js" in start.text
    assert client.get("/static/play.js").status_code == 200
    agents = client.get("/api/agents?game=sobek&num_players=2").json()["agents"]
    specs = [a["spec"] for a in agents]
    assert specs[:5] == ["human", "random", "greedy", "heuristic", "ismcts"]
    assert any(s.startswith("ppo:") and s.endswith("ppo-2p.zip") for s in specs)
    three = [a["spec"] for a in client.get("/api/agents?game=kleopatra&num_players=3").json()["agents"]]
    assert any(s.endswith("kleopatra-ppo-3p.zip") for s in three) and not any(s.endswith("ppo-2p.zip") for s in three)


def test_the_command_line_defaults_to_this_machine_and_refuses_bad_options(capsys) -> None:
    args = build_parser().parse_args([])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    from agents.apps.web import main

    for argv, words in ((["--port", "0"], "--port"), (["--max-games", "0"], "--max-games"),
                        (["--replays", "/no/such/folder"], "not a folder")):
        with pytest.raises(SystemExit):
            main(argv)
        assert words in capsys.readouterr().err


def test_documents_are_json_all_through_a_game() -> None:
    """The document of every seat at every step of a game serialises (the API sends it as JSON)."""
    for name, players in (("sobek", 3), ("kleopatra", 4)):
        game = load_game(name)
        state = game.new(players, 12)
        rng = random.Random(2)
        step = 0
        while not state.is_over:
            if step % 5 == 0:
                for seat in range(players):
                    json.dumps(game.seat_document(state, seat))
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        json.dumps(game.seat_document(state, 0))


def test_the_server_serves_over_a_real_socket_on_this_machine(monkeypatch) -> None:
    """main() runs uvicorn on 127.0.0.1 by default; here on a free port, stopped once it answered."""
    import socket

    import httpx
    import uvicorn

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    servers = []

    def run(app, host, port, log_level):  # uvicorn.run as main() calls it, kept to be stopped
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level))
        servers.append(server)
        server.run()

    monkeypatch.setattr(uvicorn, "run", run)
    from agents.apps.web import main

    thread = threading.Thread(target=main, args=(["--port", str(port)],), daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not (servers and servers[0].started) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert servers[0].config.host == "127.0.0.1"
        answer = httpx.get(f"http://127.0.0.1:{port}/api/agents?game=kleopatra&num_players=3", timeout=120)
        assert answer.status_code == 200 and answer.json()["agents"][0]["spec"] == "human"
    finally:
        servers[0].should_exit = True
        thread.join(10)


class Failing:
    name = "failing"

    def act(self, observation: dict) -> int:
        raise RuntimeError("out of luck")


def test_an_agent_that_fails_stops_its_game_with_a_reason_not_a_server_error(client, monkeypatch) -> None:
    monkeypatch.setattr(web_app, "make_agents", lambda specs, *args: [Failing() if s == "random" else None
                                                                         for s in specs])
    seed = next(s for s in range(50) if load_game("sobek").new(2, s).current_player == 0)
    made = create(client, "sobek", ("random", "human"), seed=seed)
    view = client.get(f"/api/games/{made['id']}?seat=1", headers=auth(made["tokens"]["1"])).json()
    assert view["error"] == "player_0 (random) failed: RuntimeError: out of luck"
    assert view["current_player"] == 0 and view["step"] == 0 and not view["thinking"]
    page = client.get(f"/play/{made['id']}/table?seat=1&token={made['tokens']['1']}")
    assert page.status_code == 200 and "out of luck" in page.text


def test_a_server_on_this_machine_answers_only_its_names_and_guards_its_pages() -> None:
    app = create_app(Settings(hosts=("127.0.0.1", "localhost")))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        page = client.get("/")
        assert page.status_code == 200
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["referrer-policy"] == "no-referrer"
        assert client.get("/static/style.css").headers["x-content-type-options"] == "nosniff"
    with TestClient(app, base_url="http://localhost:8000") as client:
        assert client.get("/api/agents").status_code == 200
    with TestClient(app, base_url="http://rebound.example") as client:
        refused = client.get("/api/agents")
        assert refused.status_code == 400
        assert "answers only requests for 127.0.0.1, localhost" in refused.json()["error"]


def test_a_shipped_model_plays_a_seat(client) -> None:
    specs = [a["spec"] for a in client.get("/api/agents?game=sobek&num_players=2").json()["agents"]]
    model = next(s for s in specs if s.endswith("ppo-2p.zip"))
    made = create(client, "sobek", ("human", model), seed=9)
    final = play_out(client, made["id"], made["tokens"])
    assert final["over"] and final["agents"] == ["human", model]


def test_a_bot_may_wait_for_its_turn_while_another_person_plays(client) -> None:
    seed = next(s for s in range(50) if load_game("sobek").new(2, s).current_player == 0)
    made = create(client, "sobek", ("human", "human"), seed=seed)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    start = time.monotonic()
    waited = client.get(f"/api/games/{gid}?seat=1&wait=1", headers=auth(t1)).json()
    assert waited["current_player"] == 0 and time.monotonic() - start >= 0.9  # not its turn: waited it out
    action = unchanged(client, made)["legal"][0]["id"]
    answer: dict = {}
    thread = threading.Thread(target=lambda: answer.update(
        client.get(f"/api/games/{gid}?seat=1&wait=30", headers=auth(t1)).json()))
    thread.start()
    time.sleep(0.3)
    client.post(f"/api/games/{gid}/actions", json={"seat": 0, "action": action}, headers=auth(t0))
    thread.join(30)
    assert answer["current_player"] == 1 and answer["legal"]  # answered as soon as seat 1 must act
    assert client.get(f"/api/games/{gid}?seat=1&wait=99", headers=auth(t1)).status_code == 400


def test_the_models_folder_offers_rllib_policies_and_networks_with_their_spec(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from agents.apps.web.agents import models_for
    from agents.players.modelfile import write_model

    game = load_game("sobek")
    for name, fmt in (("policy.zip", "sobek-rllib/1"), ("net.zip", "sobek-net/1")):
        meta = {"format": fmt, "game": "sobek", "num_players": 2, "observation_mode": "original"}
        write_model(tmp_path / name, meta, {"w": torch.zeros(1)})
    folder = tmp_path.resolve()
    assert models_for(game, 2, "original", tmp_path) == [
        (f"net:{folder / 'net.zip'}", "net.zip"), (f"rllib:{folder / 'policy.zip'}", "policy.zip")]

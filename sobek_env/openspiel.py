"""Every registered game as an OpenSpiel game: ``import sobek_env.openspiel`` registers ``python_sobek`` and
``python_kleopatra`` with ``pyspiel`` (``pip install sobek-env[openspiel]``).

==========================  ==================================================================================
Load                        ``pyspiel.load_game("python_kleopatra", {"players": 4, "reward": "margin"})``
Parameters                  ``players``; ``observation_mode`` (``original`` or ``memory``: what
                            ``observation_tensor`` shows); ``reward`` (``win``: 1 to every winner, -1 to the
                            others; ``margin``: own score minus the best other, over the game's
                            ``score_scale``; ``score``: the scores over ``score_scale``, as rewards step by
                            step); ``seed`` (default 0); each rules option of the game, as JSON text
                            (``{"hand_limit": "4"}``: OpenSpiel's parameters are scalars, the options are not;
                            a game string with a number or a comma in an option does not load again)
Chance                      sampled inside the engine (``SAMPLED_STOCHASTIC``): no chance nodes. The game
                            holds a generator seeded by ``seed``; each ``new_initial_state`` deals the next
                            game of its reproducible sequence
Information state           the ``memory`` observation (perfect recall) and the game's text of that seat
Observation                 the ``observation_mode`` observation and its text
Determinization             ``resample_from_infostate`` redraws what the player cannot see with the engine's
                            ``resample``, from a sequence of seeds the state holds (begun by its deal's)
Serialization               ``state.serialize()`` / ``game.deserialize_state`` carry the engine's JSON
                            document; :func:`serialize_game_and_state` and :func:`deserialize_game_and_state`
                            here do what ``pyspiel``'s functions of those names cannot for a Python game with
                            sampled chance (they ask the game for a C++ generator state it cannot give)
==========================  ==================================================================================

The state wraps the engine's state (whichever engine the game deals by default) and calls it step by step:
nothing is rebuilt from a document while playing. :func:`bot` offers the project's agents as ``pyspiel.Bot``
(it imports ``agents`` when called, not before); :class:`DeterminizedBot` runs a perfect-information bot
(OpenSpiel's ``MCTSBot``) on a determinization of its seat's information, so it never sees hidden cards.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyspiel

from .env import ask
from .game import Game, State
from .randomness import as_random
from .registry import GAMES, load_game

REWARDS = ("win", "margin", "score")
SEED_BITS = 63
_SERIAL_GAME, _SERIAL_STATE = "[Game]", "[State]"


def spiel_name(name: str) -> str:
    """The OpenSpiel name of a registered game: ``python_<name>``."""
    return f"python_{name}"


def _game_type(game: Game, reward: str = "win") -> pyspiel.GameType:
    """What ``game`` is for OpenSpiel; ``score`` rewards come step by step, the others at the end."""
    model = pyspiel.GameType.RewardModel.REWARDS if reward == "score" else pyspiel.GameType.RewardModel.TERMINAL
    return pyspiel.GameType(
        short_name=spiel_name(game.name),
        long_name=f"Python {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=model,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": game.default_players,
            "observation_mode": "original",
            "reward": "win",
            "seed": 0,
            **dict.fromkeys(game.rules_options, "null"),
        },
    )


def _rules(game: Game, params: Mapping[str, Any]) -> dict[str, Any]:
    """The rules options given as JSON text (``null`` or an empty text: the rules' default)."""
    rules = {}
    for option in game.rules_options:
        text = params.get(option, "null")
        try:
            value = json.loads(text) if text else None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{spiel_name(game.name)}: rules option {option!r} is not JSON ({exc.msg}): "
                             f"{text!r:.80}") from None
        if value is not None:
            rules[option] = value
    return rules


class SpielGame(pyspiel.Game):
    """A registered game for OpenSpiel (see the module docstring); ``engine_game`` is the project's game
    object, ``rules`` the rules options, ``reward`` and ``observation_mode`` the parameters."""

    def __init__(self, game: Game, params: Mapping[str, Any] | None = None) -> None:
        spec = _game_type(game).parameter_specification
        params = {**spec, **(params or {})}
        n, mode, reward, seed = params["players"], params["observation_mode"], params["reward"], params["seed"]
        game.check_table(n, mode)
        if reward not in REWARDS:
            raise ValueError(f"{spiel_name(game.name)}: reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if seed < 0:
            raise ValueError(f"{spiel_name(game.name)}: seed must be a non-negative integer, got {seed}")
        rules = _rules(game, params)
        top = game.max_score(n, **rules) / game.score_scale  # validates the rules options too
        low, high = {"win": (-1.0, 1.0), "margin": (-top, top), "score": (0.0, top)}[reward]
        info = pyspiel.GameInfo(num_distinct_actions=game.num_actions, max_chance_outcomes=0, num_players=n,
                                min_utility=low, max_utility=high, utility_sum=None,
                                max_game_length=game.max_game_length(n, **rules))
        super().__init__(_game_type(game, reward), info, params)
        self.engine_game = game
        self.rules = rules
        self.reward = reward
        self.observation_mode = mode
        self._deals = random.Random(seed)
        self._cloning = False  # set while a state clones itself: its blank twin must not draw a deal

    def new_initial_state(self) -> SpielState:
        """The next deal of the game's sequence (dealt when first used)."""
        if self._cloning:
            return SpielState(self)
        return SpielState(self, seed=self._deals.getrandbits(SEED_BITS))

    def state_from_engine(self, engine_state: State, seed: int = 0) -> SpielState:
        """A state wrapping ``engine_state`` (of this game and table); ``seed`` seeds its resampling."""
        return SpielState(self, engine_state=engine_state, seed=seed)

    def observer(self, memory: bool) -> SpielObserver:
        """The game's own observer of the information state (``memory``) or of the observation."""
        observers = self.__dict__.setdefault("_observers", {})
        if memory not in observers:
            observers[memory] = SpielObserver(self, "memory" if memory else self.observation_mode)
        return observers[memory]

    def information_state_tensor_shape(self) -> list[int]:
        return [self.engine_game.observation_size(self.num_players())]

    def information_state_tensor_size(self) -> int:
        return self.engine_game.observation_size(self.num_players())

    def observation_tensor_shape(self) -> list[int]:
        return self.information_state_tensor_shape()

    def observation_tensor_size(self) -> int:
        return self.information_state_tensor_size()

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: Mapping[str, Any] | None = None) -> SpielObserver:
        """The information state (``memory``) for perfect recall, else the ``observation_mode`` observation;
        only a player's own view exists (private info of a single player, public info included)."""
        if params:
            raise ValueError(f"{self.get_type().short_name} observers take no parameters, got {dict(params)}")
        if iig_obs_type is None:
            return SpielObserver(self, self.observation_mode)
        if (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError(f"{self.get_type().short_name} observes as one player sees the table (public and "
                             f"his private information), got {iig_obs_type}")
        return SpielObserver(self, "memory" if iig_obs_type.perfect_recall else self.observation_mode)


class _Engine:
    """Holds an engine state: OpenSpiel copies a state's attributes with ``deepcopy`` (here the engine's
    ``clone``) and serializes them with ``pickle`` (here the engine's JSON document)."""

    __slots__ = ("state", "game")

    def __init__(self, state: State, game: str) -> None:
        self.state = state
        self.game = game

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(self.state.clone(), self.game)

    def __reduce__(self) -> tuple[Callable[..., _Engine], tuple[str, str]]:
        return _engine_from_document, (self.game, self.state.to_json())


def _engine_from_document(game: str, text: str) -> _Engine:
    return _Engine(load_game(game).from_json(text), game)


class SpielState(pyspiel.State):
    """A state of a :class:`SpielGame`: the engine's state, a generator for ``resample_from_infostate`` and,
    with ``score`` rewards, the last step's rewards."""

    def __init__(self, game: SpielGame, seed: int | None = None, engine_state: State | None = None) -> None:
        super().__init__(game)
        if engine_state is not None:
            self._engine = _Engine(engine_state, game.engine_game.name)
        if seed is not None:
            self._seed = seed  # the deal's, and the first of resample_from_infostate's
            self._draw = seed
        self._rewards: list[float] | None = None

    def __getattr__(self, name: str) -> Any:
        # A new state deals its game when first used: OpenSpiel's C++ clone starts from a blank new state
        # and overwrites its attributes, so dealing up front would be wasted there
        if name == "_engine":
            game = self.get_game()
            engine_game = game.engine_game
            self._engine = _Engine(engine_game.new(self.num_players(), seed=self._seed, **game.rules), engine_game.name)
            return self._engine
        raise AttributeError(name)

    @property
    def engine_state(self) -> State:
        """The wrapped engine state (the game's full state: what no player sees whole)."""
        return self._engine.state

    def current_player(self) -> int:
        s = self._engine.state
        return pyspiel.PlayerId.TERMINAL if s.is_over else s.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self._engine.state.legal_actions()

    def _apply_action(self, action: int) -> None:
        s = self._engine.state
        if self._rewards is None and self.get_game().reward != "score":
            s.apply(action)
            return
        before = s.scores
        s.apply(action)
        scale = self.get_game().engine_game.score_scale
        self._rewards = [(a - b) / scale for a, b in zip(s.scores, before)]

    def _action_to_string(self, player: int, action: int) -> str:
        return self.get_game().engine_game.action_names[action]

    def is_terminal(self) -> bool:
        return self._engine.state.is_over

    def returns(self) -> list[float]:
        game, s = self.get_game(), self._engine.state
        if game.reward == "score":
            return [v / game.engine_game.score_scale for v in s.scores]
        if not s.is_over:
            return [0.0] * s.num_players
        if game.reward == "win":
            winners = s.winners
            return [1.0 if p in winners else -1.0 for p in range(s.num_players)]
        return [m / game.engine_game.score_scale for m in game.engine_game.margins(s)]

    def rewards(self) -> list[float]:
        if self._rewards is not None:
            return list(self._rewards)
        return self.returns()  # win and margin: 0 until the end; score, before any step: the start scores

    def __str__(self) -> str:
        """The full state: the engine's document."""
        return self._engine.state.to_json()

    def clone(self) -> SpielState:
        game = self.get_game()
        self._engine  # noqa: B018 (deal now, so the twin copies the deal, not the undealt seed)
        game._cloning = True
        try:
            return pyspiel.State.clone(self)
        finally:
            game._cloning = False

    def resample(self, player: int, rng: Any) -> SpielState:
        """A state ``player`` cannot tell from this one, the rest redrawn by the engine with ``rng`` (a
        ``random.Random``, numpy ``Generator`` or seed); it depends only on what ``player`` knows and ``rng``."""
        draws = as_random(rng)
        s = self._engine.state.resample(player, draws)
        return self.get_game().state_from_engine(s, draws.getrandbits(SEED_BITS))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> SpielState:
        """:meth:`resample` from the state's own sequence of seeds (an integer, cheap to copy; a clone
        continues it alike). ``probability_sampler`` is not used: the one OpenSpiel's ISMCTS passes restarts
        from the same seed at every call, so all its draws would agree."""
        draws = random.Random(self._draw)
        self._draw = draws.getrandbits(SEED_BITS)
        return self.resample(player_id, draws)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The ``memory`` observation of ``player`` (default: the player to move)."""
        return self._tensor(True, player)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The ``observation_mode`` observation of ``player`` (default: the player to move)."""
        return self._tensor(False, player)

    def _tensor(self, memory: bool, player: int | None) -> list[float]:
        # OpenSpiel's own path sizes the buffer by dealing a new game at every call; this one reuses the
        # game's observer
        if player is None:
            player = self.current_player()
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.num_players():
            raise ValueError(f"player must be a seat from 0 to {self.num_players() - 1}, got {player!r}")
        observer = self.get_game().observer(memory)
        observer.set_from(self, player)
        return observer.tensor.tolist()


class SpielObserver:
    """One seat's view as OpenSpiel reads it: ``tensor`` (the observation vector) and ``dict`` (its named
    slices, the game's observation layout), filled by :meth:`set_from`; :meth:`string_from` is the game's
    text of the table as that seat sees it."""

    def __init__(self, game: SpielGame, mode: str) -> None:
        engine_game, n = game.engine_game, game.num_players()
        self.mode = mode
        self._engine_game = engine_game
        self._encoder = engine_game.observer(n, mode)
        self.tensor = np.zeros(engine_game.observation_size(n), dtype=np.float32)
        shapes = engine_game.observation_shapes(n)
        self.dict = {name: self.tensor[part].reshape(shapes[name])
                     for name, part in engine_game.observation_layout(n).items()}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor[:] = self._encoder.encode(state.engine_state, player)

    def string_from(self, state: SpielState, player: int) -> str:
        return self._engine_game.render_text(state.engine_state, player, self.mode)


class AgentBot(pyspiel.Bot):
    """A project agent as a ``pyspiel.Bot`` for seat ``player`` (None: whichever seat is to move): it is shown
    the seat's observation and legal actions (a search agent, which asks for the game's state, resamples it
    from the seat's view)."""

    def __init__(self, agent: Any, game: SpielGame, player: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self.player = player
        self._encoder = game.engine_game.observer(game.num_players(), game.observation_mode)
        self._num_actions = game.num_distinct_actions()

    def step(self, state: SpielState) -> int:
        s = state.engine_state
        if s.is_over:
            raise ValueError("the game is over: no bot acts in a terminal state")
        seat = s.current_player
        if self.player is not None and seat != self.player:
            raise ValueError(f"bot of player {self.player} asked to act for player {seat}")
        mask = np.zeros(self._num_actions, dtype=np.int8)
        mask[s.legal_actions()] = 1
        observation = {"observation": self._encoder.encode(s, seat).copy(), "action_mask": mask}
        return int(ask(self.agent, observation, s))

    def restart_at(self, state: SpielState) -> None:
        """Nothing to forget: the agents decide from the position alone."""

    def inform_action(self, state: SpielState, player_id: int, action: int) -> None:
        """Nothing to remember (see :meth:`restart_at`)."""

    def provides_policy(self) -> bool:
        return False


def bot(spec: str, game: SpielGame, player: int | None = None, seed: int | None = None) -> AgentBot:
    """The project agent ``spec`` (``random``, ``greedy``, ``heuristic``, ``ismcts:simulations=200`` ...:
    ``agents.make``) as a ``pyspiel.Bot`` for seat ``player`` of ``game`` (None: for the seat to move; the
    table is the game's: players, observation mode, rules options); ``seed`` seeds agents that use chance.
    Imports ``agents`` (the project's agents)."""
    if not isinstance(game, SpielGame):
        raise TypeError(f"bot needs a game of sobek_env.openspiel (pyspiel.load_game('python_sobek') ...), "
                        f"got {type(game).__name__}")
    if player is not None and (isinstance(player, bool) or not isinstance(player, int)
                               or not 0 <= player < game.num_players()):
        raise ValueError(f"player must be a seat from 0 to {game.num_players() - 1} or None, got {player!r}")
    from agents import make

    agent = make(spec, game=game.engine_game, num_players=game.num_players(),
                 observation_mode=game.observation_mode, rules=game.rules, seed=seed)
    return AgentBot(agent, game, player)


class DeterminizedBot(pyspiel.Bot):
    """A bot for perfect-information games (OpenSpiel's ``MCTSBot``) playing on a determinization: before
    each decision the state is resampled from the seat's information with the bot's own generator, and
    the inner bot searches that state. It never sees what its seat cannot see."""

    def __init__(self, inner: pyspiel.Bot, player: int, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.inner = inner
        self.player = player
        self.rng = random.Random(seed)

    def step(self, state: SpielState) -> int:
        return int(self.inner.step(state.resample(self.player, self.rng)))

    def restart_at(self, state: SpielState) -> None:
        """The inner bot restarts at every determinization; nothing to do here."""

    def inform_action(self, state: SpielState, player_id: int, action: int) -> None:
        """Nothing to remember: each decision starts from a fresh determinization."""

    def provides_policy(self) -> bool:
        return False


def ismcts_bot(game: SpielGame, simulations: int, seed: int = 0, uct_c: float = 2.0,
               rollouts: int = 1) -> pyspiel.Bot:
    """OpenSpiel's own ``ISMCTSBot`` on ``game``: ``simulations`` per decision, ``rollouts`` random rollouts
    per leaf, seeded by ``seed``; it also answers ``restart_at`` (a new search each decision), which
    ``evaluate_bots`` calls and OpenSpiel's class leaves out."""
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
        raise ValueError(f"simulations must be a whole number from 1, got {simulations!r}")
    from open_spiel.python.algorithms import ismcts, mcts

    class RestartableISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: SpielState) -> None:
            self.reset()

        def inform_action(self, state: SpielState, player_id: int, action: int) -> None:
            """Each decision is a new search: nothing to remember."""

    evaluator = mcts.RandomRolloutEvaluator(rollouts, np.random.RandomState(seed))
    return RestartableISMCTSBot(game, evaluator, uct_c, simulations, random_state=np.random.RandomState(seed + 1))


def serialize_game_and_state(game: SpielGame, state: SpielState) -> str:
    """The game (its parameters, as JSON: OpenSpiel's game string cannot carry every rules option) and the
    state (its engine document and seeds) as one text."""
    params = {"name": game.get_type().short_name, "parameters": game.get_parameters()}
    return f"{_SERIAL_GAME}\n{json.dumps(params)}\n{_SERIAL_STATE}\n{state.serialize()}"


def deserialize_game_and_state(text: str) -> tuple[SpielGame, SpielState]:
    """The game and state of :func:`serialize_game_and_state`'s text; ValueError naming what is wrong."""
    head, _, rest = text.partition("\n")
    game_text, sep, state_text = rest.partition(f"\n{_SERIAL_STATE}\n")
    try:
        params = json.loads(game_text) if head == _SERIAL_GAME and sep else None
    except json.JSONDecodeError:
        params = None
    if not isinstance(params, dict) or not isinstance(params.get("parameters"), dict):
        raise ValueError(f"not a serialized game and state of sobek_env.openspiel (expected {_SERIAL_GAME}, "
                         f"the game's JSON, {_SERIAL_STATE}, the state): {text[:80]!r}")
    game = pyspiel.load_game(params["name"], params["parameters"])
    return game, game.deserialize_state(state_text)


def _game_class(game: Game) -> type[SpielGame]:
    """A class of one game that OpenSpiel builds from the parameters alone: what it registers must be a
    class (a closure registered there is freed after the interpreter's end, which aborts the process)."""

    def __init__(self: SpielGame, params: Mapping[str, Any] | None = None) -> None:
        SpielGame.__init__(self, game, params)

    return type(f"{game.name.capitalize()}SpielGame", (SpielGame,), {"__init__": __init__, "__module__": __name__})


GAME_CLASSES: dict[str, type[SpielGame]] = {}


def register() -> None:
    """Register every game of the project with OpenSpiel (done on import; registering twice is harmless)."""
    registered = set(pyspiel.registered_names())
    for name in GAMES:
        game = load_game(name)
        cls = GAME_CLASSES.setdefault(name, _game_class(game))
        if spiel_name(name) not in registered:
            pyspiel.register_game(_game_type(game), cls)


register()

__all__ = ["GAME_CLASSES", "REWARDS", "AgentBot", "DeterminizedBot", "SpielGame", "SpielObserver", "SpielState", "bot",
           "deserialize_game_and_state", "ismcts_bot", "register", "serialize_game_and_state", "spiel_name"]

"""Information-set Monte Carlo tree search, for every registered game (``ismcts``).

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012; OpenSpiel's
``ISMCTSBot``): one tree for the searching seat's information set, built over
many determinizations. Each iteration

1. draws a determinization, ``state.resample(me, rng)``: a full state the seat
   cannot tell from the real one, its hidden cards re-dealt;
2. descends the tree from the root, the nodes keyed by the action history from
   the root (an action id per edge, whoever played it). Legal actions differ from
   one determinization to the next, so a child's UCB1 score counts its
   *availability* (the descents in which it was legal) instead of its parent's
   visits; only the children legal in this determinization compete;
3. expands one untried legal action (chosen at random, or the guide's, below);
4. rolls out: random actions, or a baseline agent (``greedy``, ``heuristic``)
   acting for each seat from that seat's observation, for at most ``depth``
   steps;
5. backs up a reward per seat: each edge adds the reward of the seat that chose it.

The decision is the root's most visited child.

A ``guide`` (a baseline agent) makes the search a policy improver: at each node
it is asked once, from the observation of the seat to move, which action it
would take; that action is expanded first and its UCB1 score gets
``bias / (visits + 1)``, a bonus that fades with evidence. With a large bias the
search keeps the guide's choice unless the rollouts clearly prefer another. ``net`` (the path of a
``net:`` model, :mod:`agents.players.net`) makes a policy-value network the guide instead of the
baseline: its most probable legal action is the hint, one forward pass per node (expert iteration's
search guided by its apprentice, :mod:`agents.training.exit`). In paired mode ``top`` makes the network a
prior too: only its ``top`` most probable legal actions are played out, the search's effort spent where the
network sees a choice.

**Paired mode** (``mode=paired``) replaces the tree by a flat comparison on common random numbers: each
iteration draws one determinization and one rollout seed and plays every legal root action on it, so the
actions meet the same hidden cards, the same dice and, with a baseline rolling out, the same decisions
wherever their games agree. With a guide it is a policy improver in the manner of Tesauro and Galperin's
rollouts (1996): the guide's action is kept unless another action's mean reward beats it by ``z``
standard errors of their paired differences. ``late`` (a share of the game, ``Game.progress``) saves the
effort for the end: before it, the guide's choice is played without searching. Kleopatra's setting is
this: a build takes several turns, so short rollouts are myopic and long ones cost too much early on,
but in the last third of a game heuristic rollouts to the end are affordable and say who wins.

Rewards are ``tanh(margin / (squash * score_scale))`` per seat (``squash`` 0.05 by default), the
margin being the game's (``Game.margins``: own score minus the best other one,
an eaten Kleopatra player's counted as 0). Its sign is win or loss for a sole
winner, so the search plays to win as with a win/loss reward, but a near miss is
worth more than a rout and a shared lead sits at 0, which separates moves that
win/loss rewards score alike in most rollouts; the squashing keeps one blowout
from outweighing many close games. A rollout cut at ``depth`` is valued by the
same formula on ``Game.outlook``, the margins were the game to end there (for
Kleopatra: talents and merchants as they stand, and the crocodile fed with the
amulets as they would then be; for Sobek, which scores at a round's end, the
default depth reaches the end of a game).

**On a native engine** (``state.engine == "native"``) the same search runs its rollouts as whole native
playouts (:mod:`agents.search.playouts`: one call from a state to the end, every seat's policy in C++) and asks
the guide through the same compiled baselines, drawing exactly what the Python loop draws: the decisions are
the same on either path (``tests/test_ismcts_native.py``), at a fraction of the cost (docs/search.md, "On the
native engine"). Where a game's playouts were not built, the Python loop serves.

The agent reads the state it is handed only through ``state.current_player`` and
``state.resample(me, rng)``: its first act is to replace that state by a
determinization, so it decides the same on every state its seat cannot tell apart,
and with the same seed it decides the same (``time`` budgets excepted: they make
the number of iterations depend on the machine).
"""

from __future__ import annotations

import math
import random
import time as clock
from collections.abc import Iterator
from typing import Any

import numpy as np

from agents.games import baseline
from agents.games import tables as game_tables
from agents.players.base import SeededAgent
from sobek_env.game import State, Table

DEFAULT_SIMULATIONS = 300   # Sobek 2p: about 0.16 s of CPU per decision, 0.4 s at most (docs/search.md)
DEFAULT_C = 0.7             # UCB1 exploration, for rewards in [-1, 1]
DEFAULT_DEPTH = 200         # rollout steps; Sobek 2p random games take about 150, Kleopatra's over 1000
REWARD_POINTS_SHARE = 0.05  # margins are squashed at this share of the game's score_scale (5 points)
ROLLOUTS = ("random", "greedy", "heuristic")  # random, or one of every game's baselines
GUIDES = ("none", "greedy", "heuristic")      # no guide, or a baseline whose choice the tree favours
MODES = ("tree", "paired")  # the UCB1 tree, or every root action played on the same determinizations
DEFAULT_Z = 1.0             # paired mode: standard errors by which an action must beat the guide's
DEFAULT_BIAS = 1.0          # the guide's bonus in the UCB1 score, bias / (visits + 1)
NO_HINT = -2                # a node whose guide was not asked yet (-1: asked, nothing to favour)

class Node:
    """The statistics of one action history from the root: visits, the summed reward of the seat that
    played its last action, and how often that action was legal when its parent was visited."""

    __slots__ = ("children", "visits", "total", "available", "hint")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.hint = NO_HINT  # the guide's action here, asked the first time the node is descended from


class ISMCTSAgent(SeededAgent):
    """Single-observer ISMCTS (see the module docstring) for ``table``.

    ``simulations`` iterations per decision, or ``time`` seconds when ``time > 0`` (the count is then
    ignored); ``c`` is the UCB1 exploration constant; ``rollout`` is ``random`` or a baseline agent's name
    (``greedy``, ``heuristic``) that plays every seat during rollouts; a rollout stops after ``depth``
    steps (0: at the end of the game) and is valued by ``Game.outlook``. ``guide`` names a baseline whose
    choice is favoured by ``bias``; ``squash`` scales the rewards. ``mode`` is ``tree`` or ``paired`` (an
    iteration then plays every root action on one determinization, and another action than the guide's
    must win by ``z`` standard errors); before ``late`` (``Game.progress``), the guide's choice is played.
    ``steps`` caps the rollout actions of a decision (iterations stop once they reach it). ``net`` (a
    ``net:`` model's path) guides in place of the ``guide`` baseline; with ``top`` above 0 (paired mode) only
    its ``top`` most probable legal actions are searched.
    """

    name = "ismcts"
    wants_state = True
    reads_observation = False  # the determinizations carry what its seat knows: the state is what is checked

    def __init__(self, table: Table, simulations: int = DEFAULT_SIMULATIONS, time: float = 0.0,
                 c: float = DEFAULT_C, rollout: str = "random", depth: int = DEFAULT_DEPTH,
                 guide: str = "none", bias: float = DEFAULT_BIAS, squash: float = REWARD_POINTS_SHARE,
                 mode: str = "tree", z: float = DEFAULT_Z, late: float = 0.0, steps: int = 0, net: str = "",
                 top: int = 0, seed: int | None = None) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a whole number from 1, got {simulations!r}")
        if isinstance(time, bool) or not isinstance(time, (int, float)) or not 0 <= time < math.inf:
            raise ValueError(f"time must be seconds from 0 (0: count simulations instead), got {time!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c < math.inf:
            raise ValueError(f"c must be a number from 0, got {c!r}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be a whole number from 0 (0: roll out to the end), got {depth!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if guide not in GUIDES:
            raise ValueError(f"guide must be one of {', '.join(GUIDES)}, got {guide!r}")
        if isinstance(bias, bool) or not isinstance(bias, (int, float)) or not 0 <= bias < math.inf:
            raise ValueError(f"bias must be a number from 0, got {bias!r}")
        if isinstance(squash, bool) or not isinstance(squash, (int, float)) or not 0 < squash < math.inf:
            raise ValueError(f"squash must be a number above 0, got {squash!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if isinstance(z, bool) or not isinstance(z, (int, float)) or not 0 <= z < math.inf:
            raise ValueError(f"z must be a number from 0, got {z!r}")
        if isinstance(late, bool) or not isinstance(late, (int, float)) or not 0 <= late <= 1:
            raise ValueError(f"late must be a share of the game from 0 to 1, got {late!r}")
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be a whole number from 0 (0: no limit), got {steps!r}")
        if isinstance(top, bool) or not isinstance(top, int) or top < 0:
            raise ValueError(f"top must be a whole number from 0 (0: every legal action), got {top!r}")
        if top and not (net and mode == "paired"):
            raise ValueError(f"top={top} searches the network's most probable actions in paired mode: give "
                             "net=PATH and mode=paired, or top=0")
        if late > 0 and guide == "none" and not net:
            raise ValueError(f"late={late} plays the guide's choice before the late game: give a guide, or late=0")
        super().__init__(seed, table)
        self.simulations = simulations
        self.time = float(time)
        self.c = float(c)
        self.depth = depth
        self.rollout = rollout
        self._policy = None if rollout == "random" else RolloutPolicy(table, rollout)
        self.guide = guide
        self.bias = float(bias)
        self.net = net
        guiding = f"net:{net}" if net else None if guide == "none" else guide  # the network replaces the baseline
        self._guide = None if guiding is None else RolloutPolicy(table, guiding)
        self.squash = float(squash)
        self._scale = squash * table.game.score_scale
        self.mode = mode
        self.z = float(z)
        self.late = float(late)
        self.steps = steps
        self.top = top
        self.last_simulations = 0  # iterations of the latest decision, and its root visits per action
        self.last_visits: dict[int, int] = {}
        self.last_means: dict[int, float] = {}  # ... and the mean reward of each visited root action
        self.last_steps = 0  # the rollout actions the latest decision played
        self._natives: tuple[Any, Any] | None = None  # the native rollouts and guide, made at the first native state
        self._fast = False  # whether the decision in progress runs them

    def act(self, observation: dict, state: State | None = None) -> int:
        """The most visited root action after the search from ``state`` (the game's state: only what the
        current seat knows of it is used). ``observation`` is not read: the determinizations carry it."""
        if state is None:
            raise ValueError("ismcts searches the game's state: call act(observation, state=game_state)")
        me = state.current_player
        self._fast = state.engine == "native" and self._native_twins()
        root_state = state.resample(me, self.rng)  # from here on, only what this seat knows
        legal = root_state.legal_actions()
        if len(legal) == 1:
            self.last_simulations, self.last_visits, self.last_means, self.last_steps = 0, {}, {}, 0
            return legal[0]
        for policy in (self._policy, self._guide):
            if policy is not None:
                policy.seed(self.rng.getrandbits(63))
        root = Node()
        # top (paired mode): the network's legal actions, its choice (the hint) first, from one forward pass
        ranked = self._guide.ranked(root_state) if self.top else None
        if self.late or self.mode == "paired":
            root.hint = ranked[0] if ranked else -1 if self._guide is None else self._guide_act(root_state)
            if self.late and self.table.game.progress(root_state) < self.late:
                self.last_simulations, self.last_visits, self.last_means, self.last_steps = 0, {}, {}, 0
                return root.hint
        if self.mode == "paired":
            if ranked:
                legal = sorted(ranked[:self.top])
            return self._paired(root_state, legal, root.hint)
        done = 0
        for _ in self._budget():
            self._iterate(root, root_state.resample(me, self.rng))
            done += 1
        self.last_simulations = done
        self.last_visits = {a: child.visits for a, child in sorted(root.children.items())}
        self.last_means = {a: child.total / child.visits for a, child in sorted(root.children.items()) if child.visits}
        return max(legal, key=lambda a: _rank(root.children.get(a)))

    def _budget(self) -> Iterator[None]:
        """One item per iteration of a decision: ``simulations`` of them, or as many as ``time`` seconds
        allow (at least one); with ``steps``, no more once the rollouts have played that many actions (at
        least two iterations)."""
        deadline = clock.perf_counter() + self.time
        done = self.last_steps = 0
        while done < self.simulations if self.time == 0 else done == 0 or clock.perf_counter() < deadline:
            if self.steps and done >= 2 and self.last_steps >= self.steps:
                return
            yield
            done += 1

    def _paired(self, s: State, legal: list[int], hint: int) -> int:
        """Paired mode: each iteration draws a determinization and a rollout seed and plays every legal
        action on it, so the actions are compared on the same hidden cards and the same rollouts (common
        random numbers). The best mean wins, but the guide's action (``hint``, -1 for none) is kept unless
        the best beats it by ``z`` standard errors of their paired differences."""
        me, rng = s.current_player, self.rng
        rewards: dict[int, list[float]] = {a: [] for a in legal}
        done = 0
        for _ in self._budget():
            d = s.resample(me, rng)
            seed = rng.getrandbits(63)
            for a in legal:
                c = d.clone()
                c.apply(a)
                if self._fast:  # the native playout seeds its generator from the seed itself
                    rewards[a].append(self._rollout(c, seed)[me])
                    continue
                if self._policy is not None:
                    self._policy.seed(seed)
                rewards[a].append(self._rollout(c, random.Random(seed))[me])
            done += 1
        self.last_simulations = done
        self.last_visits = {a: done for a in legal}
        means = self.last_means = {a: math.fsum(r) / done for a, r in rewards.items()}
        best = max(legal, key=lambda a: (means[a], a == hint, -a))
        if hint not in rewards or best == hint:
            return best
        if done < 2:
            return hint
        gains = [x - y for x, y in zip(rewards[best], rewards[hint])]
        mean = math.fsum(gains) / done
        spread = math.sqrt(math.fsum((g - mean) ** 2 for g in gains) / (done - 1))
        return best if mean > self.z * spread / math.sqrt(done) else hint

    def _iterate(self, root: Node, s: State) -> None:
        """One iteration on the determinization ``s``: select, expand, roll out, back up."""
        rng, c, guide, bias = self.rng, self.c, self._guide is not None, self.bias
        node, path = root, []
        while not s.is_over:
            legal = s.legal_actions()
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                child = children.get(a)
                if child is not None:
                    child.available += 1
            hint = node.hint
            if guide and hint == NO_HINT:
                hint = node.hint = self._guide_act(s) if len(legal) > 1 else -1
            if untried:
                action = hint if hint in untried else untried[int(rng.random() * len(untried))]
                child = children[action] = Node()
                child.available = 1
                path.append((child, s.current_player))
                s.apply(action)
                break
            best, action = -math.inf, legal[0]
            for a in legal:
                child = children[a]
                score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                if a == hint:
                    score += bias / (child.visits + 1)
                if score > best:
                    best, action = score, a
            node = children[action]
            path.append((node, s.current_player))
            s.apply(action)
        rewards = self._rollout(s, rng)
        for node, player in path:
            node.visits += 1
            node.total += rewards[player]

    def _rollout(self, s: State, rng: random.Random | int) -> list[float]:
        """Play ``s`` on for at most ``depth`` steps (random actions drawn with ``rng``, or ``random.Random(rng)``
        for a seed on the native path); every seat's reward."""
        scale = self._scale
        if self._fast:  # a finished game is no playout (the binding refuses it): its margins as they stand
            runs = self._natives[0]
            margins, played = (runs.outlook(s), 0) if s.is_over else runs.run(s, rng, self.depth)
            self.last_steps += played
            return [math.tanh(m / scale) for m in margins]
        steps = self.depth or -1  # -1 never counts down to 0
        if self._policy is None:
            draw = rng.random
            while steps and not s.is_over:
                legal = s.legal_actions()
                s.apply(legal[int(draw() * len(legal))])
                steps -= 1
        else:
            act = self._policy.act
            while steps and not s.is_over:
                s.apply(act(s))
                steps -= 1
        self.last_steps += (self.depth or -1) - steps
        return [math.tanh(m / scale) for m in self.table.game.outlook(s)]

    def _guide_act(self, s: State) -> int:
        """The guide's action in ``s``: the compiled baseline's on the native path, else the Python agent's."""
        return self._natives[1].choose(s) if self._fast and self._natives[1] is not None else self._guide.act(s)

    def _native_twins(self) -> bool:
        """Whether the rollout policy has its native twin, the guide too where it is a baseline (made once, at the
        first native state)."""
        if self._natives is None:
            rollouts = self._twin(self.rollout, self._policy)
            # a network guides from Python (one forward pass a node), beside the native rollouts
            guide = None if self._guide is None or self.net else self._twin(self.guide, self._guide)
            self._natives = (rollouts, guide)
        return self._natives[0] is not None

    def _twin(self, name: str, policy: RolloutPolicy | None) -> Any | None:
        """The game's compiled playouts (:mod:`agents.search.playouts`) with ``name`` at every seat, its
        options those of ``policy``'s agent; None where the game has none built."""
        build = game_tables(self.table.game).playouts
        if build is None:
            return None
        tolerance = 0.0 if policy is None else float(getattr(policy.agent, "tolerance", 0.0))
        return build(self.table, [(name, tolerance)] * self.table.num_players)


def _rank(child: Node | None) -> tuple[int, float]:
    """Root actions are ranked by visits, then mean reward; unvisited ones last."""
    if child is None or child.visits == 0:
        return (0, -math.inf)
    return (child.visits, child.total / child.visits)


class RolloutPolicy:
    """A baseline agent (or a ``net:PATH`` network) playing every seat of a rollout, or guiding, each from that
    seat's own observation."""

    def __init__(self, table: Table, name: str) -> None:
        if name.startswith("net:"):  # a policy-value network (agents.players.net) in place of a baseline
            from agents.players.net import load_net

            self.agent = load_net(name[len("net:"):], table=table)
        else:
            self.agent = baseline(table.game, name)(table)
        self.observer = table.game.observer(table.num_players, table.observation_mode)
        self.mask = np.zeros(table.game.num_actions, dtype=np.int8)

    def seed(self, seed: int) -> None:
        if hasattr(self.agent, "seed"):
            self.agent.seed(seed)

    def act(self, s: Any) -> int:
        legal = s.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.agent.act(self._observe(s, legal))

    def ranked(self, s: Any) -> list[int]:
        """The legal actions in ``s``, the agent's most probable first (a network's logits; ties by id)."""
        legal = s.legal_actions()
        logits = self.agent.logits(self._observe(s, legal))
        return sorted(legal, key=lambda a: (-logits[a], a))

    def _observe(self, s: Any, legal: list[int]) -> dict:
        mask = self.mask
        mask[:] = 0
        mask[legal] = 1
        return {"observation": self.observer.encode(s, s.current_player), "action_mask": mask}

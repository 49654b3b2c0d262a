"""The exceptions every game shares. IllegalActionError and StateFormatError are ValueErrors, so
callers can catch either broadly; InvariantError is an AssertionError: it means a bug, not bad input."""


class IllegalActionError(ValueError):
    """An action id that is not legal in the current state (the state is unchanged)."""


class StateFormatError(ValueError):
    """A state document that is malformed; the message names the offending field."""


class InvariantError(AssertionError):
    """A state broke one of its game's invariants (a bug in the engine)."""


class UnknownAgentError(KeyError, ValueError):
    """An agent name the environment does not have. A KeyError, as PettingZoo's own environments raise for
    an unknown agent, and a ValueError like the other bad inputs; its message is printed as written."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

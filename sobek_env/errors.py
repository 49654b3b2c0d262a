"""The engine's two exceptions; both are ValueErrors so callers can catch either broadly."""


class IllegalActionError(ValueError):
    """An action id that is not legal in the current state (the state is unchanged)."""


class StateFormatError(ValueError):
    """A state document that is malformed; the message names the offending field."""

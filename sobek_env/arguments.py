"""The number types of every command line (argparse ``type=``): one message for each kind of bad number, from the
library's commands (the stress runner) to the agents' (evaluate.py, train.py and the analysis tools)."""

from __future__ import annotations

import argparse
import math


def positive_int(text: str) -> int:
    """argparse type: an integer above 0."""
    value = number(text, int)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer from 0."""
    value = number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    value = number(text, float)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a finite number from 0."""
    value = number(text, float)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def number(text: str, kind: type) -> int | float:
    """``text`` as an integer (``kind`` int) or a finite number (float); ArgumentTypeError saying which otherwise."""
    try:
        value = kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):  # an integer is always finite
        raise argparse.ArgumentTypeError(f"must be finite, got {text}")
    return value

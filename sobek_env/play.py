"""The terminal play command's old name: ``python -m sobek_env.play`` runs ``sobek-env play``.

The application lives above the library, in :mod:`agents.apps.play`; the library itself never imports
``agents``, so the import waits for :func:`main`.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``sobek-env play`` with these arguments (default: the command line's)."""
    from agents.apps.play import main as play

    play(None if argv is None else list(argv))


if __name__ == "__main__":
    main()

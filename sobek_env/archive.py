"""A kept tournament as one compressed file: its ``games.jsonl`` and its replays in a ``.tar.xz``.

    sobek-env pack records/bar-sobek-ismcts      # writes records/bar-sobek-ismcts.tar.xz

An ``evaluate --out`` directory holds ``games.jsonl`` (and, with ``--save-replays`` inside it, ``replays/``
of one file per game): hundreds of small files. :func:`pack` stores those in one xz-compressed tar, the
same bytes every time (sorted, no owners or dates), and the commands that read tournaments and replays
(``standing``, ``paired``, ``departures``, ``imitate``, ``replay --game N``) read the archive in place:
nothing is extracted to disk. ``tar xJf FILE -C DIR`` unpacks one to continue its run with ``--resume``.

An archive may come from anyone, so it is read as a stream within limits: only regular files with plain
relative names (no ``..``, no absolute path, no links or devices), each at most :data:`MAX_MEMBER_BYTES`,
at most :data:`MAX_MEMBERS` of them; anything else is an :class:`ArchiveError` naming the archive and the
member. Each member is then read by its own reader (the games file's, the replays'), with their limits.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import tarfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

SUFFIX = ".tar.xz"
GAMES_MEMBER = "games.jsonl"
REPLAYS_DIRECTORY = "replays"
# Far above a kept tournament (the largest games.jsonl is 0.7 MB, a replay 30 KB, 823 files in all) and far
# below what would hurt: a member is read as a stream, never whole, by readers with their own line limits.
MAX_MEMBER_BYTES = 1 << 30
MAX_MEMBERS = 100_000


class ArchiveError(ValueError):
    """An archive that cannot be read as a kept tournament; the message names it and what is wrong."""


def is_archive(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a packed tournament (by its suffix; the file may not exist)."""
    return os.fspath(path).endswith(SUFFIX)


def _check(member: tarfile.TarInfo, where: str) -> str:
    """The member's name if it may be read; ArchiveError naming it otherwise."""
    name = member.name
    parts = PurePosixPath(name).parts
    if not name or name.startswith("/") or "\\" in name or ".." in parts or "\x00" in name:
        raise ArchiveError(f"{where}: the member {name!r} is not a plain relative name")
    if member.isdir():
        return name
    if not member.isfile():
        raise ArchiveError(f"{where}: the member {name!r} is not a regular file (a link or a device)")
    if member.size > MAX_MEMBER_BYTES:
        raise ArchiveError(f"{where}: the member {name!r} holds {member.size:,} bytes, more than the "
                           f"{MAX_MEMBER_BYTES:,} of any kept tournament's file")
    return name


class _Member(io.RawIOBase):
    """A member's stream whose read errors (a cut-off or corrupt archive, found only as it is read) are
    ArchiveErrors naming the archive and the member."""

    def __init__(self, stream: BinaryIO, where: str) -> None:
        super().__init__()
        self._stream, self._where = stream, where

    def readable(self) -> bool:
        return True

    def _guarded(self, read: Callable[[int], bytes], size: int) -> bytes:
        try:
            return read(size)
        except (tarfile.TarError, lzma.LZMAError, EOFError, OSError) as exc:
            raise ArchiveError(f"{self._where}: cannot be read whole ({exc or type(exc).__name__})") from None

    def read(self, size: int = -1) -> bytes:
        return self._guarded(self._stream.read, size)

    def readline(self, size: int = -1) -> bytes:
        return self._guarded(self._stream.readline, size)

    def readinto(self, buffer: bytearray) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def tell(self) -> int:
        return self._stream.tell()


def members(path: str | os.PathLike, wanted: Callable[[str], bool]) -> Iterator[tuple[str, BinaryIO]]:
    """Each regular file of the archive whose name ``wanted`` accepts, in the archive's order, as its name
    and a stream valid until the next one. Every member is checked, wanted or not; ArchiveError for a
    malformed or hostile archive, OSError if the file cannot be read."""
    where = os.fspath(path)
    if not is_archive(path):
        raise ArchiveError(f"{where!r} is not a packed tournament (a {SUFFIX} file)")
    count = 0
    try:
        with tarfile.open(path, "r|xz") as archive:  # a stream: one pass, nothing seeks back
            for member in archive:
                count += 1
                if count > MAX_MEMBERS:
                    raise ArchiveError(f"{where}: more than {MAX_MEMBERS:,} members")
                name = _check(member, where)
                if member.isfile() and wanted(name):
                    yield name, _Member(archive.extractfile(member), f"{where}: {name}")
    except (tarfile.TarError, lzma.LZMAError, EOFError) as exc:
        raise ArchiveError(f"{where} is not a whole {SUFFIX} archive ({exc or type(exc).__name__})") from None
    if count == 0:
        raise ArchiveError(f"{where} is an empty archive")


@contextmanager
def member(path: str | os.PathLike, name: str) -> Iterator[BinaryIO]:
    """The member ``name`` of the archive as a stream; ArchiveError if it has none."""
    for _, stream in members(path, lambda found: found == name):
        yield stream
        return
    raise ArchiveError(f"{os.fspath(path)} holds no {name}")


def replay_names(path: str | os.PathLike) -> list[str]:
    """The names of the replays the archive holds (``replays/*.jsonl``), in its order."""
    return [name for name, _ in members(path, is_replay)]


def is_replay(name: str) -> bool:
    """Whether a member's name is one of the archive's replays."""
    parent = PurePosixPath(name).parent
    return parent.name == REPLAYS_DIRECTORY and parent.parent == PurePosixPath(".") and name.endswith(".jsonl")


def pack(directory: Path, out: Path) -> list[str]:
    """Store ``directory``'s ``games.jsonl`` and ``replays/*.jsonl`` in the archive ``out`` (written whole
    or not at all); the names stored. ValueError if the directory holds no games file."""
    games = directory / GAMES_MEMBER
    if not games.is_file():
        raise ValueError(f"{str(directory)!r} holds no {GAMES_MEMBER}: give a tournament's --out directory")
    files = [(GAMES_MEMBER, games)]
    replays = directory / REPLAYS_DIRECTORY
    if replays.is_dir():
        files += [(f"{REPLAYS_DIRECTORY}/{p.name}", p) for p in sorted(replays.glob("*.jsonl")) if p.is_file()]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz", format=tarfile.PAX_FORMAT,
                      preset=9 | lzma.PRESET_EXTREME) as archive:
        for name, source in files:
            data = source.read_bytes()
            info = tarfile.TarInfo(name)  # no date, owner or mode of this machine: the same bytes anywhere
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    temporary = out.with_name(f".{out.name}.partial")
    try:
        temporary.write_bytes(buffer.getvalue())
        os.replace(temporary, out)
    finally:
        temporary.unlink(missing_ok=True)
    return [name for name, _ in files]


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="sobek-env pack", description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="a tournament's --out directory (games.jsonl, replays/)")
    parser.add_argument("--out", type=Path, help=f"the archive to write (default: the directory's name + {SUFFIX})")
    args = parser.parse_args(argv)
    out = args.out or args.directory.with_name(args.directory.name + SUFFIX)
    if not is_archive(out):
        parser.error(f"argument --out: {str(out)!r} must end with {SUFFIX}")
    try:
        names = pack(args.directory, out)
    except ValueError as exc:
        parser.error(f"argument directory: {exc}")
    except OSError as exc:
        parser.exit(1, f"{parser.prog}: error: cannot write {str(out)!r} ({exc.strerror or exc})\n")
    replays = sum(is_replay(name) for name in names)
    print(f"wrote {out} ({out.stat().st_size / 1024:,.0f} KB): {GAMES_MEMBER} and {replays:,} replays")


if __name__ == "__main__":
    main()

"""Packed tournaments (sobek_env.archive): one .tar.xz of a tournament's games and replays, the same bytes at
every pack, read in place by standing, paired, departures, imitate's reader and replay --game as the directory
was; a malformed or hostile archive is one clear error and nothing is written; records/ is kept this way."""

from __future__ import annotations

import io
import json
import lzma
import tarfile
from pathlib import Path

import pytest

from agents.analysis import departures, paired, standing
from agents.analysis.departures import read_replays
from agents.analysis.paired import read_tournament
from agents.tournaments.evaluation import main as evaluate
from sobek_env import archive
from sobek_env import replay as replay_command
from sobek_env.replay import Replay, packed_replay

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("archive") / "run"
    evaluate(["--game", "sobek", "--players", "2", "--games", "4", "--agents", "heuristic", "random", "--seed", "7",
              "--out", str(out), "--workers", "1", "--save-replays", str(out / "replays")])
    return out


@pytest.fixture(scope="module")
def packed(tournament: Path) -> Path:
    out = tournament.with_name("run.tar.xz")
    archive.main([str(tournament)])
    return out


def test_a_pack_holds_the_games_then_the_replays_and_is_the_same_bytes_each_time(
        tournament: Path, packed: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.tar.xz"
    assert archive.pack(tournament, again) == ["games.jsonl", *(f"replays/game-000{i}.jsonl" for i in range(4))]
    assert again.read_bytes() == packed.read_bytes()
    with tarfile.open(packed, "r:xz") as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == ["games.jsonl", *(f"replays/game-000{i}.jsonl" for i in range(4))]
        assert all(m.mtime == 0 and m.uid == 0 and m.uname == "" for m in members)
        assert tar.extractfile("games.jsonl").read() == (tournament / "games.jsonl").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.tar.xz"]  # no partial file left


def test_standing_and_paired_read_the_archive_as_the_directory(
        tournament: Path, packed: Path, capsys: pytest.CaptureFixture) -> None:
    capsys.readouterr()
    outputs = []
    for path in (tournament, packed):
        standing.main([str(path), "--json"])
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] and outputs[0]["played"] == 4
    assert read_tournament(packed) == read_tournament(tournament)
    paired.main([str(packed), str(tournament), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert (result["games"], result["difference"], result["better"], result["worse"]) == (4, 0.0, 0, 0)


def test_departures_and_imitation_read_the_replays_in_the_archive(
        tournament: Path, packed: Path, capsys: pytest.CaptureFixture) -> None:
    found = read_replays([packed])
    assert [str(path) for path, _ in found] == [str(packed / f"replays/game-000{i}.jsonl") for i in range(4)]
    assert [r.actions for _, r in found] == [r.actions for _, r in read_replays([tournament / "replays"])]
    capsys.readouterr()
    outputs = []
    for path in (tournament / "replays", packed):
        departures.main([str(path), "--agent", "random", "--baseline", "heuristic", "--json"])
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] and outputs[0]["decisions"] > 0


def test_replay_picks_a_game_of_the_archive(tournament: Path, packed: Path, capsys: pytest.CaptureFixture) -> None:
    assert packed_replay(packed, 2) == Replay.load(tournament / "replays" / "game-0002.jsonl")
    capsys.readouterr()
    outputs = []
    for args in ([str(tournament / "replays" / "game-0002.jsonl")], [str(packed), "--game", "2"]):
        replay_command.main([*args, "--print", "--step", "5"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "step 5/" in outputs[0]


@pytest.mark.parametrize(("args", "message"), [
    (["--game", "9"], "{packed} holds no replay of game 9 (it holds games 0 to 3)"),
    ([], "'{packed}' is a packed tournament: choose one of its replays with --game N"),
])
def test_replay_refuses_a_game_it_cannot_pick_in_one_line(packed: Path, args: list[str], message: str,
                                                          capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        replay_command.main([str(packed), *args, "--print"])
    assert exit_info.value.code in (1, 2)
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "sobek-env replay: error: " + message.format(packed=packed)


def tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    """An .tar.xz holding these members (a TarInfo as it is, a name and bytes as a regular file)."""
    with tarfile.open(path, "w:xz") as out:
        for item in members:
            if isinstance(item, tarfile.TarInfo):
                out.addfile(item)
            else:
                info = tarfile.TarInfo(item[0])
                info.size = len(item[1])
                out.addfile(info, io.BytesIO(item[1]))
    return path


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(("make", "message"), [
    (lambda p, games: p.write_bytes(b"not an archive at all\n" * 10), "is not a whole .tar.xz archive"),
    (lambda p, games: p.write_bytes(lzma.compress(b"plain text, not a tar\n" * 40)), "is not a whole .tar.xz"),
    (lambda p, games: tar(p, [("../games.jsonl", games)]), "the member '../games.jsonl' is not a plain relative"),
    (lambda p, games: tar(p, [("/etc/games.jsonl", games)]), "the member '/etc/games.jsonl' is not a plain relative"),
    (lambda p, games: tar(p, [link("games.jsonl", "/etc/passwd")]), "the member 'games.jsonl' is not a regular file"),
    (lambda p, games: tar(p, [link("games.jsonl", "x", tarfile.LNKTYPE)]), "is not a regular file"),
    (lambda p, games: tar(p, [("other.txt", b"x")]), "holds no games.jsonl"),
    (lambda p, games: tar(p, [("games.jsonl", games[:100])]), "bad.tar.xz/games.jsonl' does not start with a"),
])
def test_a_malformed_or_hostile_archive_is_refused_in_one_line(
        tournament: Path, tmp_path: Path, make, message: str, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "bad.tar.xz"
    make(path, (tournament / "games.jsonl").read_bytes())
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as exit_info:
        standing.main([str(path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("sobek-env standing: error: argument tournament: ")
    assert message in err and "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before  # nothing extracted


def test_a_cut_off_archive_is_refused_naming_it(packed: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.tar.xz"
    cut.write_bytes(packed.read_bytes()[: packed.stat().st_size // 2])
    with pytest.raises(ValueError, match=f"{cut}.* (is not a whole .tar.xz archive|cannot be read whole)"):
        read_replays([cut])


def test_the_limits_hold(packed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(archive.ArchiveError, match=r"the member 'games.jsonl' holds [\d,]+ bytes, more than the 1,000"):
        read_tournament(packed)
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 1 << 30)
    monkeypatch.setattr(archive, "MAX_MEMBERS", 3)
    with pytest.raises(ValueError, match=f"^{packed}: more than 3 members$"):
        read_replays([packed])


def test_pack_refuses_what_is_not_a_tournament(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        archive.main([str(tmp_path)])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env pack: error: argument directory: {str(tmp_path)!r} holds no games.jsonl: give a tournament's "
        "--out directory")
    assert list(tmp_path.iterdir()) == []


def test_records_keeps_each_tournament_in_one_file_that_reads() -> None:
    files = [p for p in (ROOT / "records").rglob("*") if p.is_file()]
    assert len(files) < 50
    packs = sorted(p for p in files if archive.is_archive(p))
    assert sorted(set(files) - set(packs)) == [ROOT / "records" / "README.md"]
    for path in packs:
        arguments, games = read_tournament(path)
        assert 0 < len(games) <= arguments["games"], path

"""The command lines' shared pieces (agents.common.arguments): errors end a command in one line."""

from __future__ import annotations

import pytest

from agents.common.arguments import TrainingParser, add_json_option, one_line_errors


def test_a_file_or_value_error_inside_ends_the_command_in_one_line(capsys: pytest.CaptureFixture) -> None:
    parser = TrainingParser(prog="sobek-env tool")
    for error, about, line in ((ValueError("bad spec"), "", "sobek-env tool: error: bad spec\n"),
                               (FileNotFoundError("no such file"), "argument tournament",
                                "sobek-env tool: error: argument tournament: no such file\n")):
        with pytest.raises(SystemExit) as stopped, one_line_errors(parser, about):
            raise error
        assert stopped.value.code == 2 and capsys.readouterr().err == line


def test_other_errors_pass_through_and_json_is_an_option() -> None:
    parser = TrainingParser(prog="sobek-env tool")
    with pytest.raises(KeyError), one_line_errors(parser):
        raise KeyError("a bug, not bad input")
    add_json_option(parser, "the table")
    assert parser.parse_args(["--json"]).json and not parser.parse_args([]).json
    assert "instead of the table" in parser.format_help()

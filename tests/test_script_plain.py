"""Events as plain text: what line mode prints and what script checks are judged against."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from game.engine.events import (
    GameEnded,
    GraphChanged,
    MetaOutput,
    NarrationDelta,
    NarrationDone,
    Notice,
    TurnCommitted,
    TurnFailed,
)
from game.engine.transcript import plain
from game.script.plain import DeltaStream, PlainPrinter, collect_text


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("Saved a snapshot as **harbour**.", "Saved a snapshot as harbour."),
        ("*The Brinefall — resumed at turn 3.*", "The Brinefall — resumed at turn 3."),
        ("Type `undo` to step back.", "Type undo to step back."),
        ("## Known NPC relationships", "Known NPC relationships"),
        ("* a bullet stays\n2 * 3 stays", "* a bullet stays\n2 * 3 stays"),
        ("- [+] **Bram** → **Elin** (KIN_OF): kin.", "- [+] Bram → Elin (KIN_OF): kin."),
        ("KIN_OF and snake_case stay", "KIN_OF and snake_case stay"),
    ],
)
def test_plain_drops_only_markdown_marks(markdown: str, text: str) -> None:
    assert plain(markdown) == text


def test_a_commands_output_joins_every_kind_of_event() -> None:
    events = [
        NarrationDelta("The gull "), NarrationDelta("*screams*."), NarrationDone("The gull *screams*."),
        GraphChanged(1, ()), TurnCommitted(1, True), Notice("The graph was not updated."),
        GameEnded("drowned", "The Drowned Bell"),
    ]
    assert collect_text(events) == "The gull screams.\n\nThe graph was not updated.\n\n*** The Drowned Bell ***"


def test_a_failed_turn_keeps_the_prose_it_streamed_and_says_why() -> None:
    events = [NarrationDelta("Bram opens his mouth"), TurnFailed("the model timed out.", "Narrator")]
    assert collect_text(events) == "Bram opens his mouth\n\nNarrator: the model timed out."


def test_deltas_are_released_at_white_space_so_split_marks_are_whole() -> None:
    stream = DeltaStream()
    pieces = [stream.feed(d) for d in ["It is *", "very* qu", "iet. **Bram", "** waits."]]
    pieces.append(stream.flush())
    assert "".join(pieces) == "It is very quiet. Bram waits."
    assert pieces[0] == "It is "


def test_printer_streams_narration_then_meta_and_errors_on_their_own_lines() -> None:
    out = io.StringIO()
    printer = PlainPrinter(out)
    for event in [NarrationDelta("Rain on "), NarrationDelta("the **slate**."), NarrationDone("x")]:
        printer.show(event)
    printer.end_command()
    printer.show(MetaOutput("Undone “look”. You are back at turn `0`.", "undo"))
    printer.end_command()
    printer.show(TurnFailed("Nothing of this turn was saved.", "Narrator"))
    printer.end_command()
    assert out.getvalue() == (
        "Rain on the slate.\n\n"
        "Undone “look”. You are back at turn 0.\n\n"
        "Narrator: Nothing of this turn was saved.\n\n"
    )


def test_a_notice_after_prose_stands_apart_and_an_ending_is_marked() -> None:
    out = io.StringIO()
    printer = PlainPrinter(out)
    for event in [NarrationDone("The lamp burns."), Notice("The graph was not updated."),
                  GameEnded("lit", "The Lamp Burns")]:
        printer.show(event)
    printer.end_command()
    assert out.getvalue() == "The lamp burns.\n\n(The graph was not updated.)\n\n*** The Lamp Burns ***\n\n"


CLEAR, TITLE, CLIPBOARD = "\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x1b]52;c;ZWNobyBoaQ==\x07"


def test_plain_output_never_prints_terminal_escapes_from_the_model() -> None:
    """Model narration, node names in meta output, and failure texts all reach the terminal stripped."""
    out = io.StringIO()
    printer = PlainPrinter(out)
    for event in [NarrationDelta(f"Bram{CLEAR} looks "), NarrationDelta(f"up.{TITLE} He "), NarrationDelta(
            f"waits{CLIPBOARD}."), NarrationDone("x")]:
        printer.show(event)
    printer.end_command()
    printer.show(NarrationDone(f"Elin {CLEAR}nods."))
    printer.show(MetaOutput(f"- [+] **Bram{TITLE}** → **Elin** (KIN_OF): kin.", "graph"))
    printer.show(Notice(f"Memory{CLIPBOARD} was not updated."))
    printer.show(TurnFailed(f"the model said {CLEAR}no.", f"Narrator{TITLE}"))
    printer.show(GameEnded("drowned", f"The Drowned Bell{CLEAR}"))
    printer.end_command()
    printed = out.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed, repr(printed)
    assert "Bram looks up. He waits." in printed and "Elin nods." in printed
    assert "- [+] Bram → Elin (KIN_OF): kin." in printed and "*** The Drowned Bell ***" in printed
    assert "Narrator: the model said no." in printed


def test_a_scripts_checks_read_the_same_stripped_text() -> None:
    events = [NarrationDelta(f"The gull{CLEAR} screams."), TurnFailed(f"timed{TITLE} out.", "Narrator")]
    assert collect_text(events) == "The gull screams.\n\nNarrator: timed out."


class _Terminal(io.StringIO):
    """A terminal as far as the printer can tell: it answers isatty, and its width is $COLUMNS."""

    def isatty(self) -> bool:
        return True


def test_line_mode_wraps_to_the_terminal_width_and_a_pipe_is_left_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    prose = "The harbour bell hangs silent over the grey water while gulls argue on the slick stones below."
    terminal = _Terminal()
    printer = PlainPrinter(terminal)
    for word in prose.split(" "):
        printer.show(NarrationDelta(word + " "))
    printer.show(NarrationDone(prose))
    printer.show(MetaOutput("Saved a snapshot of turn 3 as **a-rather-long-save-name**. Type `restore` later.",
                            "save"))
    printer.end_command()
    lines = terminal.getvalue().splitlines()
    assert all(len(line) <= 29 for line in lines), lines
    assert " ".join(" ".join(lines).split()) == " ".join(
        (prose + " Saved a snapshot of turn 3 as a-rather-long-save-name. Type restore later.").split())
    piped = io.StringIO()
    PlainPrinter(piped).show(NarrationDone(prose))
    assert piped.getvalue() == prose + "\n", "a pipe or a file gets the lines as written"
    wrapped = io.StringIO()
    PlainPrinter(wrapped, width=21).paragraph("**Saltwrights' Hall** is long and low and smells of brine.")
    assert wrapped.getvalue().splitlines()[0] == "Saltwrights' Hall is"



def test_help_in_line_mode_is_one_line_per_section_for_the_terminal_to_wrap(tmp_path: Path) -> None:
    """`help` in line mode printed the help's source line breaks, ragged against the terminal's own
    wrapping (one line 130 characters, the next 60); each section is one paragraph, as on the screen."""
    commands = tmp_path / "commands.txt"
    commands.write_text("help\n", encoding="utf-8")
    done = subprocess.run([str(Path(sys.executable).parent / "kith"), "--saves-dir", str(tmp_path / "saves"), "run",
                           "--transcript", str(commands)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    told = done.stdout.split("\n> help\n")[1]
    lines = [line for line in told.splitlines() if line.strip()]
    assert [line.split(".")[0] for line in lines] == ["Playing", "Game", "Telling", "People", "More"], told

"""Meta commands: what the player types to the game rather than to the story.

Recognised before anything reaches a narrator. A leading ``/`` is allowed on every one, so ``/undo``
and ``undo`` are the same. ``help`` with an argument is the story act of helping someone, not a command.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.registry import Registry, default_registry

META_WORDS = {
    "save", "restore", "load", "undo", "restart", "quit", "q", "transcript", "verbose", "brief",
    "help", "graph", "why", "mind",
}
SLASHED_ONLY = frozenset({"graph", "why", "mind"})
"""Words that are commands only after a ``/``: bare, they are ordinary words of the story. So is every
command a feature adds (``Feature.meta_commands``: ``/knowledge``, ``/memory``, ``/note``...) but its ``bare_words``."""

_HELP_SOURCE = """\
**Playing.** Type what you do: `look` (`l`), `examine X` (`x`), `go north` or `n`/`s`/`e`/`w`/`ne`/`nw`/`se`/`sw`/`u`/`d`,
`inventory` (`i`), `take X`, `drop X`, `give X to Y`, `show X to Y`, `talk to X`, `ask X about Y`, `tell X about Y`,
`go to PLACE`, `who is X`, `where am i`, `search`, `smell`, `listen (to X)`, `open`/`close`/`break X`, `wait` (`z`), `again` (`g`),
`buy X`, `drink`, `eat`, `hug X`, `pray`, `sing`,
and acts toward people: `help X`, `threaten X`, `bribe X`, `accuse X of Y`, `lie to X`, `follow X`.
Start a line with `"` to speak aloud, or with a name (`Lise, what about the bell?`) to speak to someone.

**Game.** `save [NAME]` keeps a snapshot, `restore [NAME]` (or `load`) returns to one, `undo` takes back the last turn
(as often as you like; `undo 3` takes back three), `restart` starts over (your game so far is kept as a snapshot), `transcript on|off`
writes a plain-text log, `verbose` / `brief` set how much a revisited place is described, `quit` (`q`) leaves.

**People.** `/graph` lists who you know stands where with whom; `/graph NAME` what you know of NAME's ties;
`/why NAME` shows those relations with the turns that produced them; `/mind NAME` what the narrator was told
about NAME this turn, section by section.
"""
HELP_SECTIONS = [" ".join(part.split("\n")) for part in _HELP_SOURCE.strip().split("\n\n")]
"""The core's part of ``help``: one line per section, so the screen's Markdown and a line-mode terminal wrap
it alike (the source's line breaks would print as ragged hard breaks in line mode and transcripts)."""
GAME_SECTIONS = 2
"""The core's sections of playing and of the game itself, which come before the features' own."""


def command_words(registry: Registry | None = None) -> list[str]:
    """Every command word the game answers to: the core's and the features' (``registry``'s, or the built-in ones)."""
    return sorted(META_WORDS | set((registry or default_registry()).meta_words()))


def help_text(registry: Registry | None = None) -> str:
    """What ``help`` shows: the core's commands of play, the features' own sections (``Feature.help_section``),
    the core's others, then one section of the features' single lines."""
    registry = registry or default_registry()
    sections = [*HELP_SECTIONS[:GAME_SECTIONS], *registry.help_sections(), *HELP_SECTIONS[GAME_SECTIONS:]]
    lines = [line for line in registry.meta_words().values() if line]
    return "\n\n".join(sections) + "\n" + (f"\n**More.** {' '.join(lines)}\n" if lines else "")


@dataclass(frozen=True)
class MetaCommand:
    word: str
    argument: str


def parse_meta(text: str, registry: Registry | None = None) -> MetaCommand | None:
    """The meta command ``text`` is, or None when it is meant for the story (``registry``: whose features'
    commands count too; the game's built-in ones when not given). A slashed word no one handles is a
    command all the same, one the game answers it does not have."""
    stripped = text.strip()
    slashed = stripped.startswith("/")
    body = stripped[1:] if slashed else stripped
    word, _, argument = body.partition(" ")
    word = word.lower()
    argument = argument.strip()
    if word not in META_WORDS:
        features = registry or default_registry()
        if word not in features.meta_words():
            # "/deeds" is meant for the game, not the story: it is answered as no command (and costs no
            # turn) rather than narrated as something the player did.
            return MetaCommand(word=word, argument=argument) if slashed and word.isalpha() else None
        if word in features.bare_words():
            return None if argument else MetaCommand(word=word, argument=argument)  # "continue north" is story
        return MetaCommand(word=word, argument=argument) if slashed else None
    if word in SLASHED_ONLY and not slashed:
        return None  # "why", "note", "story"... are ordinary words in the story; only /why, /note... are commands
    if word == "help" and argument:
        return None  # "help Mira" is an act
    if word in {"verbose", "brief", "restart", "quit", "q"} and argument:
        return None
    if word == "undo" and argument and not argument.isdigit():
        return None  # "undo 3" takes back three turns; "undo the knot" is something done in the story
    return MetaCommand(word="quit" if word == "q" else ("restore" if word == "load" else word), argument=argument)


INPUT_MODES = ("do", "say", "story")
"""How a line typed on the screen is meant (``game.ui.command_input``): **do** as typed, **say** aloud (a
leading '"'), **story** added to the story as written (``/story``). Meta commands are commands in every mode."""


@dataclass(frozen=True)
class PlayerLine:
    """One line of player input, read once (``read_line``): the text the game takes, and the meta command
    it is, or None when it is for the story. The screen routes on it and hands it to the session as it is,
    so the two can never read one line two ways."""

    text: str
    command: MetaCommand | None


def read_line(text: str, mode: str = "do", registry: Registry | None = None) -> PlayerLine:
    """The line ``text``, typed in input ``mode``, as the game takes it (see ``INPUT_MODES``; ``registry``:
    whose features' commands count, the built-in ones by default)."""
    stripped = text.strip()
    command = parse_meta(stripped, registry) if stripped else None
    if command is not None or mode == "do" or not stripped:
        return PlayerLine(stripped, command)
    if mode == "say":
        return PlayerLine(stripped if stripped.startswith('"') else f'"{stripped}', None)
    word = (registry or default_registry()).mode_command(mode)
    if word is not None:  # a feature's mode (Story mode): the line is its command's argument
        return PlayerLine(f"/{word} {stripped}", MetaCommand(word, stripped))
    raise ValueError(f"unknown input mode {mode!r}; the modes are {', '.join(INPUT_MODES)}")

"""``kith doctor`` (also ``kith llm check``): probe the configured model endpoint once and say, in plain
words, what works. The probe and its report are ``game.narrator.llm.checkup``'s, which the settings
screen's connection test runs too; this module adds the folders and the command line.

Also home of the endpoint flags every command shares (``--base-url``, ``--model``, ``--api-key-env``
and, for commands that play, ``--record FILE``), so ``play``, ``run`` and ``doctor`` add them the same way.
Exit status: 0 when narration works (the server answers and streams), 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from game.errors import InputError

if TYPE_CHECKING:
    from game.config import Settings


def llm_flag_arguments(parser: argparse.ArgumentParser, *, record: bool = True) -> None:
    """Add the endpoint flags; ``record`` adds ``--record FILE`` and ``--record-full`` for commands that play."""
    group = parser.add_argument_group("model endpoint (see docs/llm.md)")
    group.add_argument("--base-url", metavar="URL",
                       help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default: none, offline)")
    group.add_argument("--model", metavar="NAME", help="model name for every step")
    group.add_argument("--api-key-env", metavar="VAR",
                       help="environment variable holding the API key (default: OPENAI_API_KEY)")
    if record:
        group.add_argument("--record", type=Path, metavar="FILE",
                           help="store this session's model exchanges in FILE (JSONL) for replay")
        group.add_argument("--record-full", action="store_true",
                           help="with --record, also keep each request and reply in full (the key masked)")


def llm_settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The endpoint flags given, nested like ``kith.toml`` (``{"llm": {...}}``), for settings precedence.

    ``--record`` is not a setting: the command that plays reads ``args.record`` and passes it on;
    ``--record-full`` is (``record_full``), and only means something with ``--record``."""
    llm: dict[str, Any] = {}
    if getattr(args, "record_full", False):
        if getattr(args, "record", None) is None:
            raise InputError("--record-full keeps whole requests and replies in the recording: give --record "
                             "FILE as well.")
        llm["record_full"] = True
    for flag, key in (("base_url", "base_url"), ("model", "model"), ("api_key_env", "api_key_env")):
        value = getattr(args, flag, None)
        if value:
            llm[key] = value
    return {"llm": llm} if llm else {}


DOCTOR_DESCRIPTION = ("Probe the configured OpenAI-compatible endpoint once (five to seven small requests) and "
                      "report what works and which fallbacks the game will use. Exit 0 when narration works.")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check the model endpoint: streaming, tools, tool_choice, structured output",
        description=DOCTOR_DESCRIPTION,
    )
    _doctor_arguments(parser)
    # ``kith llm check`` is the same command under a second name, for players who look under ``llm``; one
    # handler, one set of flags, so the two can never report differently.
    llm = subparsers.add_parser("llm", help="model endpoint commands: 'kith llm check' is 'kith doctor'",
                                description="Commands about the model endpoint (see docs/llm.md).")
    actions = llm.add_subparsers(dest="llm_command", metavar="SUBCOMMAND", required=True)
    check = actions.add_parser("check", help="the same as 'kith doctor'", description=DOCTOR_DESCRIPTION)
    _doctor_arguments(check)


def _doctor_arguments(parser: argparse.ArgumentParser) -> None:
    llm_flag_arguments(parser, record=False)
    parser.set_defaults(handler=run_doctor, settings_flags=llm_settings_flags)


def run_doctor(args: argparse.Namespace, settings: Settings, out: TextIO | None = None) -> int:
    import asyncio  # here: every playing command adds this module's flags, and most never probe

    from game.cli.worlds import folder_lines
    from game.narrator.llm.checkup import doctor

    out = out or sys.stdout
    code = asyncio.run(doctor(settings, out))
    # Where things are, endpoint or not: most "where did my save go" questions are answered by this.
    out.write("\nFolders\n" + "".join(f"  {line}\n" for line in folder_lines(settings)))
    return code

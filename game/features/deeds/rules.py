"""What each act is: its valence and its words. The one list the deed step, the news and the checks read.

A verb missing here is recorded as a neutral act under its own name: a world's or a model's new verb is
kept, never dropped, but it is not news until this list says what it means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Valence = Literal["kind", "harmful", "neutral"]
VALENCES: tuple[Valence, ...] = ("kind", "harmful", "neutral")


@dataclass(frozen=True)
class ActWords:
    """How an act is said: ``past`` before the target ("threatened"), ``joiner`` between a thing and the
    target when the act has one ("gave the coin *to* Tibby")."""

    valence: Valence
    past: str
    joiner: str = ""
    about: str = ""
    """Between the target and a topic: "asked Hob *about* the bell"."""


ACTS: dict[str, ActWords] = {
    "help": ActWords("kind", "helped"),
    "give": ActWords("kind", "gave", "to"),
    "warn": ActWords("kind", "warned", about="about"),
    "apologize": ActWords("kind", "apologised to", about="for"),
    "threaten": ActWords("harmful", "threatened"),
    "lie": ActWords("harmful", "lied to"),
    "bribe": ActWords("harmful", "tried to bribe"),  # true whether the money was taken or handed back
    "steal": ActWords("harmful", "stole", "from"),
    "show": ActWords("neutral", "showed", "to"),
    "tell": ActWords("neutral", "told", about="about"),
    "ask": ActWords("neutral", "asked", about="about"),
    "accuse": ActWords("harmful", "accused", about="of"),
    "talk": ActWords("neutral", "talked to"),
    "follow": ActWords("neutral", "followed"),
    "look": ActWords("neutral", "looked at"),
    "confess": ActWords("neutral", "confessed to"),
}
"""Every act the parser resolves, by its canonical word (the contract's ``act``)."""

APOLOGY = "apologize"
"""The act that answers a harm (``DeedBook.amends``): it travels with the harm, and lifts discretion."""
CONFESS = "confess"
"""An act that owns up to one's own harms: after it, discretion no longer keeps them back."""

ALIASES: dict[str, str] = {"say": "tell", "apologise": "apologize", "take": "steal", "intimidate": "threaten",
                           "assist": "help", "aid": "help", "pay": "bribe", "rob": "steal", "pickpocket": "steal"}

DOING: dict[str, str] = {"threaten": "threatening", "lie": "lying to", "bribe": "trying to bribe", "steal": "stealing from",
                         "accuse": "accusing"}
"""A harmful act as an apology names it: "sorry for *threatening* Tibby"."""


def doing(act: str, target: str, thing: str = "") -> str:
    """What an apology is for: "threatening Tibby", "stealing the ledger from Crane"."""
    word = DOING.get(canonical(act), canonical(act))
    if word == "stealing from" and thing:
        return f"stealing {thing} from {target}"
    return f"{word} {target}"
"""Other words for an act, as a model or a script may write them."""


def canonical(act: str) -> str:
    """The canonical word of ``act`` ("Threatened" is not a verb we know, so it stays itself, lower-cased)."""
    word = act.strip().lower()
    return ALIASES.get(word, word)


def valence_of(act: str) -> Valence:
    """Whether ``act`` is kind, harmful or neutral (an unknown act: neutral)."""
    words = ACTS.get(canonical(act))
    return words.valence if words is not None else "neutral"


def is_news(act: str) -> bool:
    """Whether word of ``act`` travels: asking, talking and looking are nobody's news."""
    return valence_of(act) != "neutral"


WITH_THING = frozenset({"give", "show", "steal", "apologize"})
"""Acts said with what they used or were for, to the player's face: "gave a heel of salt-bread to Pell",
"apologised to her for threatening her" (a question's topic or a warning's is nobody's news)."""


def deed_phrase(act: str, target: str, thing: str = "") -> str:
    """``act_phrase`` as a reason or a news line says it: with its thing only for ``WITH_THING`` acts."""
    return act_phrase(act, target, thing if canonical(act) in WITH_THING else "")


def act_phrase(act: str, target: str, thing: str = "") -> str:
    """The act's words with its target: "threatened Tibby", "gave the coin to Tibby"."""
    words = ACTS.get(canonical(act))
    if words is None:
        return f"{canonical(act)} {target}".strip()
    if thing and words.joiner:
        return f"{words.past} {thing} {words.joiner} {target}"
    if thing and words.about:
        return f"{words.past} {target} {words.about} {thing}"
    return f"{words.past} {target}"


def sentence(actor: str, act: str, target: str, thing: str = "") -> str:
    """The deed as one sentence: "Wren threatened Tibby Tarrant."."""
    return f"{actor} {act_phrase(act, target, thing)}."

"""The story's parser: a line of player input to an ``Intent``, with the verbs players expect.

It only splits words; what the words name (which character, which item) is resolved against the scene
by the actions. Each action has exactly one verb: "give the coin to Edda" and "give Edda the coin" are
both ``give``, the second with the person still inside ``obj`` for the action to find. Anything the
parser cannot read becomes ``Intent("unknown")``, which is answered in the world's voice with a hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from game.story.everyday_words import EVERYDAY_GRAMMAR
from game.text import straighten_quotes
from game.world.schema import Everyday
from game.world.words import clean

Verb = Literal[
    "look", "examine", "inventory", "wait", "exits", "think", "go", "take", "drop", "give", "show",
    "talk", "ask", "tell", "say", "help", "threaten", "bribe", "accuse", "lie", "follow", "warn",
    "smell", "listen", "open", "close", "break", "who", "steal", "apologize", "unknown",
] | Everyday

DIRECTION_WORDS: dict[str, str] = {
    "n": "north", "s": "south", "e": "east", "w": "west",
    "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
    "u": "up", "d": "down", "north": "north", "south": "south", "east": "east", "west": "west",
    "northeast": "northeast", "northwest": "northwest", "southeast": "southeast", "southwest": "southwest",
    "north-east": "northeast", "north-west": "northwest", "south-east": "southeast",
    "south-west": "southwest", "up": "up", "down": "down", "in": "in", "out": "out",
    "upstairs": "up", "downstairs": "down", "inside": "in", "outside": "out",
}


@dataclass(frozen=True)
class Intent:
    """What the player asked for. ``target`` names a character, ``obj`` a thing, ``topic`` a subject."""

    verb: Verb
    obj: str = ""
    target: str = ""
    topic: str = ""


_GRAMMAR: list[tuple[str, Verb, tuple[str, ...]]] = [
    (r"^(?:l|look|look around|search|search around|search here|where am i|where are we|where is this|"
     r"what is this place|what place is this)$", "look", ()),
    (r"^(?:who is|who's|whos|who are|who was) (.+)$", "who", ("obj",)),
    (r"^(?:smell|sniff)(?: at)? (.+)$", "smell", ("obj",)),
    (r"^(?:smell|sniff|smell the air)$", "smell", ()),
    (r"^(?:listen|hear|listen out)(?: to| for| at)? (.+)$", "listen", ("obj",)),
    (r"^(?:listen|listen carefully|hear)$", "listen", ()),
    (r"^(?:open|unlock|pry open|prise open|force open|unbar|unfasten) (.+)$", "open", ("obj",)),
    (r"^(?:close|shut|lock|bar|fasten) (.+)$", "close", ("obj",)),
    (r"^(?:break|smash|force|kick|kick in|kick down|pry|prise|shatter) (.+)$", "break", ("obj",)),
    (r"^(?:x|examine|inspect|study|read|search|check|look at|look in|look under|look behind|l at|l) (.+)$",
     "examine", ("obj",)),
    (r"^(?:i|inv|inventory)$", "inventory", ()),
    (r"^(?:z|wait|rest|sit|sit down)$", "wait", ()),
    (r"^(?:exits|where|where can i go)$", "exits", ()),
    (r"^(?:think|hint|hints|remember|goal|what now|what|what next|now what|what should i do|what should i do now|"
     r"what should i do next|what do i do|what do i do now|what can i do|what am i doing|where do i go)$",
     "think", ()),
    (r"^(?:touch|feel|rub|stroke|knock on|knock at|knock) (.+)$", "examine", ("obj",)),
    (r"^(?:go|walk|run|head|climb|move|travel|return)(?: back)?(?: to| towards| toward| into| through)? (.+)$",
     "go", ("obj",)),
    (r"^(?:enter) (.+)$", "go", ("obj",)),
    # Taking from someone is stealing (game.story.actions.deeds); from a place or a thing, taking.
    (r"^(?:steal|pinch|filch|pilfer|nick|swipe|snatch|lift|pocket) (.+?) from (.+)$", "steal", ("obj", "target")),
    (r"^(?:steal|pinch|filch|pilfer|nick|take) from (.+)$", "steal", ("target",)),
    (r"^(?:rob|pickpocket|mug) (.+)$", "steal", ("target",)),
    (r"^(?:steal|pinch|filch|pilfer|swipe|pocket) (.+)$", "steal", ("obj",)),
    (r"^(?:take|get|grab|snatch) (.+?) from (.+)$", "take", ("obj", "target")),
    (r"^(?:take|get|grab|pick up|collect) (.+?)(?: from .+)?$", "take", ("obj",)),
    (r"^pick (.+) up$", "take", ("obj",)),
    (r"^(?:drop|put down|discard) (.+)$", "drop", ("obj",)),
    (r"^(?:give|offer|hand) (.+?) to (.+)$", "give", ("obj", "target")),
    (r"^(?:give|offer|hand) (.+)$", "give", ("obj",)),  # the person is in "obj": the action splits it
    (r"^show (.+?) to (.+)$", "show", ("obj", "target")),
    (r"^show (.+)$", "show", ("obj",)),
    (r"^(?:talk|speak|chat)(?: to| with)? (.+?) (?:about|of|regarding) (.+)$", "ask", ("target", "topic")),
    (r"^(?:talk|speak|chat)(?: to| with)? (.+)$", "talk", ("target",)),
    (r"^(?:greet|hail|approach) (.+)$", "talk", ("target",)),
    (r"^(?:say )?(?:hello|hi|hey|hullo|greetings|good (?:morning|afternoon|evening|day))(?: to)? (.+)$",
     "talk", ("target",)),
    (r"^(?:wave|nod|bow)(?: to| at)? (.+)$", "talk", ("target",)),
    (r"^(?:talk|speak|chat|hello|hi|hey|greet|say hello|say hi|wave)$", "talk", ()),
    (r"^tell me (?:about|of|regarding) (.+)$", "ask", ("topic",)),
    (r"^(?:ask|question|consult|quiz) (.+?) (?:about|for|of|on|regarding) (.+)$", "ask", ("target", "topic")),
    (r"^(?:consult|quiz) (.+)$", "talk", ("target",)),
    (r"^(?:ask|question) (?:about|regarding) (.+)$", "ask", ("topic",)),
    (r"^(?:ask|question) (.+?) ((?:who|whom|whose|what|where|why|how|when|which|whether|if) .+)$",
     "ask", ("target", "topic")),
    (r"^(?:ask|question) (.+)$", "talk", ("target",)),
    (r"^tell (.+?) (?:about|of|regarding|that) (.+)$", "tell", ("target", "topic")),
    (r"^tell about (.+)$", "tell", ("topic",)),
    # An apology is a deed (game.story.actions.deeds): "apologise to hob", "say sorry to tibby", "sorry".
    (r"^(?:apologi[sz]e|say sorry|say you're sorry|say youre sorry|say i'm sorry|say im sorry) to (.+?)(?: for .+)?$",
     "apologize", ("target",)),
    (r"^(?:apologi[sz]e|say sorry|i'm sorry|im sorry|i am sorry|sorry)(?: for .+)?$", "apologize", ()),
    (r"^tell (.+?) (?:i'm |im |i am |you're |youre )?sorry\b.*$", "apologize", ("target",)),
    (r"^(?:sorry|apologi[sz]e) (.+)$", "apologize", ("target",)),
    # "tell hob i am sorry": words said to Hob
    (r"^tell (.+?) ((?:i|i'm|im|you|you're|we|it|it's|she|he|they|sorry|thanks|thank you|the truth is|ness)\b.*)$",
     "say", ("target", "topic")),
    (r"^(?:thank|thanks|thank you|thanks to)(?: to)? (.+)$", "say", ("target",)),
    (r"^(thanks|thank you|cheers|thank ye)$", "say", ("topic",)),
    (r"^(?:say|shout|call out|whisper|answer|reply) (.+)$", "say", ("topic",)),
    (r"^(?:help|assist|aid) (.+)$", "help", ("target",)),
    (r"^(?:threaten|intimidate|menace) (.+?)(?: with .+)?$", "threaten", ("target",)),
    (r"^(?:bribe|pay|buy off) (.+?) with (.+)$", "bribe", ("target", "obj")),
    (r"^(?:bribe|pay|buy off) (.+)$", "bribe", ("target",)),
    (r"^accuse (.+?) (?:of|about|over) (.+)$", "accuse", ("target", "topic")),
    (r"^accuse (.+)$", "accuse", ("target",)),
    (r"^lie (?:to )?(.+?) (?:about|that) (.+)$", "lie", ("target", "topic")),
    (r"^lie to (.+)$", "lie", ("target",)),
    (r"^(?:follow|trail|shadow|go after|chase) (.+)$", "follow", ("target",)),
    (r"^warn (.+?) (?:about|of|that) (.+)$", "warn", ("target", "topic")),
    (r"^warn (.+)$", "warn", ("target",)),
    # A question put to whoever the player is talking to: "what happened to ness?"
    (r"^((?:who|whom|whose|what|where|why|how|when|which|did|does|was|were|is|are|do you|can you|could you|"
     r"will you|would you) .+)$", "ask", ("topic",)),
]
NOBODY_IN_PARTICULAR = frozenset({"there", "all", "everyone", "everybody", "folks", "again"})
PEOPLE_VERBS = frozenset({"talk", "ask", "tell", "say", "help", "threaten", "bribe", "accuse", "lie", "follow",
                          "warn", "give", "show", "steal", "apologize"})
_GRAMMAR[:0] = EVERYDAY_GRAMMAR  # first: "take a drink" is drinking, not taking
_PATTERNS = [(re.compile(pattern), verb, groups) for pattern, verb, groups in _GRAMMAR]
# Every single word a verb pattern starts with: what a typo in the verb is corrected towards.
VERB_WORDS: frozenset[str] = frozenset(
    word for pattern, _verb, _groups in _GRAMMAR
    for alternatives in re.findall(r"^\^\(\?:([a-z |-]+)\)", pattern)
    for word in alternatives.split("|") if " " not in word
) | frozenset(re.findall(r"^\^([a-z]+) ", "\n".join(p for p, _v, _g in _GRAMMAR), re.MULTILINE))


def parse(text: str) -> Intent:
    """Read one line of input. Directions, abbreviations and two-object verbs are recognised here.

    "Hob, tell me about Ness" is addressed: the words before the comma name who is spoken to.
    """
    addressed = _addressed(text)
    if addressed is not None:
        return addressed
    intent = _parse_line(text)
    if intent.verb == "talk" and intent.target in NOBODY_IN_PARTICULAR:
        return Intent("talk")
    return intent


def _addressed(text: str) -> Intent | None:
    """``NAME, WORDS``: WORDS said or asked to NAME; None when the line is not of that shape."""
    parts = re.split(r"[,:]", straighten_quotes(text), maxsplit=1)
    if len(parts) != 2:
        return None
    head, rest = parts
    name = clean(head)
    if not name or not clean(rest) or len(name.split()) > 3 or _parse_line(head).verb != "unknown":
        return None
    intent = _parse_line(rest)
    if intent.target in {"me", "us", "myself"}:  # "hob, help me": a request put to Hob
        return Intent("ask", target=name, topic=clean(rest))
    if intent.verb in PEOPLE_VERBS and not intent.target:
        return Intent("talk" if intent.verb == "talk" else intent.verb, obj=intent.obj, target=name,
                      topic=intent.topic)
    if intent.verb in PEOPLE_VERBS:
        return intent
    return Intent("say", target=name, topic=clean(rest))


def _parse_line(text: str) -> Intent:
    line = clean(text)
    if straighten_quotes(text).lstrip().startswith('"') and line:
        return Intent("say", topic=line)
    if not line:  # not reached in play: the turn pipeline answers an empty line before the story reads it
        return Intent("unknown")
    if line in DIRECTION_WORDS:
        return Intent("go", obj=DIRECTION_WORDS[line])
    for pattern, verb, groups in _PATTERNS:
        match = pattern.match(line)
        if match is None:
            continue
        values = dict(zip(groups, match.groups(), strict=True))
        if verb == "say" and "topic" not in values:  # "thank hob": thanks said to Hob
            values["topic"] = "thank you"
        obj = values.get("obj", "")
        if verb == "go" and obj in DIRECTION_WORDS:
            obj = DIRECTION_WORDS[obj]
        return Intent(verb, obj=obj.strip(), target=values.get("target", "").strip(),
                      topic=values.get("topic", "").strip())
    return Intent("unknown", obj=line)

"""The player's actions, one module per family (places, things, people, general), each shaped
check / carry out / report (``base``). ``ACTIONS`` maps every verb to its action (``again`` is not a
verb: the engine's turn pipeline repeats the last line before the story sees it).
"""

from __future__ import annotations

from typing import Any, get_args

from game.story.actions.base import Action
from game.story.actions.deeds import Apologize, Steal, TakeFrom
from game.story.actions.everyday import Everyday
from game.story.actions.general import Think, Unknown, Wait
from game.story.actions.people import ActOn, Bribe, Converse, Follow, Give, Say, Talk
from game.story.actions.places import Exits, Go, Look
from game.story.actions.senses import Handle, SenseAction, Who
from game.story.actions.things import Drop, Examine, Inventory
from game.story.parser import Verb
from game.world.schema import Everyday as EverydayVerb

ACTIONS: dict[Verb, Action[Any]] = {
    "look": Look(), "exits": Exits(), "go": Go(),
    "examine": Examine(), "inventory": Inventory(), "take": TakeFrom(), "drop": Drop(),
    "talk": Talk(), "ask": Converse("ask"), "tell": Converse("tell"), "say": Say(),
    "give": Give("give"), "show": Give("show"), "bribe": Bribe(), "follow": Follow(),
    "help": ActOn("help"), "threaten": ActOn("threaten"), "accuse": ActOn("accuse"), "lie": ActOn("lie"),
    "warn": ActOn("warn"), "steal": Steal(), "apologize": Apologize(),
    "smell": SenseAction("smell"), "listen": SenseAction("listen"), "who": Who(),
    "open": Handle("open"), "close": Handle("close"), "break": Handle("break"),
    "wait": Wait(), "think": Think(), "unknown": Unknown(),
    **{verb: Everyday(verb) for verb in get_args(EverydayVerb)},
}

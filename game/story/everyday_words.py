"""The grammar of the everyday verbs players reach for in any story: buying, drinking, eating, hugging,
praying, singing, sleeping, swimming, jumping, dancing (``game.story.actions.everyday`` answers them).

Read before the story's other verbs, so "take a drink" is drinking rather than taking a thing called "a
drink", and "bow your head" is praying rather than a bow to someone called "your head".
"""

from __future__ import annotations

from game.world.schema import Everyday

EVERYDAY_GRAMMAR: list[tuple[str, Everyday, tuple[str, ...]]] = [
    (r"^(?:buy|purchase|order)(?: me| myself)? (.+?) (?:from|off) (.+)$", "buy", ("obj", "target")),
    (r"^(?:buy|purchase|order)(?: me| myself)? (.+)$", "buy", ("obj",)),
    (r"^(?:buy|purchase|order|shop|buy something)$", "buy", ()),
    (r"^(?:drink|sip|quaff|swig)(?: from| of| some| the rest of)? (.+)$", "drink", ("obj",)),
    (r"^(?:drink|sip|have a drink|take a drink|get a drink|have a pint|get drunk|drink something)$", "drink", ()),
    (r"^(?:eat|taste|nibble|chew|bite)(?: some| a bit of| from)? (.+)$", "eat", ("obj",)),
    (r"^(?:eat|eat something|have something to eat|get something to eat)$", "eat", ()),
    (r"^(?:hug|embrace|cuddle|kiss|comfort|console|hold|hold hands with|shake hands with|shake|pat)(?: with)? "
     r"(.+?)(?:'s hand)?$", "hug", ("target",)),
    (r"^(?:hug|embrace|kiss|comfort|console)$", "hug", ()),
    (r"^(?:pray|kneel|kneel down|say a prayer|say prayers|bow my head|bow your head|cross myself|light a candle)"
     r"(?: (?:for|to|at|before|by|beside|in) .+)?$", "pray", ()),
    (r"^(?:sing|hum|whistle|sing a song|sing a hymn|sing a dirge|chant)(?: (?:a|the|for|to) .+)?$", "sing", ()),
    (r"^(?:sleep|nap|go to sleep|take a nap|lie down|doze)(?: .+)?$", "sleep", ()),
    (r"^(?:swim|go swimming|bathe|dive|dive in|jump in|jump into the water|paddle)(?: (?:in|into|across) .+)?$",
     "swim", ()),
    (r"^(?:jump|leap|hop|skip)(?: (?:up|about|around|on the spot|up and down))?$", "jump", ()),
    (r"^dance(?: with .+| a jig| a reel| about| around)?$", "dance", ()),
]

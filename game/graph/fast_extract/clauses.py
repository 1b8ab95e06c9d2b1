"""Clauses a sentence holds inside another, read again as plain clauses of their own (issue 26).

The relation patterns (``patterns``) want "X VERB Y" with X where a subject starts and nothing but a few
adverbs between. Prose often says the same thing folded into a longer sentence:

- a relative clause on a name: "Edward, who was engaged to Lucy, said nothing" says "Edward was engaged
  to Lucy", and its main clause "Edward said nothing" (the relative clause taken out); "Edward, whom Lucy
  loved, ..." says "Lucy loved Edward", "Edward, to whom Lucy was engaged" "Lucy was engaged to Edward";
  "Edward, whose sister Lucy ..." says "Edward's sister Lucy";
- a second predicate that keeps the first one's subject: "John lived in the town and hated Tom heartily"
  says "John hated Tom";
- a subject with a role beside it in commas: "John, Ann's brother, hated Tom" says "John hated Tom".

Each is given back as a template the patterns read with the sentence's own slots, so every guard of a
pattern still holds (a negation inside, "who never loved Lucy", states nothing). What this module refuses
is what would name the wrong doer: a "who" after "of" or a list ("the sister of Tom, who ...", "Tom and
Will, who ..." could be about the other one), a "who" with no comma before it (a question word, "asked
who loved Lucy", or a restrictive clause), and a second predicate after a subordinate clause of its own
("told Tom that Will was ill and hated Ann": Will's hatred, or nobody's) or after a negation or an "or".
The caller checks the clause around for conditions; questions never reach here.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.asides import aside_readings
from game.graph.fast_extract.lists import list_readings
from game.graph.fast_extract.patterns import ADJ, ROLE_NOUNS, SLOT
from game.graph.fast_extract.sentences import stated

_HEAD = rf"(?:the\s+)?{SLOT}"
# "⟨0⟩, who was engaged to ⟨1⟩, said nothing": the head, the relative word, its clause up to a comma or
# the end. A head owning something ("⟨0⟩'s sister, who") is not the one described.
# "⟨0⟩, to whom ⟨1⟩ was engaged": a preposition before "whom" goes after the verb ("⟨1⟩ was engaged to ⟨0⟩").
_RELATIVE = re.compile(rf"(?P<head>{_HEAD})(?!['’]),\s+(?:(?P<preposition>to|with|of|for|by|on|in|upon)\s+(?=whom))?"
                       rf"(?P<word>who|whom|whose)\s+(?P<body>[^,]+?)(?P<end>,\s*|$)")
# Words before a head that make "who" ambiguous or not the head's: "the daughter of ⟨0⟩, who", "⟨0⟩ and ⟨1⟩, who".
_AMBIGUOUS_BEFORE = re.compile(r"(?:\b(?:of|and|or|nor|with|to|than|by|from|for)|[,'’])\s*$")
_LISTED_HEAD = re.compile(rf"{_HEAD}(?:,\s*{_HEAD})*,?\s+and\s+{_HEAD}$")
_PLURAL = re.compile(r"(?:were|are|had\s+been|have\s+been|became|remained)\b")
# "whom ⟨1⟩ loved", "whom ⟨1⟩ had married": a subject and its verb group, the head the verb's object.
_WHOM_BODY = re.compile(rf"^(?P<subject>{_HEAD})\s+(?P<verb>(?:[a-z]+\s+){{0,3}}[a-z]+)$")
_CLAUSE_START = re.compile(rf"^(?:(?:and|then|now|so)\s+)*{_HEAD}$")

# Words before a relative clause or a second predicate that make it another's words or thought: "Tom said
# that Will, who loved Ann, ...", "Tom thought Will was ill and hated Ann".
_REPORTED = re.compile(r"\b(?:said|says|say|told|tells|tell|thought|thinks|think|believed|believes|believe|heard|"
                       r"hears|declared|declares|claimed|claims|swore|swears|wrote|writes|asked|asks|knew|knows|"
                       r"fancied|fancies|supposed|guessed|felt|feels|hoped|feared\s+that)\b")
# A second predicate: the clause's subject (one name or a list), its first predicate, "and" or "but", a verb.
_SUBJECT = re.compile(rf"^(?:(?:and|then|now|so)\s+)*(?P<subject>{_HEAD}(?:(?:,\s*{_HEAD})*,?\s+and\s+{_HEAD})?)"
                      rf"\s+(?=[a-z])")
_COORDINATED = re.compile(r"\s(?:and|but)\s+(?:(?:then|afterwards|at\s+last|soon|[a-z]+ly)\s+)?(?P<verb>[a-z]+)\b")
# What makes the first predicate hold a clause of its own, whose subject the second predicate may have, or
# a denial that may reach over "and" ("did not go and see"): then the second predicate is not read.
# An infinitive is a clause of its own too: "⟨0⟩ asked ⟨1⟩ to come and serve ⟨2⟩" is ⟨1⟩'s service.
_SUBORDINATE = re.compile(r"\b(?:that|who|whom|whose|which|what|when|whenever|while|because|since|as|where|though|"
                          r"although|until|till|if|unless|whether|how|why|or|nor|to\s+(?!(?:the|a|an|his|her|their|"
                          r"its|my|our|your|this|that|these|those)\b)(?=[a-z]))\b")
_NOT_A_VERB = frozenset({
    "the", "a", "an", "his", "her", "their", "its", "my", "our", "your", "it", "this", "that", "these", "those",
    "there", "here", "who", "whom", "which", "what", "when", "where", "while", "if", "as", "to", "of", "in", "on",
    "at", "by", "for", "with", "from", "into", "not", "no", "nobody", "none", "nothing", "everyone", "everybody",
    "somebody", "someone", "i", "we", "you", "me", "us", "them", "him", "he", "she", "they", "one", "all", "both",
    "each", "then", "so", "yet", "but", "and", "or", "never", "after", "before", "about", "over", "under", "upon",
    "unto", "without", "through", "against", "between", "among", "many", "much", "more", "most", "some", "any",
    "every", "other", "another", "such", "very", "too", "also", "only", "even", "just", "still", "now",
})


def relative_readings(clause: str) -> list[str]:
    """The clauses a relative clause on a name states, and the main clause without it, as templates."""
    readings: list[str] = []
    if "wh" not in clause:
        return readings
    for match in _RELATIVE.finditer(clause):
        before = clause[:match.start()]
        head, body = match.group("head"), match.group("body").strip()
        word = match.group("word")
        listed = _LISTED_HEAD.search(before + head)
        if listed is not None and word == "who" and _PLURAL.match(body):
            # "⟨0⟩ and ⟨1⟩, who were old friends": a plural verb is about the whole list
            before, head = before[:listed.start()], listed.group(0)
        if _AMBIGUOUS_BEFORE.search(before) or _REPORTED.search(before) or not stated(before):
            continue
        if word == "who":
            readings.append(f"{head} {body}")
        elif word == "whose":
            readings.append(f"{head}'s {body}")
        else:
            whom = _WHOM_BODY.match(body)
            if whom is not None:
                preposition = f"{match.group('preposition')} " if match.group("preposition") else ""
                readings.append(f"{whom.group('subject')} {whom.group('verb')} {preposition}{head}")
        rest = clause[match.end():]
        if match.group("end").strip() and rest and _CLAUSE_START.match(before + head):
            # "⟨0⟩, who was tall, feared ⟨1⟩": the main clause with its subject's relative clause taken out
            readings.append(f"{before}{head} {rest}")
    return readings


def coordinated_readings(clause: str) -> list[str]:
    """The clause's later predicates joined by "and" or "but", each with the clause's subject: "⟨0⟩ lived in
    the town and hated ⟨1⟩" gives "⟨0⟩ hated ⟨1⟩"."""
    readings: list[str] = []
    if " and " not in clause and " but " not in clause:
        return readings
    subject = _SUBJECT.match(clause)
    if subject is None:
        return readings
    for match in _COORDINATED.finditer(clause, subject.end()):
        first = clause[subject.end():match.start()]
        if _SUBORDINATE.search(first) or _REPORTED.search(first) or not stated(first):
            break  # a clause of its own, another's words, or a denial before: no later predicate is surely its
        if match.group("verb") in _NOT_A_VERB:
            continue
        readings.append(f"{subject.group('subject')} {clause[match.start('verb'):]}")
    return readings


# "Fearing ⟨1⟩, ⟨0⟩ fled", "⟨0⟩, fearing ⟨1⟩, fled", "Having married ⟨1⟩, ⟨0⟩ ...": a participle's doer is the
# subject of the clause it opens or stands beside. A regular "-ing" turned into "-ed" is the past form the
# patterns read ("loving" "loved", "dreading" "dreaded"); any other ("seeing", "meeting") reads as nothing.
_OPENING_PARTICIPLE = re.compile(rf"^(?P<having>having\s+)?(?P<stem>[a-z]{{3,}}?)(?P<ending>ing|ed)\s+(?P<object>[^,]*?{SLOT}[^,]*?),\s+"
                                 rf"(?P<subject>{_HEAD})\s+(?=[a-z])")
_BESIDE_PARTICIPLE = re.compile(rf"^(?P<subject>{_HEAD}),\s+(?P<having>having\s+)?(?P<stem>[a-z]{{3,}}?)(?P<ending>ing|ed)\s+"
                                rf"(?P<object>[^,]*?{SLOT}[^,]*?),\s+(?=[a-z])")


def participle_readings(clause: str) -> list[str]:
    """The clause a participial phrase states of its subject: "fearing ⟨1⟩, ⟨0⟩ fled" gives "⟨0⟩ feared ⟨1⟩"."""
    readings: list[str] = []
    if "ing " not in clause and "ed " not in clause:
        return readings
    for pattern in (_OPENING_PARTICIPLE, _BESIDE_PARTICIPLE):
        match = pattern.match(clause)
        if match is None or (match.group("ending") == "ed" and not match.group("having")):
            continue  # "Married to ⟨1⟩, ⟨0⟩ ..." is left alone: a bare past participle is as often passive
        verb = f"{match.group('stem')}ed"
        readings.append(f"{match.group('subject')} {'had ' if match.group('having') else ''}{verb} {match.group('object')}")
    return readings


# "⟨0⟩, ⟨1⟩'s brother, hated ⟨2⟩", "⟨1⟩'s brother, ⟨0⟩, hated ⟨2⟩", "⟨0⟩, the miller's cousin, lived ...": a
# subject with a role set beside it in commas. The role itself is read by the role patterns; the main clause
# is read again with it taken out, so what the subject does is read too (and its later predicates).
_ROLE = rf"(?:(?:the|a|an|his|her|their|{SLOT}['’]s?)\s+)?(?:[a-z]+['’]s?\s+)?{ADJ}(?:{ROLE_NOUNS})"
_APPOSED_AFTER = re.compile(rf"^(?P<lead>(?:(?:and|then|now|so)\s+)*)(?P<head>{_HEAD}),\s+{_ROLE},\s+(?P<rest>[a-z].*)$")
_APPOSED_BEFORE = re.compile(rf"^(?P<lead>(?:(?:and|then|now|so)\s+)*)(?:the\s+)?{SLOT}['’]s?\s+{ADJ}(?:{ROLE_NOUNS}),\s+"
                             rf"(?P<head>{_HEAD}),\s+(?P<rest>[a-z].*)$")


def apposition_readings(clause: str) -> list[str]:
    """The main clause of a subject with a role in apposition, the role taken out: "⟨0⟩, ⟨1⟩'s brother, hated
    ⟨2⟩" gives "⟨0⟩ hated ⟨2⟩". A list of three or more names ("⟨0⟩, ⟨1⟩'s brother, and ⟨2⟩") is no
    apposition: the part after the second comma must start with a word of its own, not "and"."""
    if ", " not in clause:
        return []
    readings: list[str] = []
    for pattern in (_APPOSED_AFTER, _APPOSED_BEFORE):
        match = pattern.match(clause)
        if match is not None and match.group("rest").split(None, 1)[0] not in _NOT_A_VERB:
            readings.append(f"{match.group('lead')}{match.group('head')} {match.group('rest')}")
    return readings


def inner_readings(clause: str) -> list[str]:
    """Every clause folded into ``clause`` (its relative clauses, its main clause without them, its later
    predicates), and the later predicates of those: "⟨0⟩, who lived there and hated ⟨1⟩, ..." gives
    "⟨0⟩ hated ⟨1⟩". The clause itself is not among them: the caller has read it already."""
    readings: list[str] = []
    for plain in aside_readings(clause):  # "⟨0⟩, of course, loved ⟨1⟩": the clause without its asides, and its own
        readings.append(plain)
        readings.extend(inner_readings(plain))
    for reading in relative_readings(clause):
        readings.append(reading)
        readings.extend(coordinated_readings(reading))
    for reading in apposition_readings(clause):
        readings.append(reading)
        readings.extend(coordinated_readings(reading))
    readings.extend(coordinated_readings(clause))
    readings.extend(participle_readings(clause))
    # "⟨0⟩ and ⟨1⟩ were the sons of ⟨2⟩" (or a relative clause saying so): once per member
    readings.extend(reading for said in [clause, *readings] for reading in list_readings(said))
    return list(dict.fromkeys(readings))

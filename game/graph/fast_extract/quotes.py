"""Who says a quoted line, and to whom: said-tags, turn-taking and vocatives.

A line's "I" is its speaker and its "you" the one spoken to, so "This is my friend and colleague, Dr.
Watson," said Holmes states a friendship of Holmes's. The speaker comes from a said-tag ("said Holmes",
"returned the King reproachfully", "he remarked" with the one person the paragraph names), from a
paragraph that ends "Tom said:", or, when a line has no tag, from turn-taking: the one spoken to last
answers, or else the other of the two who spoke last. The one spoken to is named in the line ("I think,
Watson, that ...", "Quick, Dorothy!") or is the other of the two. Anything less clear leaves the speaker
unknown, and a line of an unknown speaker states nothing about "I" or "you": precision comes first.

A first-person narrator ("said I") is a voice with no node: ``NARRATOR``. Lines of the narrator keep
turn-taking right, but nothing is stated about them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from game.graph.fast_extract.gazetteer import Entity, NameIndex
from game.graph.fast_extract.name_words import ADDRESS, PERSON_NOUNS, SAY_VERBS
from game.graph.fast_extract.particles import LEAD
from game.graph.fast_extract.people import paragraphs, quoted
from game.graph.fast_extract.ranks import called_by_rank
from game.graph.fast_extract.said import individuals, said_bonds, signed
from game.graph.fast_extract.sentences import Sentence, split_sentences
from game.graph.names import normalize_name
from game.graph.sexes import FEMALE, FRENCH_TITLE_SEX, MALE, titles_of

CONTEXT_PARAGRAPHS = 12
"""How many paragraphs of what was told before are read to know who is talking (never for relations)."""
_QUOTED = re.compile(r"[“\"]")

NARRATOR = Entity("\x00narrator", "the narrator", "individual")
"""The "I" of a first-person story: it takes turns in a conversation and is never a node."""

_AFTER_TAG = (r"with|to|as|in|at|from|without|and|looking|glancing|sitting|lighting|shutting|settling|turning|taking|"
              r"ringing|laughing|grasping|passing|throwing|pausing")
# A title's full stop ("said Mr. Fogg", "Mrs. Hale said", "said M. de Treville") is part of the name, not the end
# of the tag.
_TITLE_DOT = r"(?:(?<=\bMr)|(?<=\bMrs)|(?<=\bMs)|(?<=\bDr)|(?<=\bSt)|(?<=\bCapt)|(?<=\bProf)|(?<=\bCol)|(?<=\bRev)|" \
    r"(?<=\bGen)|(?<=\bLt)|(?<=\bSgt)|(?<=\bMme)|(?<=\bMlle)|(?<=\b[A-Z]))\.(?=\s+(?:[A-Z]|d['’][A-Z]|" rf"{LEAD}\s))"
_WHO = rf"(?:[^,.;:!?—“”\"]|{_TITLE_DOT})"
_TAG_AFTER = re.compile(rf"^\s*,?\s*(?:(?P<verb>{SAY_VERBS})\s+(?P<who>{_WHO}{{1,40}}?)"
                        rf"(?=\s*(?:(?!{_TITLE_DOT})[,.;:!?—“\"]|$|\s+(?:{_AFTER_TAG})\b))"
                        rf"|(?P<who2>{_WHO}{{1,40}}?)\s+(?:\w+ly\s+)?(?P<verb2>{SAY_VERBS})(?:\s+\w+ly\b)?"
                        rf"(?=\s*(?:[,.;:!?—“\"]|$|\s+(?-i:[A-Z])|\s+(?:{_AFTER_TAG})\b)))", re.IGNORECASE)
_TAG_BEFORE = re.compile(rf"(?P<who>[^.;:!?—“”\"]{{1,40}}?)\s+(?:\w+\s+)?(?:{SAY_VERBS})\s*:\s*$|"
                         rf"(?:{SAY_VERBS})\s+(?P<who2>he|she|I)\s*:\s*$", re.IGNORECASE)
_TOLD = re.compile(r"\s+(?:to\s+)?(?P<whom>[A-Z][^,.;:!?—“”\"]{0,40}?)(?=\s*(?:[,.;:!?—“\"]|$))")
_TO_KIN = re.compile(r"\bto\s+(?:his|her)\s+(?P<kin>wife|husband|sister|brother|son|daughter|mother|father|"
                     r"aunt|uncle|nephew|niece|cousin)\b", re.IGNORECASE)
# "our sister Mabel" is the speaker's sister, whoever else she is sister to.
_FIRST = {"i": "{s}", "me": "{s}", "my": "{s}'s", "mine": "{s}'s", "myself": "{s}", "our": "{s}'s"}
_SECOND = {"you": "{a}", "your": "{a}'s", "yours": "{a}'s", "yourself": "{a}",
           "thou": "{a}", "thee": "{a}", "thy": "{a}'s", "thine": "{a}'s", "thyself": "{a}"}
_BE = {("i", "am"): "{s} is", ("i", "was"): "{s} was", ("i", "have"): "{s} has", ("i", "'m"): "{s} is",
       ("you", "are"): "{a} is", ("you", "were"): "{a} was", ("you", "have"): "{a} has", ("you", "'re"): "{a} is",
       ("thou", "art"): "{a} is", ("thou", "wast"): "{a} was", ("thou", "hast"): "{a} has"}
_PERSON_WORD = re.compile(r"\b(?:I|me|my|mine|myself|our|you|your|yours|yourself|thou|thee|thy|thine|thyself)\b"
                          r"(?:\s+(am|was|have|are|were|art|wast|hast)\b|"
                          r"(['’](?:m|re))\b)?", re.IGNORECASE)
_ENTERS = re.compile(r"\b(?:a|an)\s+(?:[\w-]+\s+){0,3}(?:man|woman|gentleman|lady|boy|girl|stranger|youth|"
                     r"figure|person|fellow|seaman|sailor)\s+(?:\w+\s+){0,2}(?:entered|came|appeared|walked|"
                     r"stepped|strode|rushed|burst)\b", re.IGNORECASE)
_ADDRESSED = re.compile(rf"\byour\s+(?:{'|'.join(sorted(ADDRESS))})\b", re.IGNORECASE)
_CONTINUES = re.compile(r"(?:married|engaged|betrothed|marry|wed)\s*[.!,]?$", re.IGNORECASE)
_ASIDE = re.compile(r"\s*\([^()]{1,80}\)")
_KIN_TITLES = ("aunt", "uncle", "cousin")
_KIN_BY_TITLE = re.compile(r"\b(?P<pron>his|her)\s+(?P<kin>aunt|uncle|cousin)\b(?!\s+[A-Z])")


@dataclass(frozen=True)
class Line:
    """One quoted line: its words, who says it and to whom (None: unknown), and how the speaker was found."""

    body: str
    speaker: Entity | None
    addressee: Entity | None
    how: str
    """``tag`` (a said-tag naming them), ``pronoun`` (a tag's he/she, the one person named near it),
    ``turn`` (turn-taking), ``same`` (a speech that runs on from the paragraph before) or ``""``."""
    said_to_kin: str = ""
    """The kin word of "he called to his wife": the one spoken to is the speaker's kin."""

    @property
    def sure(self) -> bool:
        return self.how == "tag"


@dataclass(frozen=True)
class Equation:
    """Two names the text says are one person, why, and whether the speaker was named outright."""

    a: Entity
    b: Entity
    evidence: str
    sure: bool


@dataclass
class Talk:
    """The conversation as it stands between paragraphs: the last two voices and who was spoken to."""

    last: Entity | None = None
    other: Entity | None = None
    spoken_to: Entity | None = None
    named: Entity | None = None
    """The one individual the last paragraph of pure narration named (a later "he said" may mean them)."""
    announced: Entity | None = None
    """Who a paragraph ending "Tom said:" gives the next line to."""
    running: Entity | None = None
    """The speaker of a quote left open at the end of a paragraph (it runs on in the next)."""
    said: dict[str, list[str]] = field(default_factory=dict)
    """Each voice's last few lines, by entity id (a line may finish one before: "To Clotilde ...")."""

    names: dict[str, list[Entity]] = field(default_factory=dict)
    """The names a voice has been given in the conversation ("I am the King"), by voice id."""
    equations: list[Equation] = field(default_factory=list)

    def name(self, who: Entity | None, name: Entity, line: str, sure: bool) -> None:
        """``who`` (a person or a voice) says, or is told, that they are ``name``."""
        if who is None or who is NARRATOR or who.id == name.id:
            return
        if is_voice(who):
            given = self.names.setdefault(who.id, [])
            if given and given[0].id != name.id:
                self.equations.append(Equation(given[0], name, line, False))
            if all(g.id != name.id for g in given):
                given.append(name)
            return
        self.equations.append(Equation(who, name, line, sure))

    def resolved(self, who: Entity | None) -> Entity | None:
        """A voice as the person it said it is (or None); anyone else as themselves."""
        if who is None or who is NARRATOR:
            return who
        if is_voice(who):
            given = self.names.get(who.id)
            return given[0] if given else None
        return who

    def heard(self, speaker: Entity | None, addressee: Entity | None) -> None:
        if speaker is None:
            # A line nobody is known to say, to someone named ("he turned to Hallward and said"): they answer it.
            self.last, self.other, self.spoken_to = None, None, None if is_voice(addressee) else addressee
            return
        if self.last is not None and speaker.id != self.last.id:
            self.other = self.last
        self.last, self.spoken_to = speaker, addressee

    def partner(self, speaker: Entity) -> Entity | None:
        """The other of the two who spoke last, when ``speaker`` is one of them."""
        pair = [e for e in (self.last, self.other) if e is not None]
        if len(pair) == 2 and speaker.id in {e.id for e in pair}:
            return next(e for e in pair if e.id != speaker.id)
        return None


def _who(text: str, index: NameIndex) -> tuple[Entity | None, bool]:
    """A tag's subject: ``(entity, via a pronoun)``; an unknown description is ``(None, False)``."""
    bare = text.strip()
    if re.fullmatch(r"I", bare):
        return NARRATOR, False
    if re.fullmatch(r"(?:he|she)", bare, re.IGNORECASE):
        return None, True
    named = individuals(index, bare)
    return (named[0], False) if len(named) == 1 else (None, False)


# "I am your servant, Mr. Fogg": the role is the speaker's, so the name after it is the one called, not its apposition.
_SELF_AS_YOURS = re.compile(rf"\b(?:i\s+am|i['’]m|we\s+are|i\s+was)\s+(?:your|thy)\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS})\s*,\s*$")


def vocatives(body: str, index: NameIndex) -> list[Entity]:
    """The individuals a line speaks to by name: "My dear Holmes, ...", "I think, Watson, that ...", "Quick,
    Dorothy!". A name after a role noun and a comma is an apposition, not a call ("my friend, Dr. Watson")."""
    found: list[Entity] = []
    norm = body.casefold()
    for mention in index.mentions(body):
        if mention.entity is None or mention.entity.type != "individual":
            continue
        head, tail = norm[:mention.start], norm[mention.end:]
        if not re.search(r"(?:^\W*|,\s|\bdear\s)$", head) or not re.match(r"\s*(?:[,!?]|\.\W*$|\W*$)", tail):
            continue
        if (re.search(rf"\b(?:{PERSON_NOUNS}|and|or|of|to|in|at|from|with)\s*,?\s*$", head)
                and not _SELF_AS_YOURS.search(head)) or re.search(r"[A-Z][\w'’-]*,\s$", body[:mention.start]):
            continue  # "my friend, Dr. Watson" and "von Ormstein, Grand Duke of ...": appositions
        if re.match(r",\s+(?:who|whom|whose|the|a|an|my|his|her)\b", tail):
            continue  # "Dr. Watson, who is occasionally good enough": described, not called
        found.append(mention.entity)
    return found


def rewrite(body: str, line: Line) -> str:
    """The line with "I" as its speaker and "you" as the one spoken to, where they are known."""
    speaker = line.speaker.name if line.speaker is not None and line.speaker is not NARRATOR else None
    addressee = line.addressee.name if line.addressee is not None and line.addressee is not NARRATOR else None

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        first = word.split()[0].split("'")[0].split("’")[0].casefold()
        verb = (match.group(1) or match.group(2) or "").casefold().replace("’", "'")
        name = speaker if first in _FIRST else addressee
        if name is None:
            return word
        if verb and (first, verb) in _BE:
            return _BE[(first, verb)].format(s=name, a=name)
        form = (_FIRST.get(first) or _SECOND[first]).format(s=name, a=name)
        return f"{form} {match.group(1)}" if match.group(1) else form

    if addressee is not None:
        body = _ADDRESSED.sub(addressee, body)  # "If your Majesty would condescend": the one spoken to
    return _PERSON_WORD.sub(swap, body)


def _voice(description: str) -> Entity:
    """Someone the text describes but does not name ("our strange visitor"): a voice in the conversation,
    the same voice whenever the same words describe it."""
    words = " ".join(description.casefold().split())
    return Entity(f"\x00voice:{words}", words, "voice")


def is_voice(entity: Entity | None) -> bool:
    """Whether an entity is a voice (the narrator, someone described) rather than a node."""
    return entity is not None and entity.id.startswith("\x00")


_SELF_NAMED = re.compile(r"(?:\bI\s+am|\bI['’]m|\baddress\s+me\s+as|\bcall\s+me|\bmy\s+name\s+is|\bunder\s+the\s+name\s+of|"
                         r"\bI\s+am\s+called|\bknown\s+as)\s+(?:the\s+)?$", re.IGNORECASE)
_OTHER_NAMED = re.compile(r"(?:\bI\s+was\s+addressing|\bI\s+am\s+addressing|\byou\s+are|\byou\s+must\s+be)\s+(?:the\s+)?$",
                          re.IGNORECASE)


def _named_in(body: str, index: NameIndex) -> tuple[list[Entity], list[Entity]]:
    """Who a line says its speaker is ("I am the King") and who it says the one spoken to is."""
    mine: list[Entity] = []
    theirs: list[Entity] = []
    for mention in index.mentions(body):
        if mention.entity is None or mention.entity.type != "individual":
            continue
        head = body[:mention.start]
        if _SELF_NAMED.search(head):
            mine.append(mention.entity)
        elif _OTHER_NAMED.search(head):
            theirs.append(mention.entity)
    return mine, theirs


def attribute(paragraph: str, index: NameIndex, talk: Talk) -> list[Line]:
    """Every quoted line of one paragraph with its speaker and addressee; ``talk`` moves on past it."""
    spans = quoted(paragraph)
    if not spans:
        named = individuals(index, paragraph)
        talk.named = named[0] if len(named) == 1 else None
        if not named and _ENTERS.search(paragraph):
            # "A man entered who ...": someone new, not yet named, is the next "he".
            talk.named, talk.spoken_to = _voice(f"newcomer {len(talk.names) + len(talk.said)}"), None
        # Only a paragraph that ends in a colon can hand the next line to a speaker ("Tom said:").
        before = _TAG_BEFORE.search(paragraph[-80:]) if paragraph.rstrip().endswith(":") else None
        talk.announced = None
        if before is not None:
            talk.announced, pronoun = _who(before.group("who") or before.group("who2") or "", index)
            if talk.announced is None and pronoun:
                talk.announced = talk.named
            elif talk.announced is None:
                inside = individuals(index, before.group("who") or "")
                talk.announced = inside[0] if len(inside) == 1 else None
        return []
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        pieces.append(paragraph[cursor:start])
        cursor = end
    pieces.append(paragraph[cursor:])
    named_here = individuals(index, " ".join(pieces))
    speaker: Entity | None = None
    how = ""
    kin = ""
    tagged = False
    tag_addressee: Entity | None = None
    # "“I'm the oldest,” began Meg, but Jo cut in with a decided, “I'm the man ...”": narration naming one
    # person and ending in a comma or colon hands the next quote to them, whoever spoke the one before.
    handed: dict[int, Entity] = {}
    tag_span = 0
    for number, (_start, end) in enumerate(spans):
        after = paragraph[end:spans[number + 1][0] if number + 1 < len(spans) else len(paragraph)]
        # A quote that ends its sentence with a full stop takes no tag: “... for a long time.” She didn't say
        tag = _TAG_AFTER.match(after) if not paragraph[:end].rstrip("”\"' ").endswith(".") else None
        if number + 1 < len(spans):
            rest = after[tag.end():] if tag is not None else after
            lead = _lead_in(rest, index)
            if lead is not None:
                handed[number + 1] = lead
        if tag is not None and tagged:
            # "“Proud, I'm sure,” said the Otter": a later quote's own tag gives it (and what follows) its speaker.
            later, by_pronoun = _who(tag.group("who") or tag.group("who2") or "", index)
            if later is None and by_pronoun:
                # "“...?” Mary asked. Martha began to rub her grate again. “I'm ...,” she said": the doer before
                later = _doer_before(paragraph[spans[number - 1][1]:_start], index, tag.group("who") or tag.group("who2"))
            if later is not None and later is not NARRATOR:
                handed.setdefault(number, later)
        if tag is None or tagged:
            continue
        tagged, tag_span = True, number
        words = tag.group("who") or tag.group("who2") or ""
        who, pronoun = _who(words, index)
        if who is not None:
            speaker, how = who, "tag"
        elif pronoun and len(named_here) == 1:
            speaker, how = named_here[0], "pronoun"
        elif pronoun and len(_of_gender(named_here, words)) == 1:
            # "“What is it, Son?” she said" in a paragraph naming Mowgli and Mother Wolf: the one woman
            speaker, how = _of_gender(named_here, words)[0], "pronoun"
        elif pronoun and (doer := _doer_before(paragraph[spans[number - 1][1] if number else 0:_start], index,
                                               words)) is not None:
            speaker, how = doer, "pronoun"
        elif pronoun and not named_here and talk.named is not None:
            speaker, how = talk.named, "pronoun"
        elif pronoun:
            speaker, how = _turn(talk)
        else:
            speaker, how = _voice(words), "tag"
        kin_said = _TO_KIN.search(after[:80])
        kin = kin_said.group("kin").casefold() if kin_said else ""
        told = _TOLD.match(after[tag.end():]) if tag.group("who2") else None
        if told is not None:
            # "Sam Reed asks Edda Marsh": the tag names the one spoken to.
            hearers = individuals(index, told.group("whom"))
            tag_addressee = hearers[0] if len(hearers) == 1 else None
    before_first = paragraph[:spans[0][0]]
    lead_speaker, lead_addressee = _said_before(before_first, index)
    if lead_speaker is not None and (not tagged or tag_span > 0):
        # "as Jo said sadly, “We haven't got Father ...” ... “perhaps never,” but each silently added it":
        # the tag before the first quote is its speaker's; a later quote's own tag speaks from there on.
        if tagged and speaker is not None:
            handed.setdefault(tag_span, speaker)
        speaker, how, tagged = lead_speaker, "tag", True
    if tag_addressee is None and lead_addressee is not None and (speaker is None or lead_addressee.id != speaker.id):
        tag_addressee = lead_addressee
    opens = not paragraph[:spans[0][0]].strip()
    if not tagged:
        if talk.running is not None and opens:
            speaker, how = talk.running, "same"
        elif talk.announced is not None and opens:
            speaker, how = talk.announced, "tag"
        elif opens:
            speaker, how = _turn(talk)
    talk.announced = None
    bodies = [paragraph[s:e].strip("“”\" ") for s, e in spans]
    every_call = [v for body in bodies for v in vocatives(body, index)]
    if speaker is not None and how in {"turn", "pronoun"} and any(v.id == speaker.id for v in every_call):
        # Turn-taking gave the line to the one it calls by name ("My dear Holmes," said he): the other speaks.
        speaker = talk.partner(speaker)
    called = [v for v in every_call if speaker is None or v.id != speaker.id]
    addressee: Entity | None = called[0] if called else tag_addressee
    if addressee is None and speaker is not None:
        addressee = talk.partner(speaker) or (talk.last if talk.last is not None and talk.last.id != speaker.id
                                              else None)
    if addressee is None and speaker is not None and how in {"tag", "pronoun"}:
        # "“Look at me,” said Bagheera. And Mowgli looked at him ...": the one other person the narration
        # around the lines names is the one they are said to.
        others = [e for e in named_here if e.id != speaker.id]
        addressee = others[0] if len(others) == 1 else None
    if addressee is None:  # "“Sire,” said the Cardinal": the story's one king, when nothing else says who
        ranked = [e for body in bodies for e in called_by_rank(body, index) if speaker is None or e.id != speaker.id]
        addressee = ranked[0] if ranked else None
    lines: list[Line] = []
    first_speaker = speaker
    for number, body in enumerate(bodies):
        if number in handed and (speaker is None or handed[number].id != speaker.id):
            speaker, how = handed[number], "tag"
            addressee = first_speaker if first_speaker is not None and first_speaker.id != speaker.id else None
        earlier = next((said for said in reversed(talk.said.get(speaker.id, [])) if _CONTINUES.search(said)), None) \
            if speaker is not None and re.match(r"to\s+[A-Z]", body, re.IGNORECASE) else None
        if earlier is not None:
            # "I am about to be married." ... "To Clotilde Lothman von Saxe-Meningen": one sentence.
            body = f"{earlier.rstrip('.!, ')} {body[0].lower()}{body[1:]}"
        mine, theirs = _named_in(body, index)
        for name in mine:
            talk.name(speaker, name, body, how == "tag")
        for name in theirs:
            talk.name(addressee, name, body, False)
        lines.append(Line(body, talk.resolved(speaker), talk.resolved(addressee), how, kin))
    if speaker is not None and lines:
        talk.said[speaker.id] = [*talk.said.get(speaker.id, [])[-2:], lines[-1].body]
    talk.heard(speaker, addressee)
    last_start, last_end = spans[-1]
    closed = paragraph[last_end - 1:last_end] in {"”", '"'} and last_end - last_start > 1
    talk.running = speaker if not closed else None
    talk.named = None
    return lines


_LEAD_END = re.compile(r"[,:]\s*(?:—\s*)?$")
_TURNED_TO = re.compile(r"(?:(?:and|then|but)\s+)?(?P<who>he|she|[A-Z][^,.;:!?—“”\"]{0,40}?)\s+(?:\w+ly\s+)?(?:turned|looked|went|came|stepped|"
                        r"leaned|bent|glanced|smiled|nodded)\s+(?:round\s+|back\s+|up\s+|over\s+)?(?:to|towards?|at|up\s+to)\s+"
                        r"(?P<whom>[A-Z][^,.;:!?—“”\"]{0,40}?)\s+and(?:\s+\w+ly)?$", re.IGNORECASE)
_SAID_BEFORE = re.compile(rf"(?P<who>[^.;!?“”\"]{{1,60}}?)\s+(?:\w+ly\s+)?(?:{SAY_VERBS})(?:\s+(?:un)?to\s+"
                          rf"(?P<whom>[A-Z][^,.;:!?—“”\"]{{0,40}}?))?(?=\s|,|:|$)", re.IGNORECASE)


def _lead_in(narration: str, index: NameIndex) -> Entity | None:
    """The one person a stretch of narration between two quotes names, when it leads into the next ("but
    Jo cut in with a decided,"): the next quote is theirs."""
    if not _LEAD_END.search(narration) or re.search(r"[.!?]\s", narration):
        return None
    named = individuals(index, narration)
    return named[0] if len(named) == 1 else None


def _said_before(narration: str, index: NameIndex) -> tuple[Entity | None, Entity | None]:
    """Speaker and addressee of a tag before a paragraph's first quote: "he said to Mowgli when they were
    deep in the jungle, “...”", "Tabaqui, behind him, was squeaking: “...”". Only the last sentence counts,
    and only when it leads into the quote (a comma or colon)."""
    if not _LEAD_END.search(narration):
        return None, None
    last = re.split(r"(?<=[.!?])\s+", narration.strip())[-1]
    tag = _SAID_BEFORE.search(last)
    whom: Entity | None = None
    if tag is not None and tag.group("whom"):
        hearers = individuals(index, tag.group("whom"))
        whom = hearers[0] if len(hearers) == 1 else None
    if tag is not None:
        words = tag.group("who").split(",")[-1].split(";")[-1].strip()
        turned = _TURNED_TO.match(words)
        if turned is not None:
            # "He turned to Hallward and said, “...”": the one turned to is spoken to, and the speaker is the
            # one who turned ("he" someone else than Hallward)
            hearers = individuals(index, turned.group("whom"))
            whom = hearers[0] if len(hearers) == 1 and whom is None else whom
            words = turned.group("who")
        who, pronoun = _who(words, index)
        if pronoun:
            # "the Mole, limp and dejected, took his seat ...; and as they set off, he said": the one named
            named = [e for e in individuals(index, last) if whom is None or e.id != whom.id]
            who = named[0] if len(named) == 1 else None
        return (None if who is NARRATOR else who), whom
    named = individuals(index, last)
    return (named[0] if len(named) == 1 and re.search(r":\s*$", last) else None), whom


_OPENS = re.compile(r"(?:(?:and|then|but|so|now)\s+)?(?:the\s+)?", re.IGNORECASE)


def _doer_before(narration: str, index: NameIndex, pronoun: str) -> Entity | None:
    """Who a quote tagged "she said" belongs to when the paragraph names several: the one whose name opens
    the whole sentence just before the quote ("Martha began to rub her grate again. “I'm ...,” she said"),
    unless a title says they are not a "she". Anything less plain is nobody."""
    text = narration.strip()
    if not text or text[-1] not in ".!?" or _QUOTED.search(text):
        return None
    last = re.split(r"(?<=[.!?])\s+", text)[-1]
    mentions = [m for m in index.mentions(last) if m.entity is not None]
    opening = _OPENS.match(last)
    doer = mentions[0].entity if mentions else None
    if doer is None or opening is None or mentions[0].start != opening.end() or doer.type != "individual" \
            or not re.match(r"\s+[a-z]", last[mentions[0].end:]):
        return None
    other = "she" if pronoun.strip().casefold() == "he" else "he"
    return None if _of_gender([doer], other) else doer


def _turn(talk: Talk) -> tuple[Entity | None, str]:
    """Turn-taking: the one spoken to last answers, or else the other of the two who spoke last; when only
    one has spoken, someone not yet named answers them."""
    if talk.spoken_to is not None:
        return talk.spoken_to, "turn"
    if talk.last is not None and talk.other is not None:
        return talk.other, "turn"
    if talk.last is not None:
        return _voice(f"whoever answers {talk.last.name}"), "turn"
    return None, ""


# A quote closed and another opened with nothing between is two turns run together (paragraphs joined when
# a story was copied onto one line): “Where was it?” “Don't look so angry, Basil.”
_TURN_BREAK = re.compile(r"(?<=”)\s+(?=“)|(?<=[.,!?—-]\")\s+(?=\"[A-Z])")


def turns(text: str) -> list[str]:
    """``text``'s paragraphs, each split where one quote ends and the next begins with no narration between."""
    return [turn for paragraph in paragraphs(text) for turn in _TURN_BREAK.split(paragraph)]


def read_dialogue(text: str, index: NameIndex, talk: Talk | None = None) -> list[tuple[str, list[Line]]]:
    """Each paragraph of ``text`` (on one line) with its quoted lines attributed, in order."""
    talk = talk if talk is not None else Talk()
    return [(paragraph, attribute(paragraph, index, talk)) for paragraph in turns(text)]


@dataclass(frozen=True)
class Unit:
    """A sentence as the patterns read it (dialogue's "I" and "you" replaced), and the words it came from."""

    sentence: Sentence
    evidence: str
    speaker: str = ""
    """The name of the person saying it, when it is a quoted line of someone known."""
    quoted: bool = False
    """Whether it is a quoted line (whoever says it): its "he" and "her" are not the narration's."""
    sure: bool = False
    """Whether its speaker was named by a said-tag (not guessed from turn-taking)."""


@dataclass
class Reading:
    """A text's units in order, and the kin a said-tag states ("he called to his wife")."""

    units: list[Unit] = field(default_factory=list)
    kin: list[tuple[Entity, Entity, str]] = field(default_factory=list)
    bonds: list[tuple[Entity, str, Entity, str]] = field(default_factory=list)
    """``(source, relation, target, evidence)`` stated by who says what to whom: "my lord" (the speaker
    serves the one spoken to), a letter signed "Your affectionate brother, R. Walton"."""
    talk: Talk = field(default_factory=Talk)


def reading_units(text: str, index: NameIndex, before: str = "", talk: Talk | None = None) -> Reading:
    """``text`` as units for the patterns: its sentences as written when it quotes nobody; else each
    paragraph's narration as written and each quoted line as its speaker's words, "I" and "you" replaced
    where the speaker and the one spoken to are known. ``before`` only sets up who is talking."""
    reading = Reading(talk=talk if talk is not None else Talk())
    reading.bonds.extend(signed(text, index))
    if not _QUOTED.search(text):
        reading.units = [_narrated(s, index) for s in split_sentences(text)]
        return reading
    if before.strip() and _QUOTED.search(before):
        for paragraph in turns(before)[-CONTEXT_PARAGRAPHS:]:
            attribute(paragraph, index, reading.talk)
    for paragraph in turns(text):
        lines = attribute(paragraph, index, reading.talk)
        spans = quoted(paragraph)
        cursor = 0
        narration: list[str] = []
        for start, end in spans:
            narration.append(paragraph[cursor:start])
            cursor = end
        narration.append(paragraph[cursor:])
        told = " ".join(piece.strip(" ,") for piece in narration if piece.strip(" ,.;:—"))
        reading.units.extend(_narrated(s, index) for s in split_sentences(told))
        for line in lines:
            said = rewrite(line.body, line)
            ours, theirs = split_sentences(said), split_sentences(line.body)
            who = line.speaker.name if line.speaker is not None and not is_voice(line.speaker) else ""
            for number, sentence in enumerate(ours):
                words = theirs[number].text if len(theirs) == len(ours) else line.body
                plain = Sentence(_ASIDE.sub("", sentence.text), sentence.question)
                reading.units.append(Unit(plain, f"{who}: “{words}”" if who else words, who, True, line.sure))
            speaker = None if is_voice(line.speaker) else line.speaker
            addressee = None if is_voice(line.addressee) else line.addressee
            if line.said_to_kin and speaker is not None and addressee is not None:
                reading.kin.append((speaker, addressee, paragraph))
            kin, bonds = said_bonds(line.body, speaker, addressee, index, paragraph)
            reading.kin.extend(kin)
            reading.bonds.extend(bonds)
    return reading


_GENDERED = {"he": frozenset({"mr", "mister", "sir", "lord", "king", "prince", "duke", "count", "baron", "uncle", "father",
                              "brother", "emperor"}) | titles_of(MALE, FRENCH_TITLE_SEX),
             "she": frozenset({"mrs", "miss", "ms", "madame", "mademoiselle", "lady", "mistress", "queen", "princess",
                               "duchess", "countess", "baroness", "aunt", "mother", "sister", "empress", "widow"})
             | titles_of(FEMALE, FRENCH_TITLE_SEX)}


def _of_gender(people: list[Entity], pronoun: str) -> list[Entity]:
    """The people whose title says they are a "he" or a "she" ("Mother Wolf", "Mrs. Rachel"), of those named."""
    word = pronoun.strip().casefold()
    if word not in _GENDERED:
        return []
    return [e for e in people if set(normalize_name(e.name).replace(".", "").split()[:1]) & _GENDERED[word]]


def _narrated(sentence: Sentence, index: NameIndex) -> Unit:
    """A sentence of narration as the patterns read it: asides in brackets left out ("Tom's younger brother
    (or rather half-brother) Sid"), and "her aunt" named when the story has one aunt who is its subject's:
    "Dorothy ... started to follow her aunt" with Aunt Em the only aunt reads "Dorothy's aunt Aunt Em"."""
    text = _ASIDE.sub("", sentence.text)
    kin = _KIN_BY_TITLE.search(text)
    if kin is not None:
        named = [m for m in index.mentions(text) if m.entity is not None and m.entity.type == "individual"]
        titled = {e.id: e for key, held in index.names.items() for e in held
                  if e.type == "individual" and key.split()[:1] == [kin.group("kin")]}
        subject = named[0].entity if named and named[0].start <= 4 else None
        if subject is not None and len(titled) == 1:
            (relative,) = titled.values()
            if relative.id != subject.id:
                text = f"{text[:kin.start()]}{subject.name}'s {kin.group('kin')} {relative.name}{text[kin.end():]}"
    return Unit(Sentence(text, sentence.question), sentence.text)

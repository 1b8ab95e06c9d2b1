"""The fast path itself: sentences, names and pronouns as slots, patterns over clauses, triples out.

Each sentence is normalized the way names are (``game.graph.names``), its mentions found through the
gazetteer, and each mention or resolvable pronoun replaced by a slot, so patterns read
"⟨0⟩ is afraid of ⟨1⟩" whatever the names' script or length. What a clause may say is decided by its
guards (``sentences``); who a slot is, by the gazetteer and the pronoun rule below.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations

from game.graph.fast_extract.clauses import inner_readings
from game.graph.fast_extract.feelings import FEELINGS, OWNED_FEELING, feeling_kept
from game.graph.fast_extract.gazetteer import Entity, Mention, NameIndex
from game.graph.fast_extract.genders import Genders, points_ahead
from game.graph.fast_extract.lists import PAIRED_OFF
from game.graph.fast_extract.named_roles import NAME_GIVEN_AFTER, name_given, named_next
from game.graph.fast_extract.particles import PARTICLE_WORDS, written_as_name
from game.graph.fast_extract.patterns import (
    ADJ,
    CHINESE,
    ENGLISH,
    ROLE_NOUNS,
    SERVANT,
    SLOT,
    Pattern,
    Shape,
    vocabulary_patterns,
)
from game.graph.fast_extract.possessives import POSSESSIVE, ended, may_own, owner_of
from game.graph.fast_extract.prose_patterns import (
    PROSE,
    bonds_between,
    bonds_named,
    listed_kin,
    named_pairs,
    the_two,
    titled_kin,
)
from game.graph.fast_extract.results import Close, Cooccurrence, Extraction, Triple
from game.graph.fast_extract.sentences import (
    ENDED_MARK,
    Sentence,
    conditional,
    mark_ended,
    split_clauses,
    stated,
)
from game.graph.fast_extract.spouses import Spouses
from game.graph.fast_extract.units import genders_read, read_units
from game.graph.names import normalize_name
from game.graph.vocabulary import Vocabulary

MAX_CONFIDENCE = 0.7
"""Below the model extractor's: a fast-path fact is a lead, to be confirmed or replaced by enrichment."""
PRONOUN_PENALTY = 0.1
STRENGTH = 0.5
STRENGTHS: dict[str, float] = {
    "ALLY_OF": STRENGTH, "TRUSTS": STRENGTH, "LOVES": STRENGTH, "KIN_OF": STRENGTH, "MEMBER_OF": STRENGTH,
    "LEADS": STRENGTH, "SERVES": STRENGTH, "OWES": STRENGTH, "KNOWS_SECRET_OF": STRENGTH,
    "RIVAL_OF": -STRENGTH, "ENEMY_OF": -STRENGTH, "DISTRUSTS": -STRENGTH, "FEARS": -STRENGTH, "HATES": -STRENGTH,
    "KNOWS": 0.2, "ENGAGED_TO": STRENGTH,
}
"""The sign each default relation means (``OWES`` and ``KNOWS_SECRET_OF`` are bonds of weight, positive
as the shipped worlds write them); a world's own relation, whose sign the text cannot tell, is neutral."""

_SAID_TO_KIN = Pattern("dialogue", "KIN_OF", re.compile("$^"), 0.6)
_NAMED_KIN = Pattern("prose", "KIN_OF", re.compile("$^"), 0.6)
_NEVER = re.compile("$^")
_SAID_TO_LORD = Pattern("dialogue", "SERVES", _NEVER, 0.55)
# "not a creature to be trusted" says distrust, not its absence: read as one word, past the negation guard.
_UNTRUSTED = re.compile(r"\s+(?:not|never)\s+(?:(?:a|an|one)\s+(?:[a-z]+\s+)?)?to\s+be\s+trusted\b")
# "not her brother Tom": a noun phrase is guarded by the word just before it as well as by its own words.
_NEGATED_BEFORE = re.compile(r"(?:\b(?:not|no|nor|never|neither)|n't)\s+(?:(?:even|only|just)\s+)?$")
_APPOSED = re.compile(r"\s*(?:,|;|\.|$)")
# What may follow a role said of a name before it ("Colin was her cousin, and ..."), and the copula between.
_ROLE_ENDS = re.compile(r"\s*(?:,|;|\.|!|$|\s(?:and|but|who|whom)\b)")
_HELD_BY = re.compile(r"\s+(?:was|is|had\s+been|has\s+been)\s+(?:(?:old|young|little|poor)\s+)?")
_COPULA = re.compile(r"(?:,\s+who)?\s+(?:is|was|had\s+been|has\s+been|became)\s+")
_PRONOUN = re.compile(r"\b(?:he|she|they)\b|(?<!其)[他她](?![们們])")
# "Basil was a little boy ..., and Mary hated him": an object pronoun is someone other than the one doing,
# so of those named before it the last (its verb's subject) is passed over. Only one that ends its phrase
# ("loved her, and"): "her sister Eliza" is a possessive, and "took unto him two wives" a phrase of its own.
# A preposition or a manner adverb after it ends the phrase too ("served him as a clerk", "served him
# faithfully"): no possessive "her" stands before one.
# "Him" owns nothing, so any adverb after it ends its phrase ("feared him bitterly"); after "her" only words no
# adjective follows ("loved her more than", "hated her heartily").
_OBJECT = re.compile(r"\b(?:him|her)(?=\s*(?:$|[,.;:!?—-]|(?:and|but|or|again|too|very|so|dearly|deeply|truly|as|for|"
                     r"with|at|in|into|from|since|until|faithfully|loyally|well|still|ever|always|more|less|above|"
                     r"beyond|than|like|heartily|passionately|tenderly|madly|sincerely)\b))|\bhim(?=\s+[a-z]+ly\b)")
_SUBJECT_OF: dict[str, str] = {"him": "he", "her": "she"}
# "“Jean, my new servant, will carry the bags,” said Mr. Tallis": a master naming their servant states a post
# they hold, not another's feeling about them, so it is kept as the speaker's employing (when a said-tag names
# the speaker: a line turn-taking gave may be the servant's own "you are in my service" turned round).
_MY_SERVANT = re.compile(rf"\bmy\s+{ADJ}(?:{SERVANT})\b|\bin\s+my\s+(?:service|employ|employment|pay)\b")
_SLOT_NUMBER = re.compile(r"⟨(\d+)⟩")
_SLOT_START = re.compile(rf"(?:the\s+)?{SLOT}")
_LEFT_WORDS = frozenset({
    "and", "that", "because", "since", "so", "now", "then", "when", "as", "yet", "today", "tonight",
    "clearly", "plainly", "obviously", "also", "everyone", "all", "knew", "knows", "said", "says", "after", "how",
    # a word of a name's own description: "Old Joseph, the servant of Mr. Earn"
    "old", "young", "little", "poor",
})
_AFTER_ROLE = re.compile(rf"{SLOT}'s?\s+{ADJ}(?:{ROLE_NOUNS}),?$")
_PLURAL_HEAD = re.compile(r"(?:^|[,;:—]\s*)(?:the|both)\s+(?:(?:two|three|four|young|little|elder|old)\s+)*(?:sisters|"
                          r"brothers|cousins|twins|siblings|friends|comrades|companions|boys|girls|children),?$")
_LEFT_PUNCTUATION = set(",;:\"'(“‘「『—-")
_PRONOUN_WORDS: dict[str, frozenset[str]] = {
    "he": frozenset({"he", "him", "his", "male", "man", "m"}), "他": frozenset({"he", "him", "his", "male", "man", "m"}),
    "she": frozenset({"she", "her", "hers", "female", "woman", "f"}),
    "她": frozenset({"she", "her", "hers", "female", "woman", "f"}),
    "they": frozenset({"they", "them", "their", "nonbinary", "non-binary"}),
}


def all_patterns(vocabulary: Vocabulary) -> list[Pattern]:
    """Every pattern the extractor tries: the specific English ones, then prose's, Chinese, the vocabulary's."""
    return [*ENGLISH, *PROSE, *FEELINGS, *CHINESE, *vocabulary_patterns(vocabulary)]


@dataclass(frozen=True)
class Slot:
    """Who a slot in a template stands for; ``entity`` None when the name or pronoun is ambiguous."""

    entity: Entity | None
    pronoun: bool


@dataclass
class _Context:
    """The individuals the last naming sentence named: what a later "she" may mean; in narration, what the
    text says of its people's genders (``genders``: a quoted line's "he" is its speaker's frame)."""

    individuals: list[Entity] = field(default_factory=list)
    genders: Genders | None = None


class FastExtractor:
    """Reads triples out of text with one vocabulary's patterns (built once, reused for every text)."""

    def __init__(self, vocabulary: Vocabulary | None = None, patterns: Sequence[Pattern] | None = None) -> None:
        self.vocabulary = vocabulary or Vocabulary.default()
        self.patterns = list(patterns) if patterns is not None else all_patterns(self.vocabulary)

    def extract(self, text: str, index: NameIndex, before: str = "") -> Extraction:
        """Every triple, close, co-occurrence and unknown name in ``text``, against ``index``'s names.

        Quoted lines are read with "I" and "you" as their speaker and the one spoken to (``dialogue``);
        ``before`` is the text told just before (a game's last turns, a story's last paragraphs): it is
        not read for relations, only for who is talking to whom when ``text`` begins."""
        result = Extraction()
        seen: set[tuple[str, str, str, bool]] = set()
        pairs: Counter[tuple[str, str]] = Counter()
        unknown: dict[str, str] = {}
        previous = ""
        previous_slots: list[Slot] = []
        last_named: list[Entity] = []
        strangers: list[str] = []
        reading, read = read_units(text, index, before)
        context = _Context(genders=genders_read(read))
        spouses = Spouses()  # the marriages read so far: "her husband" is the one the story has stated
        for unit, norm, mentions in read:
            sentence = unit.sentence
            # A line nobody is known to say has no speaker to tell its "her" from: only the line's own names.
            slots, template = self._template(norm, mentions, context if unit.speaker or not unit.quoted else _Context(),
                                             unit.speaker)
            # a quoted line's "her husband" is in its speaker's frame: not read (``spouses``)
            slots, template = spouses.named(template, slots, lambda who: Slot(who, True), context.individuals,
                                            context.genders, unit.quoted)
            named = _unique(m.entity for m in mentions if m.entity is not None)
            for a, b in combinations(sorted(named, key=lambda e: (e.name, e.id)), 2):
                pairs[(a.name, b.name)] += 1
            just_before, last_named = last_named, [e for e in named if e.type == "individual"]
            if last_named:
                context.individuals = last_named
            known = [norm[m.start:m.end] for m in mentions]
            strangers, before_strangers = unknown_names(sentence.text, index, known), strangers
            for name in strangers:
                unknown.setdefault(name.casefold(), name)
            if sentence.question:
                continue
            told = Sentence(unit.evidence, sentence.question)
            kept = (len(result.triples), len(result.closes))
            names = [slot.entity.name if slot.entity is not None else None for slot in slots]
            for one, other, _why in [*named_pairs(template, previous), *titled_kin(template, names),
                                     *_guarded(listed_kin(template), template)]:
                first, second = slots[int(one.strip("⟨⟩"))], slots[int(other.strip("⟨⟩"))]
                if first.entity is not None and second.entity is not None:
                    self._emit(_NAMED_KIN, first.entity, second.entity, first.pronoun or second.pronoun, False, told,
                               result, seen)
            pair = the_two(template)
            if pair is not None and len(just_before) == 2 and not before_strangers:
                # "Tom walked beside Will. The two friends said nothing": the two the sentence before named
                # (and no other name in it that might be a third person)
                said = _NAMED_KIN if pair == "KIN_OF" else Pattern("prose", pair, _NEVER, 0.55)
                self._emit(said, just_before[0], just_before[1], False, False, told, result, seen)
            template = name_given(template)
            given = named_next(previous, template)
            if given is not None:
                # "... going to your uncle. His name is Mr. Archibald Craven.": the role and its name as one phrase
                owner, role, holder = given
                self._read_clause(f"⟨0⟩'s {role} ⟨1⟩", [previous_slots[int(owner.strip("⟨⟩"))],
                                                        slots[int(holder.strip("⟨⟩"))]], told, result, seen,
                                  spouses)
            previous, previous_slots = template, slots
            subject = ""
            for start, end in split_clauses(template):
                clause = template[start:end]
                subject, clause = _carry_subject(subject, clause)
                self._read_clause(clause, slots, told, result, seen, spouses)
                if "⟨" in clause and not conditional(template):
                    for inner in inner_readings(clause):  # "⟨0⟩, who loved ⟨1⟩, ...", "⟨0⟩ rose and hated ⟨1⟩"
                        self._read_clause(inner, slots, told, result, seen, spouses)
                for one, other, relation in _guarded(bonds_between(clause, stated) + bonds_named(clause, stated), clause,
                                                       hedged=False):
                    first, second = slots[int(one.strip("⟨⟩"))], slots[int(other.strip("⟨⟩"))]
                    if first.entity is not None and second.entity is not None:
                        self._emit(Pattern("prose", relation, _NEVER, 0.55), first.entity, second.entity,
                                   first.pronoun or second.pronoun, False, told, result, seen)
            if unit.speaker:
                employs = unit.sure and bool(_MY_SERVANT.search(normalize_name(unit.evidence)))
                self._claims_dropped(result, kept, unit.speaker, employs)
        for source, target, evidence in reading.kin:
            # "“There's a cyclone coming, Em,” he called to his wife": the one spoken to is kin.
            self._emit(_SAID_TO_KIN, source, target, False, False, Sentence(evidence, False), result, seen)
        for source, relation, target, evidence in reading.bonds:
            said = _SAID_TO_LORD if relation == "SERVES" else Pattern("dialogue", relation, _NEVER, 0.55)
            self._emit(said, source, target, False, False, Sentence(evidence, False), result, seen)
        result.cooccurrences = [Cooccurrence(a, b, n) for (a, b), n in
                                sorted(pairs.items(), key=lambda item: (-item[1], item[0]))]
        result.unknown_names = list(unknown.values())
        return result

    def _claims_dropped(self, result: Extraction, kept: tuple[int, int], speaker: str, employs: bool = False) -> None:
        """A speaker states their own bonds ("my friend", "I am to marry"), not how others feel about
        them: "Tomas trusts me," said Mira is Mira's claim, and claims are not kept. A line naming "my
        servant" (``employs``) states the speaker's own post as a master: its service is kept."""
        def claim(target: str, relation: str) -> bool:
            if employs and relation == "SERVES":
                return False
            return target == speaker and not self.vocabulary.is_symmetric(relation)

        result.triples[kept[0]:] = [t for t in result.triples[kept[0]:] if not claim(t.target, t.relation)]
        result.closes[kept[1]:] = [c for c in result.closes[kept[1]:] if not claim(c.target, c.relation)]

    # ------------------------------------------------------------------------------------ templates

    def _template(self, norm: str, mentions: list[Mention], context: _Context, voice: str = "") -> tuple[list[Slot], str]:
        """The sentence with names and resolvable pronouns as slots, and who each slot is. In a quoted line of
        ``voice``, "he", "her" and "his" are someone else: the speaker says "I" and "my"."""
        if voice:
            context = _Context([e for e in context.individuals if e.name != voice])
            mentions_seen = [m for m in mentions if m.entity is None or m.entity.name != voice]
        else:
            mentions_seen = mentions
        spans: list[tuple[int, int, Slot]] = [(m.start, m.end, Slot(m.entity, False)) for m in mentions]
        # Within a sentence a pronoun repeated keeps its referent ("he owes Veyra, he owes Tomas"), and
        # one already resolved counts among the people named before the next.
        resolved: dict[str, Entity | None] = {}
        for match in _PRONOUN.finditer(norm):
            if any(s < match.end() and match.start() < e for s, e, _ in spans):
                continue
            pronoun = match.group()
            if pronoun not in resolved:
                before = [m.entity for m in mentions_seen if m.end <= match.start() and m.entity is not None
                          and m.entity.type == "individual"]
                before.extend(e for e in resolved.values() if e is not None)
                beside = {m.entity.id for m in mentions if m.entity is not None
                          and re.fullmatch(r"\s+and\s+", norm[m.end:match.start()])}
                earlier = context
                if points_ahead(norm, match.start(), match.end(), mentions):
                    resolved[pronoun] = None  # "Before he left, Tom ...", "he who hesitates"
                    spans.append((match.start(), match.end(), Slot(None, True)))
                    continue
                if beside:
                    # "Scrooge and he were partners": the one named beside "he" is not "he"
                    before = [e for e in before if e.id not in beside]
                    earlier = _Context([e for e in context.individuals if e.id not in beside], context.genders)
                resolved[pronoun] = _resolve(pronoun, before, earlier)
            spans.append((match.start(), match.end(), Slot(resolved[pronoun], True)))
        objects: set[int] = set()
        object_read: dict[str, Entity | None] = {}  # "Hindley hated him, and Catherine loved him": one "him"
        for match in _OBJECT.finditer(norm):
            if any(s < match.end() and match.start() < e for s, e, _ in spans):
                continue
            if match.group() in object_read:
                objects.add(match.start())
                spans.append((match.start(), match.end(), Slot(object_read[match.group()], True)))
                continue
            # an object pronoun before is nobody's doing: "Dorothy played with him, and loved him dearly"
            named = sorted((s, slot.entity) for s, _, slot in spans if s < match.start() and slot.entity is not None
                           and slot.entity.type == "individual" and s not in objects and slot.entity.name != voice)
            objects.add(match.start())
            doer = named[-1][1].id if named else None
            others = [entity for _, entity in named if entity.id != doer]
            candidates = others or [e for e in context.individuals if e.id != doer]
            object_read[match.group()] = _resolve(_SUBJECT_OF[match.group()], candidates, _Context(genders=context.genders))
            spans.append((match.start(), match.end(), Slot(object_read[match.group()], True)))
        owned = self._possessives(norm, [span for span in spans if span[2].entity is None
                                         or span[2].entity.name != voice or span[2].pronoun is False], context, voice)
        spans.extend(owned)
        spans.sort(key=lambda span: span[0])
        pieces: list[str] = []
        slots: list[Slot] = []
        position = 0
        starts = {start for start, _, _ in owned}
        for start, end, slot in spans:
            pieces.append(norm[position:start])
            pieces.append(f"⟨{len(slots)}⟩'s" if start in starts else f"⟨{len(slots)}⟩")
            slots.append(slot)
            position = end
        pieces.append(norm[position:])
        return slots, "".join(pieces)

    @staticmethod
    def _possessives(norm: str, spans: list[tuple[int, int, Slot]], context: _Context,
                     voice: str) -> list[tuple[int, int, Slot]]:
        """Each "his" or "her" that owns a role set beside a name, as its owner's slot: "Meg walked with her
        sister Beth" reads "⟨Meg⟩ walked with ⟨Meg⟩'s sister ⟨Beth⟩" (``possessives``)."""
        owned: list[tuple[int, int, Slot]] = []
        for match in POSSESSIVE.finditer(norm):
            if any(s < match.end("pronoun") and match.start() < e for s, e, _ in spans) or ended(match.group("role")) \
                    or (match.group("pronoun") == "her" and match.group("role").endswith("man")) \
                    or re.search(r"(?<!mistre)s$", match.group("role")):
                # "his sons, Oswin and Bran" is a list the kin patterns read with "his" as written
                continue
            beside = next((slot.entity for s, _, slot in spans
                           if match.end("role") <= s <= match.end() and slot.entity is not None), None)
            named_after = NAME_GIVEN_AFTER.match(norm, match.end("role"))
            if beside is None and named_after is not None:
                # "The woman was his housekeeper, and her name was Mrs. Medlock": the name given after the role
                beside = next((slot.entity for s, _, slot in spans if s == named_after.end() and slot.entity is not None),
                              None)
            if beside is None and match.group("gap") and _APPOSED.match(norm, match.end("role")):
                # "Maud Hawley, his cousin, was eighteen": the role set after the name it describes
                beside = next((slot.entity for s, e, slot in spans if slot.entity is not None
                               and re.fullmatch(r",\s*", norm[e:match.start()])), None)
            held = _HELD_BY.match(norm, match.end("role"))
            if beside is None and held is not None:
                # "Her father was old Rouault": the role's holder named after the copula
                beside = next((slot.entity for s, _, slot in spans if s == held.end() and slot.entity is not None), None)
            if beside is None and _ROLE_ENDS.match(norm, match.end("role")):
                # "Colin was her cousin", "Colin, who was her cousin,": the role said of the name before it
                beside = next((slot.entity for s, e, slot in spans if slot.entity is not None
                               and _COPULA.fullmatch(norm[e:match.start()])), None)
            if beside is None:
                continue
            before = sorted((s, e, slot.entity) for s, e, slot in spans if e <= match.start() and slot.entity is not None
                            and slot.entity.name != voice)
            owner = owner_of(match.group("pronoun"), before, beside, context.individuals, context.genders)
            if owner is not None:
                owned.append((match.start(), match.end("pronoun"), Slot(owner, True)))
        for match in OWNED_FEELING.finditer(norm):
            # "his hatred of ⟨1⟩": whose the feeling is, as a role's owner is found (``feelings``)
            feels = next((slot.entity for s, _, slot in spans if s == match.end() and slot.entity is not None), None)
            if feels is None or any(s < match.end("pronoun") and match.start() < e for s, e, _ in spans):
                continue
            before = sorted((s, e, slot.entity) for s, e, slot in spans if e <= match.start() and slot.entity is not None
                            and slot.entity.name != voice)
            owner = owner_of(match.group("pronoun"), before, feels, context.individuals, context.genders)
            if owner is not None:
                owned.append((match.start(), match.end("pronoun"), Slot(owner, True)))
        return owned

    # ------------------------------------------------------------------------------------- patterns

    def _read_clause(self, clause: str, slots: list[Slot], sentence: Sentence, result: Extraction,
                     seen: set[tuple[str, str, str, bool]], spouses: Spouses) -> None:
        if clause.count("⟨") < 2 or conditional(clause):
            return  # every pattern relates two slots
        text = mark_ended(_UNTRUSTED.sub(" untrustworthy", clause))
        starts = [m.start() for m in _SLOT_START.finditer(text)]
        for pattern in self.patterns:
            if pattern.needs and pattern.needs not in text:
                continue
            # A list read whole is not read again from its later members: "⟨0⟩ and ⟨1⟩ were married to ⟨2⟩ and ⟨3⟩"
            # pairs nobody off for sure, and "⟨1⟩ were married to ⟨2⟩ and ⟨3⟩" would marry ⟨1⟩ to both.
            listed: set[int] = set()
            for start in starts:
                match = None if start in listed else pattern.regex.match(text, start)
                if match is None or not (pattern.anywhere or _subject_may_start(text, start)):
                    continue
                if pattern.family == "feeling" and not feeling_kept(text[:start], text[match.end():]):
                    continue
                if pattern.phrase:
                    if _NEGATED_BEFORE.search(text[:start]) or not stated(text[start:match.end()], text[match.end():]):
                        continue
                elif not stated(text[:match.end()], text[match.end():]):
                    continue
                ends = ENDED_MARK in match.group(0)
                listed.update(s for s in starts if match.start("x") < s < match.end("x"))
                for source, target, pronoun in _pairs(match, pattern, slots, text):
                    if not ends:  # a marriage read here names whose "her husband" a later line means
                        spouses.note(pattern.relation, match.group(0), source, target)
                    self._emit(pattern, source, target, pronoun, ends, sentence, result, seen)

    def _emit(self, pattern: Pattern, source: Entity, target: Entity, pronoun: bool, ends: bool,
              sentence: Sentence, result: Extraction, seen: set[tuple[str, str, str, bool]]) -> None:
        normalized = self.vocabulary.normalize(pattern.relation)
        if normalized.flipped:
            source, target = target, source
        if source.id == target.id:
            return
        if pattern.group_target and target.type == "individual":
            return
        if normalized.name == "MEMBER_OF" and source.type != "individual" and target.type != "faction":
            return
        first, second = sorted((source.id, target.id)) if normalized.symmetric else (source.id, target.id)
        key = (first, second, normalized.name, ends)
        if key in seen:
            return
        seen.add(key)
        confidence = round(min(MAX_CONFIDENCE, pattern.confidence - (PRONOUN_PENALTY if pronoun else 0.0)), 2)
        if ends:
            result.closes.append(Close(source.name, target.name, normalized.name, confidence, sentence.text))
        else:
            strength = STRENGTHS.get(normalized.name, 0.0)
            result.triples.append(Triple(source.name, target.name, normalized.name, strength, confidence,
                                         sentence.text))


def _guarded(found: list[tuple[str, str, str]], text: str, hedged: bool = True) -> list[tuple[str, str, str]]:
    """What a sentence-wide reading found, unless the text is a condition or (``hedged``: when the reading does
    not guard its own words) negated or hedged; checked only when something was found, as the guards are the
    dearest regexes and most sentences state nothing."""
    return found if found and not conditional(text) and (not hedged or stated(text)) else []


def _pairs(match: re.Match[str], pattern: Pattern, slots: list[Slot], text: str) -> list[tuple[Entity, Entity, bool]]:
    """The ``(source, target, via a pronoun)`` pairs a match states; unresolved slots state nothing."""
    xs = [slots[int(n)] for n in _SLOT_NUMBER.findall(match.group("x"))]
    if pattern.shape is not Shape.PAIRS:  # among the list's own members, each way round when reciprocal
        return [(a.entity, b.entity, a.pronoun or b.pronoun)
                for a, b in (permutations(xs, 2) if pattern.shape is Shape.RECIPROCAL else combinations(xs, 2))
                if a.entity is not None and b.entity is not None]
    ys = [slots[int(n)] for n in _SLOT_NUMBER.findall(match.group("y"))]
    if len(xs) > 1 and len(ys) > 1 and PAIRED_OFF.search(match.group(0)):
        return []  # "Tom and Will were married to Ann and Meg": which to which is not said
    if len(ys) > 1 and not re.match(r"\s*(?:$|[,.;!?\"')])", text[match.end():]):
        # "Mira trusts Tomas and Oren fears him": a list that runs on into a verb is not a list of objects.
        ys = ys[:1]
    return [(x.entity, y.entity, x.pronoun or y.pronoun) for x in xs for y in ys
            if x.entity is not None and y.entity is not None]


_CLAUSE_SUBJECT = re.compile(rf"^(?:(?:and|then|now)\s+)*((?:the\s+)?{SLOT})\s+[a-z]")
_NOT_A_VERB = frozenset({
    "the", "a", "an", "his", "her", "their", "its", "my", "our", "your", "it", "this", "that", "these", "those",
    "there", "here", "who", "whom", "which", "what", "when", "where", "while", "if", "as", "to", "of", "in", "on",
    "at", "by", "for", "with", "from", "into", "not", "no", "nobody", "none", "nothing", "everyone", "everybody",
    "somebody", "someone", "i", "we", "you", "me", "us", "them", "him", "one", "all", "both", "each", "then",
    "so", "yet", "but",
})
# A clause of circumstance ("and after his image") has no verb of its own: the subject runs on past it.
_CIRCUMSTANCE = frozenset({"after", "before", "under", "over", "about", "against", "between", "through", "in",
                           "on", "at", "by", "for", "with", "from", "into", "without", "upon", "unto"})


def _carry_subject(subject: str, clause: str) -> tuple[str, str]:
    """A clause that goes on with a verb has the last clause's subject: "Seth lived an hundred and five
    years, and begat Enos" is Seth's begetting, "Mira trusts Tomas, and fears Oren" Mira's fear. Returns
    the subject for the next clause and the clause as the patterns read it."""
    own = _CLAUSE_SUBJECT.match(clause)
    if own is not None:
        return own.group(1), clause
    clause = re.sub(r"^(?:(?:and|then)\s+)+", "", clause)
    first = re.match(r"[a-z]+", clause)
    if subject and first is not None and first.group() in _CIRCUMSTANCE:
        return subject, clause
    if subject and first is not None and first.group() not in _NOT_A_VERB:
        return subject, f"{subject} {clause}"
    return "", clause


def _subject_may_start(text: str, start: int) -> bool:
    """Whether a subject may begin at ``start``: at the clause's start, after punctuation, or after a
    conjunction. "The man who hired ⟨0⟩ fears ⟨1⟩" has ``hired`` before the slot: not a subject."""
    before = re.sub(r"(?:^|\s)both$", "", text[:start].rstrip()).rstrip()  # "both ⟨0⟩ and ⟨1⟩": as if "both" were not there
    if _AFTER_ROLE.search(before) or _PLURAL_HEAD.search(before):
        return True  # "Tomas's sister Elin joined the Watch", "The brothers Tom and Will hated Ann": named by a role
    if not before or before[-1] in _LEFT_PUNCTUATION:
        return True
    word = re.search(r"(\w+)$", before)
    return word is not None and word.group(1) in _LEFT_WORDS


def _resolve(pronoun: str, before: list[Entity], context: _Context) -> Entity | None:
    """He, she or they: the one individual named earlier in the sentence, or else the one the last
    naming sentence named, among those the pronoun can refer to; anything less clear means nobody. When
    the text says who is a man and who a woman (``genders``), those of the other sex are not candidates and
    one of unknown sex still competes. Everyone named earlier being the other sex means nobody, not the
    sentence before: "Mr. Bingley had danced with her twice, and she ..." is a woman not named."""
    fitting = [e for e in _unique(before) or context.individuals if _fits(pronoun, e)]
    fitting = context.genders.narrowed(pronoun, fitting) if context.genders is not None else fitting
    return fitting[0] if len(fitting) == 1 else None


def _fits(pronoun: str, entity: Entity) -> bool:
    """Whether a pronoun may refer to an individual: any, unless the node's attributes say otherwise, or a
    title of the name does ("Mr. Hale" is no "she", "Mrs. Pike" no "he")."""
    if not entity.pronouns:
        owning = {"he": "his", "他": "his", "she": "her", "她": "her"}.get(pronoun)
        return owning is None or may_own(owning, entity)
    words = set(re.findall(r"[a-z-]+", entity.pronouns))
    return bool(words & _PRONOUN_WORDS[pronoun])


def _unique(entities: Iterable[Entity]) -> list[Entity]:
    seen: dict[str, Entity] = {}
    for entity in entities:
        seen.setdefault(entity.id, entity)
    return list(seen.values())


# ----------------------------------------------------------------------------------- unknown names

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_STOP = frozenset({
    "the", "a", "an", "and", "but", "or", "then", "so", "if", "when", "while", "as", "at", "in", "on", "of",
    "i", "he", "she", "they", "we", "you", "it", "his", "her", "their", "my", "our", "your", "its", "this",
    "that", "these", "those", "there", "here", "yes", "no", "oh", "ah", "now", "later", "after", "before",
    "what", "who", "why", "how", "where", "which", "not", "never", "all", "every", "some", "one", "none",
    "by", "for", "from", "with", "to", "even", "still", "once", "perhaps", "maybe", "meanwhile", "inside",
    "outside", "tonight", "today", "tomorrow", "yesterday", "god", "gods", "sir", "madam", "lord", "lady",
    "captain", "master", "mistress", "mr", "mrs", "ms", "dr", "old", "young", "little", "monday", "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday", "chapter", "part", "book", "turn",
})
_CONTRACTION = re.compile(r"I['’]")
_OPENING_WORD = re.compile(r"\w{4,}(?:ly|ed)|ask|find|tell|take|give|bring|let|meet|see|go|show|keep|help|warn|"
                           r"follow|call|talk|speak|visit|watch|avoid|wants|knows|shown|pulled|says|said")
_TITLES = frozenset({"captain", "lord", "lady", "sir", "master", "mistress", "mr", "mrs", "ms", "dr", "old",
                     "young", "little", "brother", "sister", "father", "mother", "aunt", "uncle", "king", "queen"})


def unknown_names(sentence: str, index: NameIndex, known: Sequence[str] = ()) -> list[str]:
    """Capitalised name-like phrases of a sentence that no known node answers to (conservative).

    A run of capitalised words is a candidate; stop words and pronouns at its start are dropped, a
    title alone is not a name, and a single word opening the sentence is left out (it is capitalised
    by position, not by being a name: "Suddenly", "Nobody"), as is an opening verb or adverb. A phrase holding a known name is known, and
    so is one inside a name the sentence mentions (``known``: "Watch" in "the Watch").
    """
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    runs: list[list[tuple[int, int, str]]] = []
    for number, word in enumerate(words):
        capital = written_as_name(word[2]) and not word[2].isupper() and not _CONTRACTION.match(word[2])
        # "Gaspard de Coligny", "Mademoiselle de la Mole": a particle between a name's capitals is of the name
        joins = word[2] in PARTICLE_WORDS and any(written_as_name(w[2]) for w in words[number + 1:number + 3])
        if (capital or joins) and runs and runs[-1] and sentence[runs[-1][-1][1]:word[0]] == " ":
            runs[-1].append(word)
        elif capital:
            runs.append([word])
        else:
            runs.append([])
    for run in runs:
        while run and run[-1][2] in PARTICLE_WORDS:
            run.pop()
    found: list[str] = []
    opening = _opening(sentence)
    for run in runs:
        if run and run[0][0] <= opening:
            # Capitalised by position: a lone opening word ("Suddenly") says nothing, and an opening verb
            # or adverb ("Ask Sister Ambry", "Slowly Sera turned") is not part of the name after it.
            if len(run) == 1 and run[0][2][0].isupper():  # "d'Artagnan" is written so anywhere
                continue
            if _OPENING_WORD.fullmatch(_bare(run[0][2])):
                run = run[1:]
        while run and _bare(run[0][2]) in _STOP - _TITLES:
            run = run[1:]
        if not run or all(_bare(w[2]) in _STOP | _TITLES for w in run):
            continue
        phrase = re.sub(r"['’]s$", "", " ".join(w[2] for w in run))
        if index.mentions(phrase) or any(f" {normalize_name(phrase)} " in f" {text} " for text in known):
            continue
        found.append(phrase)
    return found


def _bare(word: str) -> str:
    """A word case-folded without its possessive ending, to compare with the stop lists."""
    return re.sub(r"['’]s$", "", word).casefold()


def _opening(sentence: str) -> int:
    """Where the sentence's first word starts, past opening quotes and brackets."""
    match = re.match(r"[\s\"'“‘(\[«—-]*", sentence)
    return match.end() if match else 0


"""People, not words: which capitalised names of a prose text are people (or named groups).

A name is a person when the text treats it as one: it carries a title ("Dr. Watson", "Aunt Em", "the
King"), speaks ("said Holmes") or is spoken to ("I think, Watson, ..."), does or feels something ("Holmes
whistled", "loved Toto"), owns a person's things ("Dorothy's arms"), is described as a person ("Jim, the
small colored boy", "a lawyer named Norton", "Uncle Henry, who was a farmer"). A name the text uses only
as a place ("in Bohemia", "Baker Street"), as an adjective ("a Bohemian nobleman", "English paper"), or
as a form of address ("your Majesty", "Doctor" alone) is not a person, however often it is written.

Names of one person are then grouped: the fullest form is the person, and the shorter forms the story
uses for them (the surname, a title with the surname, the first name, "the Count" for the only count)
are aliases, each with the reason it was taken, so that a merge can be logged and undone by a reader.
A shorter form two people could share stays its own name, never an alias of either. Pure: no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from game.graph.fast_extract import particles
from game.graph.fast_extract import people_objects as treated
from game.graph.fast_extract.asides import COMMENT
from game.graph.fast_extract.capitals import adverb_by_position, capitalised_in_mid_sentence, given_name_first
from game.graph.fast_extract.feelings import FEELING_NOUNS
from game.graph.fast_extract.gazetteer import CASED_NAMES
from game.graph.fast_extract.kin_apart import kept_apart, kin_apart
from game.graph.fast_extract.lists import list_end, weigh_listed
from game.graph.fast_extract.name_words import (
    ADDRESS,
    BODIES,
    DOING,
    FEELING,
    GROUP_WORDS,
    KEEPER_NOUNS,
    KIN_NOUNS,
    NO_ONES_FIRST_WORDS,
    NOT_NAMES,
    PERSON_NOUNS,
    PERSON_TITLES,
    PLACE_WORDS,
    ROYAL,
    SAY_VERBS,
)
from game.graph.fast_extract.particles import CAP, DOTTED, NAME_RUN, words
from game.graph.sexes import TITLE_SEX, opposite, sex_of_words

DEMONYMS = frozenset({"german", "french", "dutch", "greek", "swiss", "scotch", "irish", "english", "frenchman",
                      "englishman", "american", "russian", "italian", "spanish", "yankee", "indian", "continental",
                      "european", "bohemian", "scandinavian", "danish", "polish", "turkish", "british"})
"""An opening adverb ("Suddenly Uncle Henry stood up") is not part of the name after it."""
_NOT_A_WORD = re.compile(r"(?:i|you|he|she|we|they|it|that|there|here|yes|no|who|what|let)['’](?:m|ve|d|ll|re|s|t)|"
                         r"(?:\w-){2,}\w*")
"""Contractions ("I’ve", "Yes’m") and spelled-out shouts ("Y-o-u-u") are capitalised, and no names."""
_QUOTE = re.compile(r"“[^”]*(?:”|$)|\"[^\"]*(?:\"|$)")
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|my|his|her|your|our|their|thy|thine|whose|this|that)\s+$",
                                re.IGNORECASE)
_PLACE_BEFORE = re.compile(r"(?:\b(?:in|at|from|into|through|near|towards?|toward|across|"
                           r"beyond|outside|inside|reach|reached|visit|visited)\s+(?:the\s+)?)$",
                           re.IGNORECASE)


@dataclass
class Candidate:
    """A capitalised name and what the text does with it: how often, and which evidence it gave."""

    name: str
    count: int = 0
    evidence: Counter[str] = field(default_factory=Counter)
    against: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Person:
    """A person (or named group) of the text: their fullest name, the other names they go by, and why."""

    name: str
    type: str
    aliases: tuple[tuple[str, str], ...] = ()
    """``(alias, why)``: a shorter name the story uses for them, and the reason it was taken as theirs."""
    evidence: str = ""


def strip_article(name: str) -> str:
    return re.sub(r"^(?:the)\s+", "", name, flags=re.IGNORECASE)


def _clean(run: str) -> str:
    """A run as a name: no possessive, no trailing full stop (a title's "Dr." keeps its own)."""
    run = re.sub(r"['’](?:ll|d|ve|re)$", "", run)  # "Dinah'll miss me"
    run = re.sub(r"['’]s?$", "", run)  # "Holmes's", and "our good Uncle Thomas' library"
    if run.endswith(".") and words(run)[-1] not in PERSON_TITLES:
        run = run[:-1]
    return run


def _title_start(tokens: list[str]) -> int:
    """How many leading words are titles or an article ("the Count Von" → 2 of "the count von kramm")."""
    index = 0
    while index < len(tokens) - 1 and (tokens[index] in PERSON_TITLES or tokens[index] == "the"):
        index += 1
    return index


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs (blank lines between), each on one line: names never run across a break."""
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def quoted(paragraph: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each quoted stretch of a paragraph (curly or straight double quotes)."""
    return [(m.start(), m.end()) for m in _QUOTE.finditer(paragraph)]


@dataclass
class Found:
    """Every candidate of a text, and the titles the text puts beside a name ("X, King of Bohemia")."""

    names: dict[str, Candidate] = field(default_factory=dict)
    appositions: dict[str, tuple[str, str]] = field(default_factory=dict)
    """title -> (the name it stands beside, the words that say so)."""


_ROYAL_LOWER = re.compile(r"(\bthe\s+)(king|queen|cardinal|emperor|empress|prince|princess|duke|duchess|countess)\b")


def candidates(text: str) -> Found:
    """Every capitalised run of ``text`` with the evidence for and against it being a person's name."""
    found, named_ly = Found(), capitalised_in_mid_sentence(text)  # "Polly" is a name, "Suddenly" an opener
    for paragraph in paragraphs(text):
        paragraph = re.sub(r"\s*\([^()]{1,80}\)", "", paragraph)  # asides: "brother (or rather half-brother) Sid"
        # Translations write "the king" and "the cardinal" in lower case: the one king is as much a person
        paragraph = _ROYAL_LOWER.sub(lambda m: m.group(1) + m.group(2).capitalize(), paragraph)
        spans = quoted(paragraph)  # in order and apart, so a bisect finds the one a name could be in
        quote_starts = [s for s, _ in spans]
        previous: tuple[str, int] | None = None
        for match in NAME_RUN.finditer(paragraph):
            raw = _clean(match.group())
            raw = treated.owner_of_named_thing(raw, NOT_NAMES, _NOT_A_WORD, BODIES)  # "Miss Fulsom's Kindergarten"
            tokens = words(raw)
            begin = match.start()
            if len(tokens) == 1 and tokens[0] in CASED_NAMES and not raw.isupper() \
                    and not _DETERMINER_BEFORE.search(paragraph[max(0, begin - 12):begin]):
                # "We've got Father and Mother": a parent's word with a capital and no "my" or "the" is a name.
                entry = found.names.setdefault(raw, Candidate(raw))
                entry.count += 1
                entry.evidence["kin name"] += 1
                continue
            # A sentence's first word is capitalised by position: "Then Holmes" is Holmes, "Suddenly" nothing.
            # "I’m Mr Medlock’s servant": a contraction before a name is no part of it.
            while tokens and (((tokens[0] in NOT_NAMES or adverb_by_position(tokens[0], named_ly) or _NOT_A_WORD.fullmatch(tokens[0])
                                or tokens[0].endswith("-old"))
                               and tokens[0] != "the" and not given_name_first(tokens, paragraph[max(0, begin - 30):begin], NOT_NAMES, paragraph[begin + len(raw):begin + len(raw) + 40])
                              and not (len(tokens) > 1 and tokens[0] in PERSON_TITLES))
                              or (tokens[0] == "the" and not (len(tokens) == 2 and tokens[1] in ROYAL))):
                cut = re.match(r"\S+\s*", raw)
                shift = cut.end() if cut else len(raw)
                raw, begin, tokens = raw[shift:], begin + shift, tokens[1:]
            if shift := particles.loose_particles(raw, paragraph[max(0, begin - 40):begin]):  # "The van Tom drove": the van is no part of Tom's name
                raw, begin, tokens = raw[shift:], begin + shift, words(raw[shift:])
            if not tokens or tokens[0] in NO_ONES_FIRST_WORDS:
                continue  # "Vive le Roi!", "Notre-Dame de Paris": a cheer and a church
            if "of" in tokens[1:] and tokens[0] not in PERSON_TITLES and tokens[0] != "house":
                # "Adventures of Sherlock Holmes": a work's title before the name; "Church of St. Monica": a place.
                left = tokens[:tokens.index("of")]
                if left[-1] in PLACE_WORDS:
                    continue
                offset = raw.index(" of ") + 4
                raw, begin, tokens = raw[offset:], begin + offset, tokens[len(left) + 1:]
            if len(tokens) == 1 and tokens[0] in GROUP_WORDS and not re.match(r"[Tt]he ", match.group()):
                continue  # "simply hates Society": a group's word alone names no group, unless it is "the Pack"
            if not tokens or (all(t in NOT_NAMES or t in PERSON_TITLES or t in ADDRESS for t in tokens) \
                    and not (len(tokens) == 2 and tokens[0] == "the" and tokens[1] in ROYAL)
                    and not (len(tokens) == 2 and tokens[0] in _SURNAME_TITLES and tokens[1].isalpha()
                             and tokens[1] not in ADDRESS and tokens[1] not in PERSON_TITLES)
                    and not given_name_first(tokens, paragraph[max(0, begin - 30):begin], NOT_NAMES, paragraph[begin + len(raw):begin + len(raw) + 40])
                    and not (len(tokens) == 2 and tokens[0] in PERSON_TITLES and tokens[1] in _MONTHS)):
                continue
            if len(raw) < 2 or (raw.isupper() and len(raw) <= 3) or any(_NOT_A_WORD.fullmatch(t) for t in tokens):
                continue
            if tokens[0] == "the":
                raw = "the" + raw[3:]  # "The King" and "the King" are one name
            end = begin + len(raw)
            at = bisect_right(quote_starts, begin) - 1
            inside = at >= 0 and end <= spans[at][1]
            entry = found.names.setdefault(raw, Candidate(raw))
            entry.count += 1
            # Only the text near the name is weighed (``WEIGHED_CHARS``; the whole paragraph made a long one quadratic),
            # and for a list's member what follows the list: "Athos, Porthos and Aramis were friends"
            listed = list_end(paragraph, end)
            _weigh(entry, tokens, paragraph[max(0, begin - WEIGHED_CHARS):begin], paragraph[listed:listed + WEIGHED_CHARS],
                   inside)
            if previous is not None and _is_apposition(paragraph[previous[1]:begin], tokens):
                found.appositions.setdefault(raw, (previous[0], paragraph[previous[1] - len(previous[0]):end]))
            if not (tokens[0] in PERSON_TITLES and "of" in tokens):
                previous = (raw, end)
    return found


def _is_apposition(between: str, tokens: list[str]) -> bool:
    """Whether a title of a place follows a name as its apposition: "Wilhelm ..., Grand Duke of Cassel, and
    hereditary King of Bohemia"."""
    return bool(re.fullmatch(r",\s+(?:and\s+)?(?:the\s+)?(?:[a-z]+\s+)?(?:(?:[A-Z][\w-]*\s+){1,3}of\s+[A-Z][\w-]*,\s+"
                             r"(?:and\s+)?(?:[a-z]+\s+)?)?", between)) \
        and bool(tokens) and tokens[0] in PERSON_TITLES and "of" in tokens


_BODY = (r"nature|character|conduct|lips|mouth|cheeks?|hair|brow|forehead|lap|fingers|knees?|feet|skin|temper|smile|glance|tongue|nose|chin|"
         r"ears|neck|hand|own\s+(?:room|bed|hands?|eyes)")
"""What only a person (or an animal) owns: "Marilla's lips twitched"."""
_KIND = (r"man|woman|boy|girl|lady|gentleman|child|schoolboy|schoolgirl|fellow|widow|widower|spinster|bachelor|"
         r"servant|farmer|lawyer|doctor|clerk|merchant|soldier|sailor|priest|nurse|maid|stranger|youth|baby|orphan|"
         r"person|cousin|beauty|nobleman|gentlewoman|peasant|labourer|laborer|physician|surgeon|officer")
"""What kind of person someone is said to be: "X was a little girl" makes X a person."""
_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
"""A month after a title is a surname or a name ("Aunt March", "Sister May"), never a date."""
_SURNAME_TITLES = frozenset({"mr", "mrs", "ms", "dr", "mister", "madame", "mademoiselle", "monsieur", "m", "mme", "mlle"})
"""Titles always followed by a surname: "Mrs. March" is a woman even though "March" is a month."""
_PERSONAL_TITLES = frozenset({"mr", "mrs", "miss", "ms", "dr", "mister", "uncle", "aunt", "cousin", "sir", "lady",
                              "captain", "capt", "madame", "mademoiselle", "widow", "granny", "professor", "colonel",
                              "monsieur", "m", "mme", "mlle", "abbé", "abbe"})
"""Titles only a person carries: before a place's word ("Uncle George", "Mr. Hall") they make a name, not a place."""
WEIGHED_CHARS = 80
"""How much of the paragraph on each side of a name ``_weigh`` reads (at most ``before[-80:]``)."""


# _weigh's patterns that interpolate the word lists, compiled once: built for every name, they cost reading time.
_TAG_BEFORE = re.compile(rf"[”\"’,]\s*(?:{SAY_VERBS}|sang|sings)\s+(?:back\s+|again\s+)?"
                         rf"(?:the\s+(?:[a-z]+-?[a-z]+\s+)?|(?:little|old|poor|young|dear)\s+)?$")
_SAYS_AFTER = re.compile(rf"\s+(?:\w+ly\s+)?(?:{SAY_VERBS})\b")
_NOT_A_CALL = re.compile(rf"\b(?:{PERSON_NOUNS}|in|at|from|to|of)\s*,\s*$")
_DOES_AFTER = re.compile(rf"(?:{COMMENT})?\s+(?:(?:\w+ly|soon|then|now|also|still|just|only|once|again|even|quite|rather)\s+)?(?:{DOING}|ought)\b")
_AND_ANOTHER_DOES = re.compile(rf"\s+and\s+(?:(?:{DOTTED}\s+)?{CAP}(?:\s+{CAP})?\s+(?:\w+ly\s+)?(?:{DOING})\b|"
                               rf"(?:his|her|their)\s+(?:[a-z]+\s+)?(?:{KIN_NOUNS})\b)")  # "Tom and his sister Ann"
_FELT_BEFORE = re.compile(rf"\b(?:{FEELING})\s+$")
_FELT_LIST_BEFORE = re.compile(rf"\b(?:{FEELING})\s+(?:{CAP},\s+)+(?:and\s+)?$")
_OWNS_AFTER = re.compile(rf"['’]s?\s+(?:\w+\s+){{0,2}}(?:{PERSON_NOUNS}|{_BODY}|{FEELING_NOUNS})\b")  # "Tom's love for"
_DESCRIBED_AFTER = re.compile(rf"(?:,\s+|\s*(?:--|—)\s*)(?:[\w-]+\s+){{0,3}}(?:{PERSON_NOUNS})\b")
_NOUN_BEFORE = re.compile(rf"\b(?:{PERSON_NOUNS})\s+$")
_OWNED_NOUN_BEFORE = re.compile(rf"\b(?i:his|her|my|their|your|our)\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS}|{KEEPER_NOUNS})s?,?\s+(?:the\s+|old\s+|young\s+|"
                  rf"little\s+|poor\s+)?(?:{CAP},?\s+and\s+)?$")
_ANOTHERS_ROLE_BEFORE = re.compile(rf"\w['’]s\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS}|{KEEPER_NOUNS}),\s+(?:the\s+|old\s+|young\s+|little\s+)?$")
# "Next came Walter Gilbert with his cousin", "At the table sat Anne, Diana, and little Minnie May": who comes or sits
_INVERTED_BEFORE = re.compile(rf"\b(?:came|sat|stood|lay|knelt)\s+(?:(?:{CAP}\s+)*{CAP},\s+){{0,6}}(?:and\s+)?(?:(?:little|old|young|poor)\s+)?$")
_ANOTHERS_ROLE_AFTER = re.compile(rf",\s+(?:the\s+)?(?:{DOTTED}\s+)?{CAP}(?:\s+{CAP})*['’]s?\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS}|{KEEPER_NOUNS})\b")
_IS_ANOTHERS_ROLE = re.compile(rf"(?:,|\s+(?:is|was|had\s+been|has\s+been|became))\s+(?:the\s+)?(?:{DOTTED}\s+)?{CAP}(?:\s+{CAP})*"
                  rf"['’]s?\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS}|{KEEPER_NOUNS}|leader|chief|commander|ruler|member)\b")
_WERE_BONDED = re.compile(rf"(?:\s+and\s+(?:(?:the\s+)?(?:{DOTTED}\s+)?{CAP}(?:\s+{CAP})*|he|she|I))?\s+(?:were|are|had\s+been|have\s+been|"
                  rf"became|remained)\s+(?:[a-z]+\s+)?(?:friends|companions|partners|comrades|allies|enemies|"
                  rf"rivals|lovers|brothers|sisters|cousins|twins|engaged|betrothed|married)\b")
_IS_A_ROLE = re.compile(rf"\s+(?:is|was|had\s+been|has\s+been|became)\s+(?:(?:my|his|her|your|our|their|thy)\s+(?:[a-z]+\s+)?"
                  rf"(?:{PERSON_NOUNS})\b|(?:a|an|the)\s+(?:[a-z]+\s+){{0,2}}(?:{PERSON_NOUNS}|leader|chief|commander|"
                  rf"ruler|member)\s+(?:of|to)\s"
                  # "Tom was the guardian of Ann" (or "of his nephew"), never "the guardian of virtue"
                  rf"|(?:a|an|the)\s+(?:[a-z]+\s+){{0,2}}(?:{KEEPER_NOUNS})\s+(?:of|to)\s+(?:(?:{DOTTED}\s+)?{CAP}\b|"
                  rf"(?:the|a|his|her|my|their|your|our)\s+(?:[a-z]+\s+)?(?:{PERSON_NOUNS})\b))")
_KIN_AFTER = re.compile(rf",?\s+(?:his|her|their|thy|my)\s+(?:[a-z]+\s+)?(?:{KIN_NOUNS})\b")
_NAMED_PAIR_BEFORE = re.compile(rf"\b(?:named|called)\s+{CAP}\s+and\s+the\s+[a-z]+\s+$")
_CHILDREN_LISTED_BEFORE = re.compile(rf"\b(?:had|has|have|begat|begot|bare|bore|left|raised)\s+(?:a|an|one|two|three|four|five|six|seven|"
                  rf"eight|nine|ten|eleven|twelve|several|many)\s+(?:[a-z]+\s+)?(?:sons?|daughters?|children|child|boys?|"
                  rf"girls?)(?:,|:|\s+named|\s+called)\s+(?:namely\s+)?(?:{CAP},?\s+)*(?:and\s+)?$")
_PLURAL_LISTED_BEFORE = re.compile(rf"\b(?i:the|both|two|three)\s+(?:(?:two|three|four|young|little|elder|old|orphan|twin)\s+)*"
                  rf"(?:sisters|brothers|cousins|twins|siblings|friends|comrades|companions)(?:,|:)?\s+(?:{CAP},?\s+)*(?:and\s+)?$")
_OWNED_LIST_BEFORE = re.compile(rf"\w['’]s\s+(?:[a-z]+\s+)?(?:sons|daughters|children|brothers|sisters|cousins|nephews|nieces|"
                  rf"servants|friends),"
                  rf"\s+(?:{CAP},?\s+)*(?:and\s+)?$")
_BOND_BETWEEN_BEFORE = re.compile(rf"\b(?:friendship|alliance|enmity|feud|rivalry|engagement)\s+(?:[a-z]+\s+){{0,5}}?between\s+(?:the\s+)?"
                  rf"(?:(?:{DOTTED}\s+)?{CAP}(?:\s+{CAP})*\s+and\s+(?:the\s+)?)?$")
_KIN_WAS_BEFORE = re.compile(rf"(?:['’]s|\b(?i:his|her|their|my|your|our))\s+(?:[a-z]+\s+)?(?:{KIN_NOUNS})\s+(?:was|is|had\s+been|has\s+been)\s+"
                  rf"(?:old\s+|young\s+|little\s+|poor\s+)?$")
_IS_A_KIND = re.compile(rf"(?:\s+(?:is|was|had\s+been|has\s+been|became)|['’]s)\s+(?:a|an)\s+(?:[a-z-]+\s+){{0,2}}(?:{_KIND})\b")
_KIN_OF_AFTER = re.compile(rf"(?:,\s+(?:and\s+)?{CAP})*,\s+the\s+(?:[a-z]+\s+)?(?:sons|daughters|children|brothers|sisters|wives|"
                  rf"husbands)\s+of\s")
_KIN_OF_WAS_BEFORE = re.compile(rf"\b(?:{KIN_NOUNS})\s+of\s+(?:the\s+)?{CAP}(?:\s+{CAP})*\s+(?:was|is)\s+$")
_PRONOUN_DOES_AFTER = re.compile(rf",\s+(?:he|she)\s+(?:also\s+)?(?:{DOING})\b")


# "captain of the Musketeers", "one of the Guards", "commanded the Musketeers": a plural so led or joined is a body
_BODY_BEFORE = re.compile(r"\b(?:captain|leader|chief|commander|head|colonel|general|master|members?|one|officers?|"
                          r"soldiers?|commanded|commands)\s+(?:of\s+)?the\s+$")


def _weigh(entry: Candidate, tokens: list[str], before: str, after: str, inside: bool) -> None:
    """One occurrence's evidence (``before`` and ``after`` are the paragraph around it, ``WEIGHED_CHARS``
    of each; ``inside``: in a quote)."""
    head = before[-40:]
    tail = after[:60]
    if tokens[-1] in PLACE_WORDS and len(tokens) > 1 and tokens[0] not in _PERSONAL_TITLES:
        entry.against["place"] += 1  # "Baker Street", but not "Uncle George" nor "Mr. Hall"
        return
    if len(tokens) > 1 and (tokens[-1] in GROUP_WORDS or (tokens[0] == "house" and "of" in tokens)):
        entry.evidence["group"] += 1
        return
    if len(tokens) == 1 and (tokens[0] in DEMONYMS or treated.nationals(tokens[0], DEMONYMS) or (
            re.search(r"(?:ian|ese|ish)$", tokens[0])
            and not (_DOES_AFTER.match(tail) or _SAYS_AFTER.match(tail) or _TAG_BEFORE.search(head)))):
        entry.against["adjective"] += 2  # "a Bohemian nobleman"; but "Dorian bowed" is someone's doing
        return
    titled = _title_start(tokens) > 0 and tokens[0] != "the"
    if titled or (len(tokens) == 2 and tokens[0] == "the" and tokens[1] in ROYAL):
        entry.evidence["title"] += 1
    elif len(tokens) > 1 and len(tokens[0]) == 1 and tokens[-1] not in GROUP_WORDS:
        entry.evidence["title"] += 1  # "M. Dumas", "R. M. Renfield": an initial before a name is a person's
    if not inside and (_TAG_BEFORE.search(head)
                       or (re.search(r"[”\"’]\s*$", head[-3:] if head else "") is None
                           and _SAYS_AFTER.match(tail)
                           and re.search(r"[”\"]", before[-80:] + after[:80]))
                       or re.match(r"\s+(?:\w+\s+)?(?:said|says|asked):", tail)):
        entry.evidence["speaks"] += 1
    if not inside and re.search(r"\bdear(?:est)?,?\s+(?:[a-z]+,?\s+){0,2}$", head) and re.match(r"[,.!:]", tail):
        entry.evidence["addressed"] += 1  # a letter's "Farewell, my dear, excellent Margaret."
    # "Well, Marilla, I'll tell you", "what you say, Rachel. I've had": a call, before "I" as before any word
    # (not a line's first word: "Proud, I'm sure")
    called = bool(re.search(r"(?:[“\"]|,\s|\bdear\s|[“\"]\s*(?i:poor|dear|dear\s+old|poor\s+old|poor\s+little)\s)$", head) and re.match(r"(?:,(?!\s+[A-Z])|!|\?|\.[”\"]|:\s)", tail)) \
        or bool(re.search(r"(?:,\s|\bdear\s)$", head) and re.match(r"(?:,\s+I(?:\b|['’])|\.\s+(?:I|You|We)\b)", tail))
    if inside and re.search(r"(?:\bI\s+am|\bI['’]m|\bmy\s+name\s+is|\bcall\s+me|\bI\s+(?:can['’]t|cannot|must)\s+be)"
                            r"\s+(?:not\s+)?$", head):
        entry.evidence["named"] += 1  # "“I am Mary Lennox,” the little girl said"
    if inside and called and not _NOT_A_CALL.search(head):
        entry.evidence["addressed"] += 1
    if _DOES_AFTER.match(tail) and not re.search(r"\b(?:of|the|in|at)\s+$", head):
        entry.evidence["acts"] += 1
    elif _AND_ANOTHER_DOES.match(tail) \
            and re.search(r"(?:^|[.!?;:“\"]\s*|\b(?:and|but|that|when|while|then|so)\s+)$", head):
        entry.evidence["acts"] += 1  # "Eliza and Georgiana had run for Mrs. Reed": the first of two who do it
    if _FELT_BEFORE.search(head) or _FELT_LIST_BEFORE.search(head):
        entry.evidence["felt"] += 1  # "begat Shem, Ham, and Japheth": each of a list is an object
    if _OWNS_AFTER.match(tail):
        entry.evidence["owns"] += 1
    if _DESCRIBED_AFTER.match(tail) or re.match(r",?\s+whom?\b|,\s+(?:with|to|for|by|of|from)\s+whom\b", tail) \
            or re.match(r",\s+(?:he|she)(?:['’]s|\s+(?:is|was|has|had))\b", tail) \
            or re.search(r"\b(?:the|a|an|my|his|her|our|your)\s+(?:[\w-]+\s+){0,3}[a-z]{3,},\s*$", head):
        entry.evidence["described"] += 1
    if (_NOUN_BEFORE.search(head) and not re.search(r"\b(?:the|a|an)\s+[a-z]+\s+$", head[-25:])) \
            or _OWNED_NOUN_BEFORE.search(head) or _ANOTHERS_ROLE_BEFORE.search(head):
        entry.evidence["described"] += 1  # "Tom's younger brother Sid", "her maid Abbot", "Ann's brother, John,"
    if _INVERTED_BEFORE.search(head) and re.match(r"(?:\s*[,.;!]|\s+(?:and|with)\b)", tail):
        entry.evidence["acts"] += 1
    if len(tokens) > 1 and re.match(r"\s+(?:is|was|had|has)\s+(?:not\s+)?[a-z]{3,}", tail):
        entry.evidence["acts"] += 1  # "Irene Adler is married": a full name that is something
    elif re.match(r"(?:,\s+[a-z][^,.;:!?“”\"]{1,30},)?\s+(?:was|is|had|has)\s+(?:\w+ly\s+)?(?:[a-z]+ing|[a-z]+ed|far|still)\b",
                  tail) and not re.search(r"\b(?:of|the|in|at|a|an)\s+$", head):
        entry.evidence["acts"] += 1  # "Mowgli was far and far through the forest", "Tabaqui, behind him, was squeaking"
    if re.search(r"\b(?:engaged|betrothed|affianced|married|wed|proposed|engagement|marriage|betrothal)\s+to\s+$|\bin\s+love\s+with\s+$|"
                 r"\b(?:was|is)\s+(?:about\s+|going\s+|soon\s+)?to\s+(?:marry|wed)\s+$", head) \
            or _ANOTHERS_ROLE_AFTER.match(tail):
        entry.evidence["described"] += 1  # "engaged to Anna Hale", "Jean Morel, Mr. Tallis's servant"
    if _IS_ANOTHERS_ROLE.match(tail) \
            or _WERE_BONDED.match(tail) \
            or _IS_A_ROLE.match(tail):
        # "Colin was Mr. Craven's son", "Tom Cole and Will Barker were friends", "Jem is my brother", "Toad was a
        # great friend of the Rat"
        entry.evidence["described"] += 1
    if re.search(r"\b(?:said|says|replied|answered|whispered|murmured|muttered|remarked|explained|cried|shouted)\s+"
                 r"(?:(?:(?:d['’])?[A-ZÀ-ÖØ-Þ][\w.’'-]*|the|he|she|de|du|la|von|van|der)\s+){0,4}(?:un)?to\s+(?:the\s+)?$", head):
        entry.evidence["addressed"] += 1  # "said Mr. Tallis to Jean Morel": the one spoken to
    looked_at = re.search(r"\b(?:looked|looks|gazed|stared|glanced|smiled|smiles|frowned|nodded|waved|spoke|speaks|turned|"
                          r"talked|whispered|bowed|listened|winked|beckoned)\s+(?:up\s+|down\s+|back\s+)?(?:at|to)\s+$", head)
    if looked_at:
        entry.evidence["felt"] += 1  # "Lord Henry looked at Basil Hallward": weak, a place can be looked at
    if re.search(r"\b(?:friend|enemy|foe|rival|servant|wife|husband|son|daughter|sister|brother|mother|father|aunt|"
                 r"uncle|nephew|niece|cousin|widow|heir|nurse|companion|ally|master|mistress|lover|service|employ|lackey|valet|"
                 r"housekeeper|maid|guardian|ward|tutor|pupil|mentor|god(?:father|mother|son|daughter)|"
                 r"grand(?:mother|father|son|daughter|child)|step(?:mother|father|son|daughter)|fianc[ée]e?|betrothed|suitor|admirer)\s+of\s+(?:the\s+)?$", head):
        entry.evidence["felt"] += 1  # "the sworn enemy of Black Morgan": weak, "the enemy of France" is a country
    if re.match(r"\s+(?:is|was|were|are|had\s+been|has\s+been)\s+(?:\w+ly\s+)?(?:engaged|betrothed|in\s+love|"
                r"a\s+member\s+of|one\s+of\s+the\s+[A-Z]|in\s+the\s+(?:service|employ|employment|pay)\s+of)", tail):
        entry.evidence["acts"] += 1  # "Mowgli was one of the Pack", "Anna was in love with him", "in the service of"
    if _KIN_AFTER.match(tail):
        entry.evidence["described"] += 1  # "Abel his brother", "Eve his wife"
    if re.search(r"\b(?:named|called|christened)\s+$|\b(?i:his|her|whose)\s+name\s+(?:was|is)\s+$|\bname\s+of\s+the\s+[a-z]+\s+(?:was\s+|is\s+)?$", head) \
            or _NAMED_PAIR_BEFORE.search(head):
        entry.evidence["named"] += 1  # "was called Hansel and the girl Gretel", "the name of the other Zillah"
    if _CHILDREN_LISTED_BEFORE.search(before):
        entry.evidence["described"] += 1  # "had two daughters, Clara and Maud": each of the list is a child
    if _PLURAL_LISTED_BEFORE.search(before) or _OWNED_LIST_BEFORE.search(before):
        entry.evidence["described"] += 1  # "The two sisters, Dorothea and Celia,": what each of the list is
    if _BOND_BETWEEN_BEFORE.search(before):
        entry.evidence["described"] += 1  # "a friendship existed between Tom Cole and Will Barker"
    if re.match(r",\s+(?:the|a|an)\s+[^,.;:!?]{1,40},\s+who\b", tail):
        entry.evidence["described"] += 1  # "Akela, the great gray Lone Wolf, who led all the Pack"
    if _KIN_WAS_BEFORE.search(head) and re.match(r"(?:['’]s)?\s*(?:$|[,.;:!?])", tail):
        entry.evidence["described"] += 1  # "Tom's sister was Ann Price.", "Her father was old Rouault"
    if _IS_A_KIND.match(tail):
        entry.evidence["described"] += 1  # "John Reed was a schoolboy of fourteen", "Mary was a little girl"
    weigh_listed(entry.evidence, head, tail)  # "Tom and Will were the sons of Ann"
    if _KIN_OF_AFTER.match(tail):
        entry.evidence["described"] += 1  # "Shem, and Ham, and Japheth, the sons of Noah"
    if _KIN_OF_WAS_BEFORE.search(head) \
            or (re.search(r"\b(?:unto|to)\s+$", head) and re.match(r"\s+(?:was|were)\s+born\b", tail)) \
            or (re.search(r"(?:^|[.;:]\s*|\b(?i:and)\s+)$", head) and _PRONOUN_DOES_AFTER.match(tail)):
        entry.evidence["described"] += 1  # "the sister of Tubalcain was Naamah", "unto Enoch was born", "And Zillah, she bare"
    if re.match(r"\s+into\s+(?:his|her|their)\s+(?:service|employ|pay|household)\b", tail):
        entry.evidence["described"] += 1  # "took Dick Hale into his service"
    if (re.search(r"\b(?:a|the|an\s+\w+)\s+members?\s+of\s+(?:the\s+)?$|\bjoin(?:ed|s)?\s+the\s+$", head)
            or (len(tokens) == 1 and tokens[0].endswith("s") and _BODY_BEFORE.search(head))) \
            and not re.match(r"\s+(?:at|in|on|for|by|beside|near|over|after|upon)\b", tail):
        entry.evidence["member of"] += 1  # "a member of the Reform", "joined the Musketeers": a body of people
    if len(tokens) == 1 and tokens[0] in GROUP_WORDS and re.search(r"\bthe\s+$", before[-5:]):
        entry.evidence["group"] += 1  # "the Pack": a group's word with a capital, as its name
    # "in Sir Francis Cromarty" is a person; "at Madame Tussaud's" a place
    done_to = treated.weigh_treatment(entry.evidence, head, after)
    if len(tokens) == 1 and treated.opens_with_participle(tokens[0], head, tail):
        entry.against["participle"] += 1
    # "in William J. Blair's store": the store is the place, and its owner someone
    if _PLACE_BEFORE.search(head) and not looked_at and not done_to and not (titled and not re.match(r"['’]", tail)) \
            and (titled or not re.match(r"['’]s?\s+[a-z]", tail)):
        entry.against["place"] += 1
    if tokens[-1] in ADDRESS:
        entry.against["address"] += 2


def people(text: str, *, known: frozenset[str] = frozenset(),
           apart: set[frozenset[str]] | None = None) -> list[Person]:
    """The people and named groups of ``text`` (beyond the normalized names in ``known``), fullest names first;
    ``apart`` is ``kin_apart(text)`` when the caller has it already."""
    found = candidates(text)
    lower = set(re.findall(r"\b[a-z][\w'-]*\b", text))
    chosen: dict[str, Candidate] = {}
    for name, entry in found.names.items():
        tokens = words(name)
        if name.casefold() in known or treated.is_place_name(name):
            continue
        strong = entry.evidence["title"] + entry.evidence["speaks"] + entry.evidence["addressed"] \
            + entry.evidence["named"] + entry.evidence["described"] + entry.evidence["group"] \
            + entry.evidence["kin name"] + entry.evidence["member of"]
        weak = entry.evidence["acts"] + entry.evidence["felt"] + entry.evidence["owns"]
        against = sum(entry.against.values())
        if entry.against["address"] or entry.against["adjective"]:
            continue
        if entry.against["place"] and strong + weak <= entry.against["place"]:
            continue
        if len(tokens) == 1 and tokens[0] in lower and not entry.evidence["title"] and not entry.evidence["kin name"]:
            continue  # "Harbour", "Tide": a word the text also writes in lower case
        if strong or (weak and weak > against):
            chosen[name] = entry
    # A full name the text gives once, with nothing said of it, is still the person its surname is.
    for name, entry in found.names.items():
        core = _core(name)
        if name in chosen or len(core) < 2 or entry.against["place"] or entry.against["address"] \
                or treated.is_place_name(name):
            continue
        if any(_core(other) in ([core[-1]], [core[0]]) for other in chosen) and not any(
                t in PLACE_WORDS | GROUP_WORDS for t in core):
            chosen[name] = entry
    _families(found, chosen)
    return _group(chosen, found.appositions, kin_apart(text) if apart is None else apart)


def _families(found: Found, chosen: dict[str, Candidate]) -> None:
    """"The Lintons", "the Wellands": the plural of a surname the story gives a person is that person's family,
    a group, wherever it stands ("Heathcliff hated the Lintons", "Archer called on the Wellands")."""
    surnames = {core[-1] for name, entry in chosen.items() if len(core := _core(name)) >= 2 or _titles(name)}
    for name, entry in found.names.items():
        tokens = words(name)
        if entry.evidence["family"] or len(tokens) != 1 or not name[:1].isupper():
            continue
        plural = tokens[0]
        if (plural.endswith("es") and plural[:-2] in surnames) or (plural.endswith("s") and plural[:-1] in surnames):
            entry.evidence["family"] += 1
            chosen[name] = entry


def _kind(name: str) -> str:
    tokens = words(name)
    if tokens[-1] in GROUP_WORDS or (tokens and tokens[0] in {"house", "the"} and "of" in tokens and tokens[-1] not in ROYAL):
        return "faction" if tokens[0] != "house" else "group"
    return "individual"


def _core(name: str) -> list[str]:
    tokens = [t for t in words(strip_article(name))]
    return tokens[_title_start(tokens):] if len(tokens) > 1 else tokens


def _titles(name: str) -> frozenset[str]:
    tokens = words(strip_article(name))
    if len(tokens) < 2:
        return frozenset()
    return frozenset(particles.SHORT_TITLES.get(t, t) for t in tokens[:_title_start(tokens)])  # "M." is "Monsieur"


def _compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two names' titles may belong to one person: "Dr." and none may, "Mr." and "Mrs." never."""
    return not (a and b and a != b) and not opposite(sex_of_words(a, TITLE_SEX), sex_of_words(b, TITLE_SEX))


def _group(chosen: dict[str, Candidate], appositions: dict[str, tuple[str, str]],
           apart: set[frozenset[str]] | None = None) -> list[Person]:
    """Names of one person as one. Taken as that person's, with the reason kept: a title the text sets beside
    a name ("Wilhelm ..., hereditary King of Bohemia"), the same name with a title or without ("Dr. Watson",
    "Watson"), a bare surname or first name only one full name has ("Holmes"), the one Count as "the Count".
    Left apart, for identity judging to ask about: a title with a surname ("Captain Kettle" for Bram Kettle),
    who may be a kinsman; and a short name the text says is kin to the full name (``apart``: "Linton
    Heathcliff was Heathcliff's son")."""
    owner: dict[str, str] = {}
    why: dict[str, str] = {}
    for title, (name, said) in appositions.items():
        if name in chosen and title != name:
            chosen.setdefault(title, chosen[name])
            owner[title] = name
            why[title] = f"the text names {name} so: \u201c{said}\u201d"
    names = sorted(chosen, key=lambda n: (-len(_core(n)), -len(n), n))
    by_core: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name in names:
        if name in owner or (len(words(name)) == 2 and words(name)[0] == "the"):
            continue
        key = tuple(_core(name))
        heads = [h for h in by_core[key] if _compatible(_titles(h), _titles(name))]
        if len(heads) != 1:  # none, or "De Rênal" beside Monsieur and Madame de Rênal: either, so its own
            by_core[key].append(name)
            owner.update({name: name} if heads else {})
        else:
            head = heads[0]
            owner[name] = head
            why[name] = f"{name!r} is {head} with a title or without one"
    shorter = particles.surname_forms({n: tuple(_core(n)) for n in names if len(_core(n)) >= 2 and n not in owner})
    owner.update(shorter)  # "de Coligny" for the one Gaspard de Coligny
    why.update({name: _reason(name, head) for name, head in shorter.items()})
    full = [n for n in names if len(_core(n)) >= 2 and n not in owner]
    # "Cardinal Richelieu", "Countess Olenska": a title and one name, whom "the Cardinal" alone may be too
    titled = [n for n in names if len(_core(n)) == 1 and _titles(n) and n not in full]
    for name in names:
        if name in owner or name in full:
            owner.setdefault(name, name)
            continue
        core = _core(name)
        rivals = [n for n in names if n != name and _core(n) == core and not _compatible(_titles(n), _titles(name))]
        matches = [m for m in _owners_of(name, core, full, titled) if m != name and not kept_apart(name, m, apart or set())]
        if len(matches) == 1 and not rivals:
            head = owner.get(matches[0], matches[0])
            if _titles(name) and not _titles(name) <= ROYAL | _titles(head):
                owner[name] = name
            else:
                owner[name] = head
                why[name] = _reason(name, matches[0])
        else:
            owner.setdefault(name, name)
    for name in owner:  # "the Cardinal" for Cardinal Richelieu, whom the story names Armand Richelieu too
        seen = {name}
        while owner[owner[name]] != owner[name] and owner[owner[name]] not in seen:
            seen.add(owner[name])
            owner[name] = owner[owner[name]]
    aliases: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name, head in owner.items():
        if head != name:
            aliases[head].append((name, why[name]))
    result: list[Person] = []
    for name in names:
        if owner[name] != name:
            continue
        entry = chosen[name]
        reasons = ", ".join(sorted(k for k, v in entry.evidence.items() if v))
        kind = "group" if entry.evidence["family"] else _kind(name)
        if kind == "individual" and entry.evidence["member of"] and not any(
                entry.evidence[k] for k in ("title", "speaks", "addressed", "owns", "acts", "described", "kin name")):
            kind = "faction"  # "Phileas Fogg was a member of the Reform": what one is a member of is a body
        result.append(Person(name, kind, tuple(aliases.get(name, [])), reasons))
    return result


# Titles an English knight or peer's child bears with the first name ("Sir Walter", "Lady Catherine", "Lord Henry"),
# where "Mr. James" is a surname: the first name so titled is the one full name with that title and first name.
_FIRST_NAME_TITLES = frozenset({"sir", "lady", "lord", "dame"})


def _owners_of(name: str, core: list[str], full: list[str], titled: list[str]) -> list[str]:
    """The full names a shorter ``name`` may be: same words without titles, or its surname or first name;
    for a title alone ("the Marquis"), any name with that title ("Marquis de la Mole", and of the ``titled``
    names, a title and one word: "Cardinal Richelieu"), so that two of them leave it its own name."""
    tokens = words(strip_article(name))
    titles = tokens[:_title_start(tokens)] if len(tokens) > 1 else []
    found: list[str] = []
    for other in full:
        theirs = _core(other)
        if other == name or (not _compatible(frozenset(titles), _titles(other)) and titles != ["the"]):
            continue
        first_name = len(core) == 1 and core[0] == theirs[0] and (
            not titles or set(titles) <= _FIRST_NAME_TITLES & _titles(other))  # "Sir James" for Sir James Chettam
        if core == theirs or (len(core) == 1 and core[0] == theirs[-1]) or first_name:
            found.append(other)
        elif len(tokens) == 1 and tokens[0] in ROYAL and tokens[0] in words(other)[:_title_start(words(other))] \
                and "of" not in words(other):
            # "the Count" for the one Count Von Kramm; never "the King" for the King of Scandinavia, who is
            # a king the text names by his country, often beside another.
            found.append(other)
    if len(tokens) == 1 and tokens[0] in ROYAL:
        found.extend(other for other in titled if other != name and tokens[0] in words(other)[:_title_start(words(other))]
                     and "of" not in words(other))
    return sorted(set(found))


def _reason(name: str, head: str) -> str:
    return f"the story calls {head} {name!r}, and no other person of the story goes by that name"

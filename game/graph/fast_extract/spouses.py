"""An unnamed spouse ("her husband", "his wife", "Emma's husband") as the one spouse the story has stated.

Novels name a marriage once ("Emma married Charles Bovary", "Charles Bovary, Emma's husband") and then say
"her husband" for the rest of the book: "Emma feared her husband" is Emma's fear of Charles, and a reader
that leaves "her husband" as no one loses every later bond of the marriage. The spouse is taken only from
marriages the extractor itself read earlier in the same text (``Spouses.note``, fed by the patterns' own
matches, guards and all), never from a list of names, and only when it is plain:

- the owner is resolved as any possessive's is (``possessives.owner_of``: the one person named before it in
  the sentence, else the one the last naming sentence named, a title or the text's genders ruling out the
  other sex), or written as a name ("Emma's husband");
- the story has stated exactly one spouse for that owner before the line: two husbands, or none, mean nobody;
- no name is set beside the noun ("her husband Charles", "her husband was Charles", "Charles, her husband"):
  the role patterns already read those, and a second slot would only muddle them;
- the noun stands bare: "her late husband", "her new husband", "her husband-to-be" may well be another man;
- no pronoun after it in the sentence was read as someone: those were resolved before the spouse was a slot
  ("Emma wrote to Mr. Boldwood; her husband hated him" had "him" as Emma, the one named before but the doer);
- a title or the text's genders do not say the "husband" is a woman (or the "wife" a man).

A line with a word of marriage the patterns did not read as a marriage of the people it names ("Later Emma
married Leon", "her new husband") may state a second one: those people are unsure from then on, and their
"her husband" reads nobody (``Spouses._settle``). Quoted lines are not read (``named(quoted=True)``): a
line's "her husband" is said in its speaker's frame, and "my husband" would be the speaker's, which the
dialogue reader does not always know.
Only husband, wife and spouse are read: "her lover" is no marriage and may be many people. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from game.graph.fast_extract.gazetteer import Entity
from game.graph.fast_extract.genders import Genders
from game.graph.fast_extract.patterns import KIN
from game.graph.fast_extract.possessives import may_own, owner_of

# The words that make a KIN_OF match a marriage: a verb of marrying or a spouse's noun.
_MARRIAGE = re.compile(r"\b(?:married|marry|marries|wed|weds|wedded|espoused|wife|husband|spouse)\b(?![\w'’-])")
_SPOUSE_NOUNS = frozenset({"wife", "husband", "spouse"})
# Any kin noun: one beside the marriage word may be whose kin the pair is ("Ann married Tom's brother Will" is
# a marriage, but "Tom's wife's sister Ann" is not), so a match holding one is not read as a marriage at all.
_KIN_NOUN = re.compile(rf"\b(?:{KIN})\b(?![\w'’-])")
_SLOT = re.compile(r"⟨(\d+)⟩")
# A marriage stated in any words, read or not: a verb of marrying, a spouse's or a widow's noun.
_STATES = re.compile(r"\b(?:married|marry|marries|marrying|marriage|remarried|wed|weds|wedded|wedding|espoused|"
                     r"wife|husband|spouse|wives|husbands|widow|widower|bride|bridegroom)\b(?!['’])")
# "her husband", "Emma's husband": the owner and a bare spouse noun. An adjective ("late", "new", "first",
# "future") or a compound ("husband-to-be", "husband's") is left alone.
_UNNAMED = re.compile(r"(?:\b(?P<pronoun>his|her)|⟨(?P<owner>\d+)⟩['’]s?)\s+(?P<noun>husband|wife|spouse)"
                      r"(?![\w'’-])")
# A name set after the noun: "her husband Charles", "her husband, Charles", "her husband was Charles", "her
# husband to be".
_NAMED_AFTER = re.compile(r",?\s+(?:the\s+|old\s+|young\s+|little\s+|poor\s+)?⟨|\s+(?:was|is|had\s+been|has\s+been)\s+"
                          r"(?:(?:old|young|little|poor|the)\s+)?⟨|\s+(?:to\s+be|that\s+was|named|called)\b")
# A name set before it: "Charles, her husband", "Charles was her husband", "Charles, who was her husband",
# "Adam knew Eve his wife".
_NAMED_BEFORE = re.compile(r"⟨\d+⟩(?:,|(?:,\s+who)?\s+(?:is|was|had\s+been|has\s+been|became|remained))?\s+$")


class _Slot(Protocol):
    @property
    def entity(self) -> Entity | None: ...

    @property
    def pronoun(self) -> bool: ...


S = TypeVar("S", bound=_Slot)


def _never() -> Entity:
    """An owner-to-be set "beside" nobody: ``owner_of`` excludes its ``beside`` from the owners, and the
    spouse is not known until the owner is."""
    return Entity("", "", "individual")


class Spouses:
    """The marriages one text has stated so far, each way round: whom each person is said to be married to,
    and who may have a marriage the patterns did not read (``unsure``)."""

    def __init__(self) -> None:
        self._of: dict[str, dict[str, Entity]] = {}
        self._unsure: set[str] = set()
        self._now: set[str] = set()  # who the line being read was read as married
        self._line: tuple[str, list[Entity], list[Entity]] | None = None

    def note(self, relation: str, said: str, source: Entity, target: Entity) -> None:
        """A pair a pattern's match ``said`` relates: kept as married when the relation is kin and the match
        says so with a word of marriage and no other kin word ("Emma married Charles", "Charles, Emma's
        husband", "Madame Bovary was the wife of Charles")."""
        if relation != "KIN_OF" or source.id == target.id or not _MARRIAGE.search(said):
            return
        if any(word.group() not in _SPOUSE_NOUNS for word in _KIN_NOUN.finditer(said)):
            return
        self._of.setdefault(source.id, {})[target.id] = target
        self._of.setdefault(target.id, {})[source.id] = source
        self._now.update((source.id, target.id))

    def sole(self, person: Entity) -> Entity | None:
        """The one spouse the text has stated for ``person``, or None for none or more than one."""
        spouses = self._of.get(person.id, {})
        return next(iter(spouses.values())) if len(spouses) == 1 and person.id not in self._unsure else None

    def _settle(self) -> None:
        """After a line is read: a word of marriage it holds that the patterns read as no marriage of a
        person it names ("Later Emma married Leon", "Emma hoped to marry Leon", "her husband Leon" of an
        owner not plain) may be a second marriage, so each person it names, and the last naming line's
        people when a "his" or "her" is left in it, is unsure: their "her husband" reads nobody from now on.
        A bare "her husband" left unread only refers to a spouse, and states none."""
        if self._line is None:
            return
        template, named, context = self._line
        rest = "".join(piece for index, piece in enumerate(_UNNAMED.split(template)) if index % 4 == 0)
        for match in _UNNAMED.finditer(template):
            if not _bare(match, template):
                rest += f" {match.group()}"  # a spouse named beside it: a marriage stated
        if _STATES.search(rest):
            owners = context if re.search(r"\b(?:his|her)\b", rest) else []
            self._unsure.update(who.id for who in [*named, *owners]
                                if who.type == "individual" and who.id not in self._now)
        self._line, self._now = None, set()

    def named(self, template: str, slots: Sequence[S], make: Callable[[Entity], S], context: list[Entity],
              genders: Genders | None, quoted: bool = False) -> tuple[list[S], str]:
        """The template with each unnamed spouse whose owner is plain made a slot of that owner's one spouse
        (``make`` builds it), and the slots renumbered in the order they now stand; a ``quoted`` line as it is.
        Called for every line, before it is read: the line before is settled first (``_settle``)."""
        self._settle()
        slots, template = self._named(template, slots, make, context, genders) if not quoted else (list(slots), template)
        self._line = (template, [slot.entity for slot in slots if slot.entity is not None], list(context))
        return slots, template

    def _named(self, template: str, slots: Sequence[S], make: Callable[[Entity], S], context: list[Entity],
               genders: Genders | None) -> tuple[list[S], str]:
        if not self._of:
            return list(slots), template
        pieces: list[str] = []
        added: list[S] = []
        position = 0
        for match in _UNNAMED.finditer(template):
            if not _bare(match, template):
                continue
            if any(slots[int(n)].pronoun and slots[int(n)].entity is not None
                   for n in _SLOT.findall(template, match.end())):
                # "Emma wrote to Mr. Boldwood; her husband hated him": "him" was read as someone other than
                # the last one named before it, and the husband, not yet a slot then, was not among them
                continue
            spouse = self._spouse(match, template, slots, context, genders)
            if spouse is None:
                continue
            pieces.append(f"{template[position:match.start()]}⟨{len(slots) + len(added)}⟩")
            added.append(make(spouse))
            position = match.end()
        if not added:
            return list(slots), template
        pieces.append(template[position:])
        return _renumbered("".join(pieces), [*slots, *added])

    def _spouse(self, match: re.Match[str], template: str, slots: Sequence[S], context: list[Entity],
                genders: Genders | None) -> Entity | None:
        """Whose spouse the phrase is, as the extractor reads its owner, and that owner's one spouse, unless
        a title or the text says the spouse is not of the noun's sex (a "husband" known to be a woman: the
        owner was misread)."""
        if match.group("owner") is not None:
            owner = slots[int(match.group("owner"))].entity
            spouse = self.sole(owner) if owner is not None and owner.type == "individual" else None
        else:
            before = [(m.start(), m.end(), entity) for m in _SLOT.finditer(template[:match.start()])
                      if (entity := slots[int(m.group(1))].entity) is not None]
            owner = owner_of(match.group("pronoun"), before, _never(), context, genders)
            spouse = self.sole(owner) if owner is not None else None
            # The spouse, when named before in the sentence, is no candidate owner: the owner must be the same
            # without them ("Charles and Emma ... her husband" is Emma's only if Charles cannot be "her").
            if spouse is not None and owner_of(match.group("pronoun"), before, spouse, context, genders) != owner:
                return None
        if spouse is None or match.group("noun") == "spouse":
            return spouse
        pronoun = "his" if match.group("noun") == "husband" else "her"
        fits = may_own(pronoun, spouse) and (genders is None or genders.allows(pronoun, spouse))
        return spouse if fits else None


def _bare(match: re.Match[str], template: str) -> bool:
    """Whether an owned spouse noun has no name set beside it, before or after."""
    return not (_NAMED_AFTER.match(template, match.end()) or _NAMED_BEFORE.search(template[:match.start()]))


def _renumbered(template: str, slots: list[S]) -> tuple[list[S], str]:
    """Slots numbered in the order they stand, as every template is: a slot the phrase took its owner from
    ("⟨0⟩'s husband" made one slot) is dropped."""
    order: list[S] = []

    def number(match: re.Match[str]) -> str:
        order.append(slots[int(match.group(1))])
        return f"⟨{len(order) - 1}⟩"

    return order, _SLOT.sub(number, template)

"""Relation phrases: English patterns per default relation, a few Chinese ones, and the vocabulary's words.

Patterns run over a *template*: a clause, normalized (case-folded, quotes straightened) with every name
or pronoun replaced by a slot ``⟨n⟩``. A pattern captures the slots of its two sides in the groups ``x``
and ``y`` (either may hold a list: "Mira and Tomas fear Oren"); ``relation`` is written as the vocabulary
knows it (``EMPLOYS``, ``LED_BY``), so the vocabulary turns inverses round exactly as it does for a model's
upsert. Patterns are strict about what stands between the two names: a handful of adverbs and auxiliaries
only, so "Mira trusts nobody who knows Tomas" or "the man who hired Tomas fears Oren" state nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from game.graph.vocabulary import Vocabulary, to_upper_snake


class Shape(Enum):
    """How a match's slots become pairs."""

    PAIRS = "pairs"  # every x with every y
    MUTUAL = "mutual"  # every two of x ("Mira and Tomas are allies"); y is empty
    RECIPROCAL = "reciprocal"  # every two of x, each way round ("Mira and Tomas hated each other")


@dataclass(frozen=True)
class Pattern:
    """One relation phrase: a compiled regex, the relation it states, and how sure a match makes us."""

    family: str
    relation: str
    regex: re.Pattern[str]
    confidence: float
    shape: Shape = Shape.PAIRS
    group_target: bool = False  # the target must be a group or faction ("Mira leads the Watch")
    anywhere: bool = False  # no check of what stands before it (Chinese has no word gaps; noun phrases)
    phrase: bool = False
    """A noun phrase ("her sister Beth", "Jup, Legrand's servant"): true whatever the clause around it does
    ("he must see his aunt, Lady Agatha"), so only the phrase itself and the word before it are guarded."""
    needs: str = ""
    """Text every match holds ("'" of a possessive, "who"): a clause without it is not tried, which keeps the
    many role patterns from costing each clause their full match."""


SLOT = r"⟨\d+⟩"
_THE = r"(?:the\s+)?"
# A list of names: "A and B", "A, B and C", "A, B, and C". Commas alone do not make a list: in "he owes
# Veyra, he owes the Guild" the comma ends one statement and starts another.
_LIST_TAIL = rf"(?:(?:,\s*(?:the\s+)?{SLOT})*,?\s+and\s+(?:the\s+)?{SLOT})"
ADV = (r"(?:(?:still|also|clearly|truly|deeply|always|secretly|openly|now|really|quietly|plainly|obviously|"
       r"certainly|already|long|deep|fiercely|utterly|completely|greatly|both|all|has|have|had|been|very|so|"
       r"privately|bitterly|dearly|madly|desperately|loyally|faithfully|soon|often|sometimes|suddenly|gradually|"
       r"slowly|quickly|presently|instantly|passionately|tenderly|sincerely|heartily|cordially|intensely|"
       r"genuinely|positively|absolutely|quite|thoroughly|entirely|wholly|evidently|§)\s+){0,3}")
# "been" alone after adverbs that took its "had": "who had long been Ann's friend"
BE = r"(?:is|are|was|were|has\s+been|have\s+been|had\s+been|becomes|became|become|remains|remained|(?<=\bhad\s)(?:[a-z]+\s+)?been|(?<=\blong\s)been)\s+"
ADJ = (r"(?:(?:sworn|old|bitter|close|great|firm|fast|good|loyal|staunch|distant|trusted|younger|older|"
       r"elder|little|big|twin|only|new|former|dear|best|chief|oldest|youngest|true|favourite|favorite|closest|"
       r"dearest|truest|second|third|fourth|fifth|sixth|eldest|half|step|faithful|devoted|trusty|own|constant|"
       r"bosom|intimate|particular|childhood|boyhood|girlhood|lifelong|beloved|worthy|honest|valued|humble)\s+){0,2}")
# Kin by marriage first, so that "sister-in-law" is never read as "sister" with a word left over.
KIN = (r"(?:sons?|daughters?|brothers?|sisters?|mother|father)-in-law|widow|widower|papa|mamma|mama|foster-brother|"
       r"foster-sister|foster-mother|foster-father|"
       r"sisters?|brothers?|mother|father|sons?|daughters?|cousins?|aunt|uncle|niece|nephew|twins?|siblings?|"
       r"grandmother|grandfather|grandson|granddaughter|half-sister|half-brother|stepsister|stepbrother|"
       r"stepmother|stepfather|wife|husband|spouse|mum|mom|dad|ma|pa|kin|kinsman|kinswoman")
LEADER = r"captain|leader|head|chief|commander|master|mistress|lord|lady|ruler|boss|founder|general|queen|king"
SERVANT = (r"servants?|stewards?|bodyguards?|squires?|retainers?|employees?|maids?|valets?|hirelings?|lackeys?|"
           # a household's and a firm's people: "Mrs. Medlock, his housekeeper", "Le Bon, clerk to Mignaud"
           r"housekeepers?|butlers?|footm[ae]n|housemaids?|maidservants?|manservants?|menservants|clerks?|"
           r"governess|governesses|nursemaids?|coachm[ae]n|gardeners?|secretary|secretaries|apprentices?|"
           r"lackeys?|pages?|attendants?|cooks?|ostlers?|grooms(?!-)|groom(?!-)|porters?|farm-servants?|"
           r"serving-m[ae]n|serving-maids?|waiting-maids?|lady's-maids?|chambermaids?|kitchen-maids?|"
           # one who does another's bidding unpaid or in secret: "the Cardinal's spy", "Milady, the Cardinal's agent"
           r"spy|spies|henchm[ae]n|minions?|agents?|emissar(?:y|ies)|envoys?")
ROLE_NOUNS = "|".join([KIN, LEADER, SERVANT, r"allies|ally|friends?|rivals?|enemy|enemies|foes?|nemesis",
                       r"creditors?|debtors?|employer|members?"])
# "Mira works for Tomas's rival Oren": the object is Oren, the slot after a possessive role; "feared his uncle,
# John Pryor" as well, when the one name after the comma ends the phrase (", John, Ann and Tom" may be a list).
_OBJ_ROLE = (rf"(?:(?:{SLOT}'s?|his|her|their)\s+{ADJ}(?:{ROLE_NOUNS})(?:\s+|,\s+(?=(?:the\s+)?{SLOT}(?!['’])"
             rf"(?:\s*(?:$|[.;:!?—])|,\s+(?:who|whom|whose|but|when|while|as|because|though|although|since|for)\b))))?")
# An object followed by a verb of its own begins a clause: "Mira fears the Watch will come" is not fear of
# the Watch, and "Mira knows Tomas is lying" is not acquaintance.
_CLAUSE_VERB = r"will|would|could|might|may|can|is|was|are|were|has|had|have|did|does|do|should|must|shall"
OBJ = rf"{_OBJ_ROLE}(?:all\s+)?{_THE}(?P<y>{SLOT}{_LIST_TAIL}?)(?!')(?!\s+(?:{_CLAUSE_VERB})\b)"
# "Bram, captain of the Watch, trusts Oren": an appositive role between a subject and its verb.
_APPOSITIVE = (rf"(?:,\s+(?:the\s+|a\s+|an\s+)?{ADJ}(?:{ROLE_NOUNS})\s+(?:of|to)\s+{_THE}{SLOT},"
               rf"|,\s+{_THE}{SLOT}'s?\s+{ADJ}(?:{ROLE_NOUNS}),"
               # "Akela, the great gray Lone Wolf, who led all the Pack": a description in apposition
               rf"|,\s+(?:the|a|an)\s+(?:[a-z][\w-]*\s+){{0,4}}?(?:[a-z][\w-]*|{SLOT}),(?=\s+who\b))?")
SUBJ = rf"{_THE}(?P<x>{SLOT}{_LIST_TAIL}?){_APPOSITIVE}(?:,?\s+who)?"
POSSESSOR = rf"{_THE}(?P<y>{SLOT})'s?"


def _compile(body: str) -> re.Pattern[str]:
    return re.compile(body)


# "He began to love Phileas Fogg", "Mira came to trust Tomas": a feeling that starts is the feeling.
_STARTS = r"(?:(?:began|begins|begin|begun|came|comes|grew|grows|learned|learnt|learns)\s+to\s+)?"


_NOT_COMPANY = r"(?!\s+(?:at|in|on|for|by|beside|near|over|after|under|round|around|outside|inside|upon)\b)"


def verb(relation: str, forms: str, *, tail: str = "", group_target: bool = False) -> Pattern:
    """``X (adverbs) VERB Y``: "Mira trusts Tomas", "Oren has always feared the Watch", "he began to love Y"."""
    return Pattern("verb", relation, _compile(rf"{SUBJ}\s+{ADV}{_STARTS}(?:{forms})\s+{OBJ}{tail}"), 0.65,
                   group_target=group_target)


def being(relation: str, phrase: str, *, group_target: bool = False) -> Pattern:
    """``X is (adverbs) PHRASE Y``: "Oren is afraid of Mira", "Mira was devoted to Tomas"."""
    return Pattern("being", relation, _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:{phrase})\s+{OBJ}"), 0.65,
                   group_target=group_target)


def passive(relation: str, participle: str) -> Pattern:
    """``Y is PARTICIPLE by X``: "Tomas is feared by Oren" (the relation's source is the agent)."""
    regex = _compile(rf"{_THE}(?P<y>{SLOT}{_LIST_TAIL}?)\s+{ADV}{BE}{ADV}(?:{participle})\s+by\s+"
                     rf"{_THE}(?P<x>{SLOT})(?!')")
    return Pattern("passive", relation, regex, 0.6)


NAMES_ANOTHER = (r"(?!\s+(?:of|to|unto|with)\s+(?!(?:each\s+other|one\s+another|old|long|many|years|some\s+years|a\s+lifetime|"
                 r"childhood|boyhood|girlhood|youth|the\s+end|the\s+last)\b))")
"""After a mutual plural ("were friends"): not followed by "of", "to" or "with" another. "Tom and Will were friends
of Ann" says each is Ann's friend (``lists``), not that they are each other's, and so does "brothers to her" or
"friends of ann" when Ann is no name the reader knows (a template is case-folded, so any word after "of" may be
one); "friends of long standing", "friends with each other" still are."""


def mutual(relation: str, plural: str) -> Pattern:
    """``X and Y are PLURAL``: "Mira and Tomas are old allies" (symmetric relations), not "allies of Oren"."""
    regex = _compile(rf"{_THE}(?P<x>{SLOT}{_LIST_TAIL})\s+{ADV}(?:are|were|have\s+been|had\s+been|"
                     rf"became|remain|remained)\s+{ADV}{ADJ}(?:{plural})\b{NAMES_ANOTHER}")
    return Pattern("mutual", relation, regex, 0.65, Shape.MUTUAL)


def mutual_verb(relation: str, forms: str, *, tail: str = r"\s+(?:each\s+other|one\s+another)",
                shape: Shape = Shape.MUTUAL) -> Pattern:
    """``X and Y VERB each other``: "Mira and Tomas know each other" (``RECIPROCAL``: each feels it of the other)."""
    regex = _compile(rf"{_THE}(?P<x>{SLOT}{_LIST_TAIL})\s+{ADV}(?:{forms}){tail}")
    return Pattern("mutual", relation, regex, 0.6, shape)


def role(relation: str, nouns: str, *, reverse: bool = False, group_target: bool = False) -> list[Pattern]:
    """What X is to Y, said with a role noun (``relation(X, Y)``, or ``relation(Y, X)`` when ``reverse``).

    "Tomas's sister Elin", "Elin, Tomas's sister", "Elin is Tomas's sister", "Bram, captain of the
    Watch", "Bram is the captain of the Watch", "the Watch's captain Bram".
    """
    x, y = ("y", "x") if reverse else ("x", "y")
    person = rf"{_THE}(?P<{x}>{SLOT})"
    owner = rf"{_THE}(?P<{y}>{SLOT})"
    # "the sister of Tom and Will": each of a list ending the phrase (one running on into a verb is not a list)
    owners = rf"{_THE}(?P<{y}>{SLOT}(?:{_LIST_TAIL}(?![\'’])(?=\s*(?:$|[,.;:!?])))?)"
    noun = rf"(?!(?:[a-z]+\s+)?former\b){ADJ}(?:{nouns})"  # "his former servant" serves no longer
    bodies = [
        # Tomas's sister Elin; "her sister Maria's daughter" is still Maria, but after a comma a name owning
        # something may be another's apposition ("Tom's cousin, Will's friend, came in")
        rf"{owner}'s?\s+{noun}(?P<comma>,)?\s+(?:(?:old|young|little|poor)\s+)?{person}(?(comma)(?!'))",
        rf"{person},\s+{owner}'s?\s+{noun}\b",  # Elin, Tomas's sister
        rf"{person}\s+{ADV}{BE}{ADV}{owner}'s?\s+{noun}\b",  # Elin is Tomas's sister
        # Bram, captain of the Watch; "Mr. Brooke was the uncle and guardian of Dorothea"
        rf"{person},?\s+(?:{ADV}{BE})?(?:the\s+|a\s+|an\s+|one\s+of\s+the\s+)?{noun}(?:\s+and\s+[a-z]+)?\s+(?:of|to)\s+{owners}(?!')",
    ]
    # The first two are noun phrases, true wherever they stand ("Mira trusts Tomas's sister Elin"); the
    # others are clauses, whose subject must start where a subject can, but for a relative clause set
    # beside a name, which describes it wherever it stands ("Mira met Colin, who was Tomas's cousin").
    bodies.append(rf"{person},\s+who\s+{ADV}{BE}{ADV}{owner}'s?\s+{noun}\b")
    # "Tomas's sister was Elin", "Her father was old Rouault": the role first, its holder after the copula
    bodies.append(rf"{owner}'s?\s+{noun}\s+(?:was|is|had\s+been|has\s+been)\s+(?:(?:old|young|little|poor)\s+)?"
                  rf"{person}(?!['’])(?=\s*(?:$|[,.;:!?]|\s+(?:who|and|but)\b))")
    needs = ("'", "'", "'", "", "who", "'")
    return [Pattern("role", relation, _compile(body), 0.65, group_target=group_target,
                    anywhere=number < 2 or number == 4, phrase=number < 2 or number == 4, needs=needs[number])
            for number, body in enumerate(bodies)]


def cjk(relation: str, body: str, *, shape: Shape = Shape.PAIRS) -> Pattern:
    """A Chinese pattern: ``X`` and ``Y`` in ``body`` stand for the two slots."""
    slot_x = rf"(?P<x>{SLOT})" if shape is Shape.PAIRS else rf"(?P<x>{SLOT}(?:[和与與跟]{SLOT})+)"
    regex = _compile(body.replace("X", slot_x).replace("Y", rf"(?P<y>{SLOT})"))
    return Pattern("cjk", relation, regex, 0.6, shape, anywhere=True)


_CJK_ADV = r"§?(?:一直|仍然|依然|还是|非常|很|十分|完全|深深地|暗暗地|也|都|始终|早已)?"
_CJK_KIN = r"姐姐|妹妹|哥哥|弟弟|父亲|母亲|儿子|女儿|表妹|表姐|表哥|表弟|堂兄|堂弟|叔叔|阿姨|侄子|侄女|孙子|孙女|爷爷|奶奶|妻子|丈夫|兄弟|姐妹"
_CJK_LEADER = r"首领|头领|领袖|队长|船长|首脑|头目|统领"
_NOT_POSSESSIVE = "(?!的)"

ENGLISH: tuple[Pattern, ...] = (
    verb("TRUSTS", r"trusts|trust|trusted|relies\s+on|rely\s+on|relied\s+on|confides\s+in|confided\s+in|"
                   r"believes\s+in|believed\s+in|has\s+faith\s+in|had\s+faith\s+in"),
    passive("TRUSTS", r"trusted"),
    verb("DISTRUSTS", r"distrusts|distrust|distrusted|mistrusts|mistrust|mistrusted|suspects|suspected|"
                      r"doubts|doubted"),
    being("DISTRUSTS", r"suspicious\s+of|wary\s+of"),
    passive("DISTRUSTS", r"distrusted|mistrusted|suspected"),
    verb("FEARS", r"fears|fear|feared|dreads|dread|dreaded|trembles\s+before|trembled\s+before"),
    being("FEARS", r"afraid\s+of|scared\s+of|terrified\s+of|frightened\s+of|fearful\s+of"),
    passive("FEARS", r"feared|dreaded"),
    verb("LOVES", r"loves|love|loved|adores|adore|adored|fell\s+in\s+love\s+with|falls\s+in\s+love\s+with|"
                  r"(?:has\s+|had\s+)?fallen\s+in\s+love\s+with|doted\s+on|dotes\s+on|worshipped|worships|idolised|"
                  r"idolized"),
    being("LOVES", r"in\s+love\s+with|devoted\s+to"),
    passive("LOVES", r"loved|adored"),
    verb("HATES", r"hates|hate|hated|despises|despise|despised|loathes|loathe|loathed|resents|resent|resented|"
                  r"detests|detest|detested|abhors|abhor|abhorred"),
    passive("HATES", r"hated|despised|loathed|detested|resented"),
    *role("KIN_OF", KIN),
    mutual("KIN_OF", r"sisters|brothers|siblings|cousins|twins|kin|family|kinsmen|kinswomen|related|"
                     # "Hindley and Cathy were brother and sister"
                     r"brother\s+and\s+sister|sister\s+and\s+brother|(?:father|mother)\s+and\s+(?:son|daughter)"),
    # "Laurie and Jo were engaged", "... engaged to be married" (not "engaged in talk", "engaged to others")
    Pattern("mutual", "ENGAGED_TO", _compile(rf"{_THE}(?P<x>{SLOT}\s+and\s+{_THE}{SLOT})\s+{ADV}(?:are|were|have\s+been|"
                                             rf"had\s+been|got|became)\s+{ADV}(?:engaged|betrothed)\b(?:\s+to\s+be\s+married\b)?"
                                             rf"(?!\s+(?:in|to|as|for|on|at|with|by|upon)\b)"), 0.6, Shape.MUTUAL),
    # "Frank and Edith were married in June" (to each other: "were married to" others is not read)
    Pattern("mutual", "KIN_OF", _compile(rf"{_THE}(?P<x>{SLOT}\s+and\s+{_THE}{SLOT})\s+{ADV}(?:are|were|have\s+been|had\s+been|"
                                         rf"got|became)\s+{ADV}(?:married|wed|husband\s+and\s+wife|man\s+and\s+wife)\b"
                                         rf"(?!\s+(?:to|in\s+turn)\b)"), 0.6, Shape.MUTUAL),
    being("KIN_OF", r"related\s+to|kin\s+to"),
    verb("ALLY_OF", r"allied\s+with|sided\s+with|befriended|joined\s+forces\s+with|made\s+an\s+alliance\s+with"),
    being("ALLY_OF", rf"allied\s+with|friends\s+with|an\s+{ADJ}ally\s+of|an?\s+{ADJ}(?:great\s+)?friend\s+of"),
    mutual("ALLY_OF", r"allies|friends|allied"),
    *role("ALLY_OF", r"ally|friend"),
    verb("RIVAL_OF", r"rivals|competes\s+with|compete\s+with|competed\s+with|vies\s+with|vied\s+with"),
    mutual("RIVAL_OF", r"rivals"),
    *role("RIVAL_OF", r"rival"),
    verb("ENEMY_OF", r"declared\s+war\s+on|feuds\s+with|feuded\s+with|wages\s+war\s+on|waged\s+war\s+on"),
    being("ENEMY_OF", r"at\s+war\s+with|an\s+enemy\s+of|the\s+enemy\s+of|hostile\s+to|sworn\s+against"),
    mutual("ENEMY_OF", r"enemies|foes"),
    *role("ENEMY_OF", r"enemy|foe|nemesis"),
    being("MEMBER_OF", r"a\s+member\s+of|one\s+of\s+the|sworn\s+to|part\s+of|members\s+of|entered\s+into|"
                       r"admitted\s+(?:to|into)|accepted\s+into|received\s+into", group_target=True),
    verb("MEMBER_OF", r"belongs\s+to|belong\s+to|belonged\s+to|serves\s+in|served\s+in|"
                      r"rides\s+with|sails\s+with", group_target=True),
    # "joined the Hales at dinner" is company for an evening, not membership
    verb("MEMBER_OF", r"joined|joins", tail=_NOT_COMPANY, group_target=True),
    *role("MEMBER_OF", r"members?|soldiers?|officers?|sailors?|agents?", group_target=True),
    # "Mira led the Watch to the warehouse" is guiding, not leading.
    verb("LEADS", r"leads|led|commands|commanded|heads|headed|rules|ruled|captains|captained|runs|ran",
         tail=r"(?!\s+(?:to|into|through|away|out|back|down|up|across|toward|towards|past|around|along|off)\b)",
         group_target=True),
    passive("LEADS", r"led|commanded|headed|ruled|run|captained"),
    *role("LEADS", LEADER.replace("master|mistress|", "")),
    # "Bram, master of the Watch" leads it; "Jup's master, Legrand" is served by Jup
    *role("LEADS", r"master|mistress", group_target=True),
    # ... but "Emma was Rodolphe's mistress" is love, not service: only a master is surely the one served
    *role("SERVES", r"master", reverse=True)[:3],
    # "Rodolphe was Emma's lover", "her suitor, Mr. Collins": the lover loves; "his sweetheart Becky" is loved
    *role("LOVES", r"lover|admirer|suitor|wooer")[:3],
    *role("LOVES", r"sweetheart|beloved", reverse=True)[:3],
    verb("SERVES", r"works\s+for|work\s+for|worked\s+for|obeys|obey|obeyed|spies\s+for|spied\s+for|"
                   r"answers\s+to|answered\s+to|reports\s+to|reported\s+to"),
    verb("SERVES", r"serves|serve|served", tail=r"(?=\s*$|\s*[,.;!]|\s+(?:as|faithfully|loyally|well|now|still|for\s+(?:many|"
                                                 r"some|years|a\s+long|all|(?:[a-z]+-)?[a-z]+\s+years)|since)\b)"),
    being("SERVES", r"employed\s+by|in\s+the\s+service\s+of|in\s+the\s+pay\s+of|loyal\s+to|sworn\s+to\s+serve"),
    verb("EMPLOYS", r"employs|employed|hires|hired|pays|paid"),
    *role("SERVES", SERVANT),
    *role("EMPLOYS", r"employer"),
    # "Legrand's man Jupiter", "Jup, Legrand's old man,": a man owned is a manservant (a clause "Tomas is
    # Oren's man" is left alone: "I'm your man" agrees to a plan)
    *role("SERVES", r"man")[:2],
    Pattern("role", "SERVES", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}in\s+{POSSESSOR}\s+(?:service|pay|employ)\b"), 0.65),
    verb("OWES", r"owes|owe|owed"),
    verb("OWES", r"(?:owes|owe|owed)\s+(?:\w+\s+){1,3}to"),
    being("OWES", r"in\s+debt\s+to|indebted\s+to|beholden\s+to"),
    Pattern("role", "OWES", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}in\s+{POSSESSOR}\s+debt\b"), 0.65),
    *role("OWES", r"debtors?"),
    *role("OWED_BY", r"creditors?"),
    Pattern("role", "KNOWS_SECRET_OF", _compile(
        rf"{SUBJ}\s+{ADV}(?:knows|know|knew|learned|learnt|discovered|holds|keeps|kept|guards|guarded)\s+"
        rf"{POSSESSOR}\s+{ADJ}(?:\w+\s+)?secrets?\b"), 0.65),
    verb("KNOWS_SECRET_OF", r"(?:knows|know|knew|learned|learnt|discovered|holds|held|keeps|kept)\s+"
                            r"(?:a|the|one)\s+(?:\w+\s+)?(?:secret|truth)\s+(?:about|of)|has\s+dirt\s+on|had\s+dirt\s+on"),
    verb("KNOWS", r"knows|know|knew|met|has\s+met|had\s+met|recognised|recognized",
         tail=r"(?=\s*$|\s*[,.;!]|\s+(?:well|by\s+sight|from|of\s+old|since|for\s+years|at|in|on|years|long|during|last|yesterday)\b)"),
    being("KNOWS", r"acquainted\s+with|an\s+acquaintance\s+of|an\s+old\s+acquaintance\s+of"),
    mutual_verb("KNOWS", r"know|knew|have\s+met|had\s+met|met"),
    mutual_verb("KNOWS", r"met|have\s+met|had\s+met", tail=r"(?=\s*$|\s*[,.;!]|\s+(?:at|in|on|by|during|years|long|once)\b)"),
    # "Tom and Will hated each other": each the other's, both ways round
    *(mutual_verb(relation, forms, tail=r"\s+(?:each\s+other|one\s+another)(?!['’])", shape=Shape.RECIPROCAL)
      for relation, forms in (  # "feared each other's dogs" is no fear of each other
        ("HATES", r"hate|hated|despise|despised|loathe|loathed|detest|detested"),
        ("LOVES", r"love|loved|adore|adored"),
        ("FEARS", r"fear|feared|dread|dreaded"),
        ("TRUSTS", r"trust|trusted"),
        ("DISTRUSTS", r"distrust|distrusted|mistrust|mistrusted|suspect|suspected"))),
)

CHINESE: tuple[Pattern, ...] = (
    cjk("TRUSTS", rf"X{_CJK_ADV}(?:信任|信赖|相信)Y"),
    cjk("DISTRUSTS", rf"X{_CJK_ADV}(?:怀疑|猜疑|提防)Y"),
    cjk("FEARS", rf"X{_CJK_ADV}(?:害怕|畏惧|惧怕|怕)Y"),
    cjk("LOVES", rf"X{_CJK_ADV}(?:深爱着|深爱|爱着|爱慕|爱上了|爱)Y"),
    cjk("HATES", rf"X{_CJK_ADV}(?:憎恨|痛恨|怨恨|厌恶|恨)Y"),
    cjk("KIN_OF", rf"X是Y的(?:{_CJK_KIN})"),
    cjk("KIN_OF", rf"Y的(?:{_CJK_KIN})X"),
    cjk("KIN_OF", r"X是(?:兄弟|姐妹|兄妹|姐弟|亲戚|表亲|夫妻)", shape=Shape.MUTUAL),
    cjk("MEMBER_OF", r"X(?:是|为)Y的成员"),
    cjk("MEMBER_OF", r"X(?:加入了|加入|属于)Y"),
    cjk("LEADS", rf"X{_CJK_ADV}(?:领导着|领导|率领|统领|掌管)Y"),
    cjk("LEADS", rf"X是Y的(?:{_CJK_LEADER})"),
    cjk("LEADS", rf"Y的(?:{_CJK_LEADER})X"),
    cjk("SERVES", rf"X{_CJK_ADV}(?:为|替)Y(?:效力|做事|工作|卖命)"),
    cjk("SERVES", rf"X{_CJK_ADV}效忠(?:于)?Y"),
    cjk("SERVES", r"X是Y的(?:仆人|手下|部下|随从|护卫)"),
    cjk("OWES", rf"X{_CJK_ADV}欠(?:了)?Y"),
    cjk("KNOWS_SECRET_OF", rf"X{_CJK_ADV}知道Y的秘密"),
    cjk("KNOWS", rf"X{_CJK_ADV}认识Y{_NOT_POSSESSIVE}"),
    cjk("ENEMY_OF", r"X是Y的(?:敌人|仇人|死敌)"),
    cjk("ENEMY_OF", r"X是(?:敌人|仇人|死敌)", shape=Shape.MUTUAL),
    cjk("ALLY_OF", r"X是Y的(?:盟友|朋友|同盟)"),
    cjk("ALLY_OF", r"X是(?:盟友|朋友|同盟)", shape=Shape.MUTUAL),
    cjk("ALLY_OF", r"X(?:结盟|结为同盟)", shape=Shape.MUTUAL),
    cjk("RIVAL_OF", r"X是Y的(?:对手|竞争对手)"),
    cjk("RIVAL_OF", r"X是(?:对手|竞争对手)", shape=Shape.MUTUAL),
)

# Vocabulary words that are also everyday verbs with other senses ("serves wine", "heads home"): the
# English patterns above say when they mean a relation; as bare vocabulary phrases they would guess.
_AMBIGUOUS_WORDS = frozenset({"SERVES", "RULES", "HEADS", "COMMANDS", "LEADS", "OBEYS", "KIN", "MET", "KNOWS",
                              "KNOWS_OF", "TRUST", "FEAR", "LOVE", "HATE", "DISTRUST"})
_CHECKED_TARGETS = frozenset({"MEMBER_OF", "LEADS"})


def vocabulary_patterns(vocabulary: Vocabulary) -> list[Pattern]:
    """A pattern for every relation name, synonym and inverse of the save's vocabulary, the world's own
    included: ``SWORN_ENEMY_OF`` reads "X is sworn enemy of Y" and "X sworn enemy of Y"."""
    patterns: list[Pattern] = []
    seen: set[str] = set()
    for spec in vocabulary.relations.values():
        words = [spec.name, *spec.synonyms, *([spec.inverse] if spec.inverse else [])]
        for word in words:
            written = to_upper_snake(word)
            if written in seen or written in _AMBIGUOUS_WORDS:
                continue
            seen.add(written)
            phrase = r"\s+".join(re.escape(part) for part in written.lower().split("_") if part)
            if not phrase:
                continue
            body = rf"{SUBJ}\s+{ADV}(?:{BE}{ADV})?(?:an?\s+|the\s+)?{phrase}\s+{OBJ}"
            patterns.append(Pattern("vocabulary", written, _compile(body), 0.55,
                                    group_target=vocabulary.normalize(written).name in _CHECKED_TARGETS))
    return patterns

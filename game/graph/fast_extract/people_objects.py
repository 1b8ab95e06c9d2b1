"""People by what is done to them: a name the text treats as a person where it is no subject (issue 26).

``people`` reads most of a name's evidence from what the name does or says. A name written once is often
only done to: "John Pryor disliked Thomas Hale", "he had dismissed James Forster", "spoke to Arthur
Holmwood", "walking hand in hand with Dinah", "fond of Marilla", "the noble spirit of Clerval". Verbs and
prepositions whose object is a person (a feeling, a word said, a hand laid on someone) make the name after
them a person; verbs a place can take ("visited Paris", "sailed for France", "left London", "thought of
England") are not among them. Beside them are the near misses such readings must not take: a well-known
country or city, a nation's people ("Americans", "the Parsee"), a participle opening a sentence ("Having
paid his debts"), a thing named for its owner ("Miss Fulsom's Kindergarten" is Miss Fulsom's). Kept apart
from ``people`` so that each stays a module one can read, and so that the constructions a name written once
is found by can be read (and tested) together. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter

_OBJECT_VERBS = (
    # feelings
    r"likes|liked|(?:do|did|does|not|n['’]t|to)\s+like|dislik(?:e|es|ed)|lov(?:e|es|ed)|ador(?:e|es|ed)|"
    r"hat(?:e|es|ed)|detest(?:s|ed)?|loath(?:e|es|ed)|despis(?:e|es|ed)|abhor(?:s|red)?|fear(?:s|ed)?|"
    r"dread(?:s|ed)?|trust(?:s|ed)?|distrust(?:s|ed)?|"
    r"mistrust(?:s|ed)?|pit(?:y|ies|ied)|admir(?:e|es|ed)|env(?:y|ies|ied)|resent(?:s|ed)?|suspect(?:s|ed)?|"
    r"forgiv(?:e|es)|forgave|pardon(?:s|ed)?|mourn(?:s|ed)?|worshipped|"
    # bonds made and unmade
    r"marr(?:y|ies|ied)|wed(?:s|ded)?|courted|woo(?:s|ed)?|jilt(?:s|ed)?|divorc(?:e|es|ed)|"
    r"befriend(?:s|ed)?|betray(?:s|ed)?|deceiv(?:e|es|ed)|obey(?:s|ed)?|disobey(?:s|ed)?|"
    r"hir(?:e|es|ed)|employ(?:s|ed)?|dismiss(?:es|ed)?|discharg(?:e|es|ed)|adopt(?:s|ed)?|"
    # a hand laid on someone
    r"kiss(?:es|ed)?|embrac(?:e|es|ed)|hug(?:s|ged)?|greet(?:s|ed)?|thank(?:s|ed)?|welcom(?:e|es|ed)|"
    r"congratulat(?:e|es|ed)|prais(?:e|es|ed)|flatter(?:s|ed)?|blam(?:e|es|ed)|accus(?:e|es|ed)|scold(?:s|ed)?|"
    r"rebuk(?:e|es|ed)|reproach(?:es|ed)?|punish(?:es|ed)?|insult(?:s|ed)?|tease[sd]?|mock(?:s|ed)?|"
    r"comfort(?:s|ed)?|consol(?:e|es|ed)|nurs(?:e|es|ed)|rescu(?:e|es|ed)|protect(?:s|ed)?|"
    r"strik(?:e|es)|struck|slap(?:s|ped)?|stab(?:s|bed)?|kill(?:s|ed)?|murder(?:s|ed)?|slay(?:s)?|slew|"
    r"strangl(?:e|es|ed)|poison(?:s|ed)?|wounded|arrest(?:s|ed)?|hunt(?:s|ed)?|chas(?:e|es|ed)|"
    r"pursu(?:e|es|ed)|summon(?:s|ed)?|fought|challeng(?:e|es|ed)|"
    # words said to someone
    r"tell|tells|told|ask(?:s|ed)?|beg(?:s|ged)?|implor(?:e|es|ed)|entreat(?:s|ed)?|warn(?:s|ed)?|advis(?:e|es|ed)|"
    r"urg(?:e|es|ed)|persuad(?:e|es|ed)|convinc(?:e|es|ed)|inform(?:s|ed)?|remind(?:s|ed)?|assur(?:e|es|ed)|"
    r"addressed|questioned|interrupt(?:s|ed)?|consult(?:s|ed)?|introduc(?:e|es|ed)|"
    r"invit(?:e|es|ed)|presents|presented|recogni[sz](?:e|es|ed)|"
    # a person's company
    r"meet|meets|met|accompan(?:y|ies|ied)|escorted|await(?:s|ed)?|help(?:s|ed)?|assist(?:s|ed)?|"
    r"send|sends|sent|bid|bade|[Ll]et|[Ll]ets|drew|pulled|pushed|dragged|"
    # an animal's or a child's keeper
    r"feed|feeds|fed|bath(?:e|es|ed)|tickl(?:e|es|ed)|carr(?:y|ies|ied)|lift(?:s|ed)?|"
    r"shook\s+hands\s+with|shakes?\s+hands\s+with"
)
"""Verbs whose object is a person. "Left", "reached", "visited", "saw", "followed", "joined", "ruled" take
places as readily and are left out; "loved" and "hated" can take a city, which ``PLACE_NAMES`` answers."""
_PREPOSITIONS = (
    r"(?:spoke|speaks|speak|talked|talks|talk|chatted|whispered|listened|listens|apologi[sz]ed|confessed|"
    r"complained|lied|curtsied|curtseyed|(?:gave|gives|handed|hands|"
    r"showed|shows|lent|offered|offers|sold|read|explained|introduced|"
    r"presented)\s+(?:(?:it|them|him|her|me|us|this|that|a|an|the|his|her|their|my|our|some)\s+)?(?:[a-z]+\s+){0,2}?)"
    r"\s*to"
    r"|(?:danced|dances|dancing|quarrell?ed|quarrell?ing|argued|arguing|fought|fighting|played|playing|plays|walked|"
    r"walking|walks|flirted|flirting|chatted|chatting|talked|talking|conversed|dined|dining|lived|living|lives|"
    r"stayed|staying|stays|travell?ed|travell?ing|hand\s+in\s+hand|arm\s+in\s+arm|friends|acquainted|angry|vexed|"
    r"furious|smitten|alone|sympathi[sz](?:e|es|ed)|sympathi[sz]ing)\s+with"
    r"|(?:sent|sends|send|asked|asks|ask|waited|waits|wait|wept|weeps|prayed|prays|cared|cares)\s+for"
    r"|(?:laughed|laughs|laughing|shouted|shouts|shouting|glared|glaring|scowled|sneered|grinned|grins|jeered|"
    r"winked)\s+at|(?:looked|looks|looking|gazed|gazing)\s+upon"
    r"|(?:fond|afraid|jealous|envious|ashamed|scared|frightened|terrified|enamou?red|contemptuous|"
    r"suspicious|mistrustful|heard\s+nothing|seen\s+nothing|saw\s+nothing)\s+of"
    r"|(?:parted|separated|borrowed)\s+from"
)
"""A verb or word and the preposition its person follows: "spoke to", "gave the letter to", "danced with",
"sent for", "laughed at", "afraid of", "parted from". Not "went to", "came up to", "wrote to", "sailed for",
"longed for", "pleased with", "thought of", "proud of", "heard from": those take places as readily."""
_ADJECTIVE = r"(?:(?:old|poor|little|young|dear|good|dear\s+old|poor\s+old|little\s+old)\s+)?"
_NAME_LIST = r"(?:[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*,\s+)*(?:[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*,?\s+and\s+)?"
"""Earlier names of a list the verb's object is the last of: "loved Anna, Tom and Will"."""
_DONE_TO = re.compile(rf"(?<![\w-])(?:{_OBJECT_VERBS})\s+{_ADJECTIVE}{_NAME_LIST}$")
_SPOKEN_TO = re.compile(rf"(?<![\w-])(?:{_PREPOSITIONS})\s+{_ADJECTIVE}{_NAME_LIST}$")
_SEEN_DOING = re.compile(r"\b(?:saw|see|sees|seen|watched|watch|watches|heard|hear|hears|noticed|found|caught|left|"
                         r"sight\s+of)\s+$")
"""A perception and a name doing something ("saw Matthew starting off"): a place does nothing."""
_DOING_NOW = re.compile(r"\s+(?:[a-z]+ing)\b(?!\s+(?:of|to)\b)")
_GOING_OFF = re.compile(r"\s+[a-z]+ing\s+(?:off|away|about|along|around|home|back|up\s+and\s+down)\b")
"""A name going somewhere ("the sight of Matthew jaunting off"): only someone goes off."""
_OWNED_BY_OF = re.compile(r"\b(?:eyes|voice|personality|smile|hands|lips|brow|temper|wrath|fury|jealousy|hatred|grief|"
                          r"sorrow)\s+of\s+$")
""""The blazing eyes of Shere Khan", "the personality of Dorian Gray": a body's or a mind's part, owned by "of"
("the spirit of France", "the face of the town", "the soul of Paris" are said of places too)."""
_FEELING_OWNED = re.compile(r"['’]s?\s+(?:[a-z]+\s+)?(?:relief|surprise|dismay|amazement|astonishment|delight|horror|"
                            r"disgust|joy|sorrow|grief|anger|indignation|embarrassment|confusion|consternation|"
                            r"satisfaction|disappointment|readiness|assistance|good\s+word|grave|funeral|birthday|"
                            r"wedding|eye|ideas?|thoughts?|opinion|wits)\b")
"""What only a person has: "to Marilla's relief", "with Jupiter's assistance", "Valentin's quick eye"."""
_LETTER_FROM = re.compile(r"(?<![A-Za-z])(?:Letter|Telegram|Cablegram|Memorandum|Postcard)(?:,|\s+from)\s+$")
_LETTER_TO = re.compile(r"(?<![A-Za-z])(?:Letter|Telegram|Cablegram|Memorandum|Postcard)(?:,|\s+from)\s+"
                        r"(?:[A-Z][\w'’.-]*\s+){1,4}to\s+$")
"""An epistolary heading ("_Letter, Lucy Westenra to Mina Murray_", "Telegram from Arthur Holmwood to
Quincey P. Morris"): its writer and its reader are people."""
_IN_PASSING = re.compile(r",\s+(?![^,]*\bits\b)(?:[a-z]+ing|desirous|eager|anxious|unwilling|unable|careful|fearful|"
                         r"afraid|glad|happy|sad|angry|ashamed|limp|pale|breathless|trembling)\b[^,.;:!?“”\"]{0,50},\s+"
                         r"(?:\w+ly\s+)?(?:[a-z]+ed|took|went|came|ran|sat|stood|rose|said|gave|made|shook|fell|"
                         r"spoke|sprang|began|held|lay)\b")
"""A subject with a participle or a feeling set beside it ("Jupiter, grinning from ear to ear, bustled
about", "the Mole, limp and dejected, took his seat"): what is grinning or dejected is someone ("Gimmerton,
lying in its valley, looked grey" is a place, by its "its")."""
_SUBJECT_HEAD = re.compile(r"(?:^|[.!?;:“\"]\s*|\b(?i:and|but|then|so|hence|thus|now|when|while|which|that|whom)"
                           r"\s+|\b(?i:the)\s+(?:[a-z]+\s+)?)$")
"""Where a subject stands: first in its sentence or clause, or after "the great" ("left Yonville, when he
was tired" says nothing of Yonville)."""
_WITH_HIS_OWN = re.compile(r",\s+with\s+(?:all\s+)?(?:his|her)\b[^,.;:!?“”\"]{0,50},\s+(?:\w+ly\s+)?"
                           r"(?:could|would|did|had|was|went|came|took|made|[a-z]+ed)\b")
""""Flambeau, with all his dexterity of disguise, could not cover": what has "his" dexterity is someone."""
_HE_AFTER = re.compile(r",\s+(?:when|though|although|as|because|if|while|before|after|since|until)\s+(?:he|she)\b")
""""the great Valentin, when he set out": "he" or "she" of the name's own clause is that name's."""
_WAS_HIS = re.compile(r"\s+(?:(?:was|is)\s+(?:[a-z]+\s+){0,2}?(?:in|at|on|out\s+of|beside)\s+(?:one\s+of\s+)?|"
                      r"(?:had|has)\s+(?:[a-z]+ly\s+)?[a-z]+ed\s+)(?:his|her|himself|herself)\b")
""""Legrand was in one of his fits", "Toad had turned his back": a name whose state or doing is said with
"his" or "her" ("Tostes was his first post" is no such thing: a place can be someone's)."""
_AFTER_PREPOSITION = re.compile(r"\b(?i:to|at|in|into|from|for|of|on|by|near|towards?|through|across|beyond|"
                                r"with|about|over|under|upon)\s+(?:the\s+)?$")
"""A name after a preposition is no subject: "returned to Tostes, when he ..." says nothing of Tostes."""
_AND_I_DO = re.compile(r"\s+and\s+I\s+(?:have|had|am|was|were|will|would|shall|could|[a-z]+ed)\b")
_PRESENT_DOES = re.compile(r"\s+(?:[a-z]{2,}[^s\W]s|goes|does)\s+(?:his|her|him|me|them|us|my|their|himself|herself)\b")
"""A name doing something now to someone, or with what is theirs: "Matthew sets his mind on it"."""
_WILL_DO = re.compile(r"['’](?:ll|d)\s+(?:\w+ly\s+)?[a-z]{2,}\b")
""""Dinah'll miss me": a name with "will" or "would" joined to it does what follows."""
_EPITHET_DOES = re.compile(r"\s+the\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?:had|has|was|is|said|says|lay|sat|stood|[a-z]+ed)\b")
""""Ikki the Porcupine had told him": a name, its epithet, and a doing."""

PLACE_NAMES = frozenset({
    # continents and regions
    "europe", "asia", "africa", "america", "australia", "antarctica", "north america", "south america",
    "scandinavia", "siberia", "arabia", "persia", "mesopotamia",
    "egypt", "palestine", "babylon", "judea", "galilee", "canaan",
    # countries
    "england", "scotland", "wales", "ireland", "britain", "great britain", "france", "germany", "italy",
    "spain", "portugal", "holland", "belgium", "switzerland", "austria", "hungary", "bohemia", "poland",
    "russia", "sweden", "norway", "denmark", "finland", "greece", "turkey", "prussia", "bavaria", "saxony",
    "india", "china", "japan", "mexico", "canada", "brazil", "peru", "chile", "argentina", "cuba", "jamaica",
    "morocco", "algeria", "tunisia", "abyssinia", "united states",
    # cities
    "london", "paris", "rome", "berlin", "vienna", "madrid", "lisbon", "moscow", "st. petersburg", "naples",
    "venice", "milan", "geneva", "amsterdam", "brussels", "edinburgh", "dublin", "glasgow", "liverpool",
    "manchester", "bristol", "oxford", "cambridge", "bath", "brighton", "dover", "calais", "marseilles",
    "lyons", "rouen", "bordeaux", "new york", "boston", "philadelphia", "chicago", "san francisco", "bombay",
    "calcutta", "madras", "delhi", "constantinople", "cairo", "alexandria", "jerusalem", "athens", "hong kong",
    "yokohama", "suez", "aden", "singapore",
})
"""Well-known countries, regions and cities, which are no one however the text treats them ("loved
London", "feared France"). Names that are as often a person's ("Florence", "Virginia", "Paris" of Troy,
"Israel") are left out."""


def is_place_name(name: str) -> bool:
    """Whether ``name`` (any case, a leading "the" kept) is a well-known country, region or city."""
    return " ".join(name.casefold().split()) in PLACE_NAMES


_SENTENCE_START = re.compile(r"(?:^|[.!?;:“\"]\s*)$")


_NAMED_DOING = re.compile(r"\s+(?:could|would|should|will|shall|must|may|might|can|was|is|had|has|did|does|said|says|"
                          r"replied|answered|asked|and|or)\b")


def opens_with_participle(token: str, head: str, tail: str) -> bool:
    """Whether a capitalised word is a participle opening its sentence ("Having paid his debts, he ..."): a
    word in "-ing" first in its sentence, with a lowercase word after it that no name's verb is ("Fielding
    could stoop" is a name), is doing, not named."""
    return len(token) >= 5 and token.endswith("ing") and bool(_SENTENCE_START.search(head)) \
        and re.match(r"\s+[a-z]", tail) is not None and not _NAMED_DOING.match(tail)


PEOPLES = frozenset({"parsee", "hindoo", "hindu", "mussulman", "moslem", "arab", "turk", "spaniard", "swede", "dane",
                     "dutchman", "irishman", "scotchman", "scotsman", "welshman", "englishwoman", "frenchwoman",
                     "latin", "hebrew"})
"""A people's or a faith's one member, or a tongue ("the Parsee", "disliked Latin"): what, not who."""


def nationals(token: str, demonyms: frozenset[str]) -> bool:
    """Whether a word is a nation's people ("Americans", "Englishmen", "the Parsee"): a demonym is nobody's name."""
    return token in PEOPLES or (token.endswith("s") and (token[:-1] in demonyms or token[:-1] in PEOPLES)) \
        or token.endswith("ians") \
        or (token.endswith("men") and token[:-3] + "man" in demonyms)


_POSSESSIVE_BEFORE_NAME = re.compile(r"([\w'’.-]+)['’]s?\s(?=[A-Z])")


def owner_of_named_thing(run: str, not_names: frozenset[str], not_a_word: re.Pattern[str],
                         bodies: frozenset[str]) -> str:
    """A capitalised run cut after its owner: "Miss Fulsom's Kindergarten" and "Bewick's History" name a
    thing the person owns, and the person is the name. A contraction ("There's Mr Medlock") cuts nothing,
    nor does a body or a place named for its members or founder ("the Saltwrights' Guild", "St. John's
    Wood": ``bodies`` holds their last words)."""
    if run.rsplit(None, 1)[-1].casefold() in bodies:
        return run
    for owned in _POSSESSIVE_BEFORE_NAME.finditer(run):
        word = owned.group(1).casefold()
        if word in not_names or not_a_word.fullmatch(word + "'s") or not_a_word.fullmatch(word + "’s"):
            continue
        return run[:owned.start() + len(owned.group(1))]
    return run


def weigh_treatment(evidence: Counter[str], head: str, tail: str) -> bool:
    """Evidence that a name is a person from what is done to it (``head`` the 40 characters before it, ``tail``
    the 80 after): the object of a verb of feeling or doing, of a word and its preposition, seen doing
    something, owning a mind's part, heading a letter, or doing something set in a phrase of its own. True
    when the name is the object of a person's verb, which a preposition before it ("laughed at") leaves so."""
    done_to = bool(_DONE_TO.search(head) or _SPOKEN_TO.search(head))
    if done_to:
        evidence["felt"] += 1
    if _DOING_NOW.match(tail) and _SEEN_DOING.search(head):
        evidence["acts"] += 1
    if _OWNED_BY_OF.search(head) or _FEELING_OWNED.match(tail):
        evidence["owns"] += 1
    if _LETTER_FROM.search(head) or _LETTER_TO.search(head):
        evidence["named"] += 1
    if _AFTER_PREPOSITION.search(head):
        return done_to
    if ((_IN_PASSING.match(tail) or _WITH_HIS_OWN.match(tail) or _HE_AFTER.match(tail)) and _SUBJECT_HEAD.search(head)) \
            or _GOING_OFF.match(tail) or _WAS_HIS.match(tail[:60]) or _AND_I_DO.match(tail) or _PRESENT_DOES.match(tail) \
            or _WILL_DO.match(tail) or _EPITHET_DOES.match(tail):
        evidence["acts"] += 1
    return done_to

"""The words the people reader weighs names by: titles, forms of address, places' and groups' last words,
words that are never names alone, and the nouns and verbs that show someone is a person (a role, a saying,
a doing, a feeling). Kept apart from ``people`` so that the reader stays a module one can read; the lists
are shared with ``quotes`` (who says a line) and ``single_marks``. Pure: no I/O at import but compiling.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.particles import FRENCH_TITLES

PERSON_TITLES = frozenset({
    "mr", "mrs", "miss", "ms", "dr", "doctor", "sir", "lady", "lord", "aunt", "uncle", "squire", "captain",
    "capt", "count", "countess", "king", "queen", "prince", "princess", "duke", "duchess", "baron", "baroness",
    "mademoiselle", "madame", "monsieur", "herr", "frau", "signor", "signora", "mister", "master", "mistress", "father", "mother", "sister", "brother",
    "professor", "colonel", "major", "general", "judge", "widow", "parson", "reverend", "emperor", "empress",
    "grand", "granny", "cousin", "hon", "rev", "cardinal",
}) | FRENCH_TITLES
"""Words that say what someone is; before a name they make it a person's name ("Dr. Watson", "M. de Treville")."""
ROYAL = frozenset({"king", "queen", "prince", "princess", "emperor", "empress", "duke", "duchess", "count", "cardinal",
                   "countess", "baron", "baroness", "marquis", "marquise", "duc", "duchesse", "comte", "comtesse",
                   "vicomte", "vicomtesse", "baronne"})
"""Titles that stand alone for one person ("the King", "the Count", "the Marquis") when the text capitalises
them; the French peer's as the English ("the Marquis de la Mole ... the Marquis said")."""
ADDRESS = frozenset({"majesty", "highness", "grace", "lordship", "ladyship", "excellency", "honour", "honor",
                     "worship", "reverence", "eminence", "holiness", "monseigneur", "sire", "milord"})
"""Forms of address: "your Majesty" speaks to someone and names nobody."""
PLACE_WORDS = frozenset({
    "street", "road", "avenue", "lodge", "park", "church", "square", "temple", "inn", "cross", "wood", "island",
    "city", "hall", "court", "lane", "mews", "castle", "prairies", "prairie", "river", "sea", "ocean", "bay",
    "hill", "hills", "mountain", "mountains", "valley", "forest", "station", "bridge", "gate", "gates", "place",
    "row", "terrace", "gardens", "garden", "field", "fields", "cove", "harbour", "harbor", "point", "house",
    "abbey", "manor", "farm", "tower", "palace", "opera", "theatre", "theater", "county", "main", "tortugas",
    "benbow", "george", "eve", "day", "grange", "heights", "crags", "flats", "town", "village", "moors", "falls",
    "junction", "corners", "common", "end", "wing", "rocks", "islands", "isles", "lakes", "creek", "springs",
    "cottage", "chapel", "cathedral", "school", "college", "hospital", "prison", "asylum", "market", "cliffs",
    "meadows", "wharf", "quay", "docks", "pier", "hotel", "tavern",
})
"""A place's last word ("Baker Street", "Thrushcross Grange"); none is a common surname ("Frank Dale", "Tom
Marsh" and "H. G. Wells" are people)."""
GROUP_WORDS = frozenset({"pack", "tribe", "clan", "guild", "watch", "company", "compact", "order", "council", "folk", "crew", "brotherhood",
                         "sisterhood", "league", "band", "gang", "family", "society", "club", "army", "navy"})
NOT_NAMES = frozenset({
    "the", "a", "an", "and", "but", "or", "then", "so", "if", "when", "while", "as", "at", "in", "on", "of", "i",
    "he", "she", "they", "we", "you", "it", "his", "her", "their", "my", "our", "your", "its", "this", "that",
    "these", "those", "there", "here", "yes", "no", "oh", "ah", "now", "what", "who", "why", "how", "where",
    "which", "not", "never", "all", "every", "some", "one", "none", "by", "for", "from", "with", "to", "even",
    "still", "once", "perhaps", "god", "lord", "heaven", "heavens", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "christmas", "michaelmas", "easter", "chapter", "part",
    "book", "well", "do", "did", "is", "was", "let", "pray", "come", "go", "good", "nothing", "nobody", "hum",
    "pooh", "bah", "humbug", "ha", "ho", "hang", "bother", "confound", "quick", "look", "stolen", "bought",
    "imitated", "forgery", "precisely", "certainly", "absolutely", "indeed", "quite", "very", "mind",
    "stave", "fire", "merry", "happy", "new", "year", "esq", "sir", "madam", "marm", "ma'am", "mate", "matey",
    "doctor", "captain", "master", "mister", "uncle", "aunt", "nephew", "niece", "silence", "jam", "yesterday",
    "today", "tomorrow", "tonight", "because", "besides", "however", "meanwhile", "afterwards", "presently",
    "suddenly", "old", "little", "young", "poor", "dear", "miss", "ma", "pa", "mama", "papa", "am", "are", "be",
    "nor", "say", "boh", "everybody", "everyone", "somebody", "someone", "anybody", "anyone", "out", "enter",
    "h'm", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "son", "daughter", "child",
    # exclamations and forms of address that open a line ("“Humph! tell your aunt”", "“Officers,” replied")
    "humph", "eh", "faith", "alas", "hush", "pshaw", "hallo", "hullo", "halloa", "egad", "gad", "bravo", "fie",
    "hey", "aye", "nay", "mercy", "nonsense", "excellent", "sometimes", "often", "always", "officer", "officers",
    "gentlemen", "ladies", "friends", "goodbye", "good-bye", "farewell",
    # object pronouns ("trust Him"), "Missis", fates, and openers a doing may follow ("Something tells me")
    "him", "me", "us", "them", "thee", "thou", "thy", "ye", "himself", "herself", "myself", "missis", "missus",
    "providence", "fate", "fortune", "destiny", "nature", "death", "sundays", "mondays", "saturdays", "something",
    "everything", "anything", "each", "whoever", "whatever", "another", "either", "neither", "both", "later",
    "soon", "again", "next", "first", "last", "thus", "hence", "yet", "instead", "moreover", "therefore",
})
"""Capitalised words that are not names by themselves (an opening word, a holiday, an exclamation)."""
NO_ONES_FIRST_WORDS = frozenset({"vive", "viva", "vivat", "notre", "notre-dame", "sacré-cœur", "sacré-coeur", "sacre-coeur",
                                 "sainte-chapelle", "hôtel-dieu", "hotel-dieu"})
"""Words that open a cheer or a church, never a person's name, though a French particle may follow them:
"Vive le Roi!", "Vive la France!", "Notre-Dame de Paris", "the Sacré-Cœur"."""
BODIES = PLACE_WORDS | GROUP_WORDS
DEMONYM = re.compile(r"(?:ian|ese|ish|ic|an|ch)$")
PERSON_NOUNS = (r"(?:son|daughter|brother|sister|mother|father)-in-law|lackey|cook|friend|companion|colleague|partner|helper|wife|husband|son|daughter|sister|brother|mother|"
                r"father|aunt|uncle|nephew|niece|cousin|servant|master|mistress|maid|coachman|clerk|gardener|"
                r"boy|girl|man|woman|lady|gentleman|lawyer|doctor|client|visitor|landlady|child|orphan|farmer|"
                r"captain|king|queen|prince|princess|nobleman|guest|partner|employer|agent|heart|arms|hands|"
                r"face|eyes|voice|shoulders|head|shirt|jacket|collar|horse|name|pleasure|mind|merry|"
                r"betrothed|fianc[ée]e?|valet|footman|housekeeper|butler|nurse|governess|groom|bride|lover|"
                r"sweetheart|enemy|rival|heir|widow|ward|pupil|playmate|comrade|ally|proposal|suit|spy|henchman|minion|envoy|emissary")
KEEPER_NOUNS = r"guardian|tutor|mentor|godfather|godmother|godson|goddaughter|benefactor|benefactress|patron|patroness"
"""Who has the keeping or the teaching of another ("Tom was the guardian of Ann", "her tutor, Mr. Hale"). Kept out
of ``PERSON_NOUNS``: an abstraction is as often one ("Reason, the guardian of virtue", "the patron of the
arts"), so these make a person only where another person is named as the one kept or taught."""
KIN_NOUNS = (r"(?:son|daughter|brother|sister|mother|father)-in-law|wife|husband|son|daughter|sister|brother|mother|father|aunt|uncle|nephew|niece|cousin|servant|"
             r"maid|master|mistress|friend|companion")
SAY_VERBS = (r"said|says|say|asked|asks|answered|answers|replied|replies|returned|returns|cried|cries|remarked|"
             r"remarks|murmured|murmurs|continued|continues|added|adds|shouted|shouts|screamed|screams|whispered|"
             r"whispers|exclaimed|exclaims|called|calls|growled|growls|pleaded|pleads|repeated|repeats|began|begins|"
             r"observed|observes|interrupted|interrupts|laughed|laughs|sighed|sighs|muttered|mutters|snapped|snaps|"
             r"declared|declares|went\s+on|goes\s+on|told|tells|demanded|demands|grumbled|grumbles|admitted|admits|"
             r"explained|explains|enquired|enquires|inquired|inquires|retorted|retorts|responded|responds|ventured|"
             r"grunted|snarled|purred|squeaked|panted|gasped|whined|roared|hissed|protested|suggested|agreed|"
             r"insisted|urged|warned|concluded|ejaculated|stammered|faltered|sobbed|moaned|groaned|yelled|"
             r"bellowed|howled|drawled|blurted|cut\s+in|broke\s+in|put\s+in|teased|commanded|ordered|begged|"
             r"implored|entreated|sneered|scoffed|giggled|chuckled|whimpered|stormed|mocked|jeered")
DOING = (r"[a-z]+ed|came|went|sat|stood|took|made|saw|knew|felt|thought|ran|rose|gave|told|said|says|"
         r"laughed|cried|smiled|spoke|sprang|tore|drew|threw|caught|struck|shook|held|kept|left|lived|loved|"
         "hated|feared|knows|loves|hates|fears|trusts|did|does|got|found|heard|began|broke|fled|fell|grew|"
         r"led|met|paid|put|read|rode|sang|sank|slept|stole|swam|wore|wrote|won|bowed|nodded|turned|reached|"
         r"answered|asked|whistled|chuckled|staggered|pushed|dashed|rushed|signed|played|worked|never|always|"
         r"begat|begot|bare|bore|slew|talked|wept|swept|sent|brought|bought|sought|taught|fought|spent|lent|meant|"
         r"crept|dealt|lost|sold|understood|woke|drove|chose|swore|hung|flung|clung|swung|hid|bit|shut|bade|"
         r"forgave|forgot|drank|ate|flew|blew|became|arose|knelt|leapt|speaks|lay|"
         # a feeling or a thought told in the present ("Dorothea despises Sir James"): only a mind does these
         r"despises|adores|admires|detests|loathes|dislikes|likes|pities|envies|resents|distrusts|mistrusts|"
         r"suspects|marries|serves|obeys|employs|dreads|worships|thinks|believes|wishes|"
         r"don't|don’t|doesn't|doesn’t|didn't|didn’t|isn't|isn’t|wasn't|wasn’t|hasn't|hasn’t|hadn't|hadn’t|"
         r"had|has|would|could|will|shall|must|may|might|can|cannot|can't|won't|couldn't|wouldn't")
FEELING = (r"begat|begot|bare|slew|addressing|addressed|loved|loves|love|hated|hates|hate|feared|fears|fear|trusted|"
           r"trusts|trust|pitied|admired|married|met|knew|hired|employed|engaged|obeyed|kissed|befriended|abhorred|"
           r"doted\s+on|worshipped")

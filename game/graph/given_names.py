"""First names that only one sex bears in the prose Kith reads: "Emma", "Catherine" and "Isabel" are women,
"Charles", "Edgar" and "Henry" are men, in every novel of every century that English readers meet.

Literary prose names two people and then goes on "she ... him" without a title or a kin noun between: "Charles
Bovary married Emma Rouault. He adored her." The text alone never says who is the "he" (``fast_extract.genders``
learns sex from titles, kin nouns and pronouns that have one candidate), and the sentence is lost. A first name
that is everywhere one sex's settles it. Names borne by both, or one sex's in one language and the other's in
another, are left out on purpose, so they stay unknown and compete with every candidate as before: "Jean" (a
Frenchman, an Englishwoman), "Evelyn", "Ashley", "Leslie", "Marion", "Vivian", "Hilary", "Shirley", "Lynn",
"Robin", "Sidney", "Jo", "Sam", "Alex", "Kim", "Andrea", "Nicola", "Sasha", "Camille", "Claude", "Dominique",
"Valentine", "Jocelyn", "Carol", "Kay", "Pat", "Chris", "Frankie", "Jesse", "Dana", "Tracy", "Beverly",
"Gabriel(le)" spelled loosely, "René(e)" without its accent. A name that is also a common word ("Will",
"Grace", "Hope", "Mark") is here only because the readers ask about a person already found: the word is never
made a person by this table. Pure: no I/O.
"""

from __future__ import annotations

from game.graph.sexes import FEMALE, MALE

_MEN = """
aaron abel abraham adam adolphe adolphus adrian albert alberto albrecht alexander alexandre alexei alexis alfred
alfredo algernon alonzo alphonse ambrose amos andrew andrei andré angus anthony antoine anton antonio archibald
armand arnold arthur athelstan august augustin augustine augustus austin balthazar baptiste barnabas
bartholomew basil benedict benjamin bernard bertram bertrand boris brian caleb carl carlos casimir cecil cedric
cesare charles christian christopher christophe clarence claudio clement conrad constantine cornelius cuthbert
cyril cyrus daniel david denis dennis desmond dick diego dmitri dominic donald douglas duncan ebenezer edgar
edmund edmond eduard edward edwin egbert elias elijah emile emil émile emmanuel enrique ephraim erasmus eric
ernest ernst esteban étienne etienne eugene eugène ezra felix ferdinand fernando fitzwilliam francis francesco
francisco frank franz frederick frederic friedrich gaspard gaston geoffrey george georges gerald gerard gilbert
giles giovanni giuseppe godfrey gottfried gregory guillaume gustave guy hans harold harry heinrich henri henry
herbert herman hezekiah hippolyte horace horatio hubert hugh hugo humphrey ignatius isaac ivan jack jacob
jacques james jasper jeremiah jeremy jerome joachim johann johannes john jonathan joseph joshua josiah juan
jules julian julius karl kenneth konstantin lancelot laurence lawrence lazarus leonard leopold lewis lionel
lorenzo louis lucas lucien ludwig luigi luke malcolm manuel marcel marco marius martin matthew matthias maurice
max maximilian michael miguel mikhail morris moses nathan nathaniel neville nicholas nicolas nikolai noah
octave octavius oliver oscar oswald otto patrick paul pedro peregrine percival percy peter philip philippe
pierre pietro pyotr ralph raoul raymond reginald richard robert roderick rodolphe rodrigo roger roland rudolf
rupert samuel sebastian septimus sergei seth silas simon solomon stephen sylvester theodore thomas timothy
tobias toby tom ulysses victor vincent vladimir walter wilhelm wilfred william willoughby zachary
"""

_WOMEN = """
abigail ada adela adelaide adèle adele agatha agnes alice ann amelia amy anastasia angela angelica anna anne
annette annie antoinette arabella augusta aurora barbara beatrice beatrix bertha bessie betsy bridget caroline
catherine cecilia cecily celia charlotte christina christine clara clarissa claudine constance cordelia
cornelia cynthia daisy deborah delphine diana dinah dolly dora dorothea dorothy edith edna eleanor elinor
eliza elizabeth ella ellen eloise elsie emilia emily emma esther eugenia eugénie euphemia eva eve fanny felicity
fleur flora florence frances francesca frederica georgiana georgina gertrude gwendolen hannah harriet helen
helena henrietta hester hortense ida irene isabel isabella isabelle jane janet jemima jennie jenny jessica
joanna joan josephine judith julia juliana julie juliet justine katherine kate kitty laura lavinia leonora
letitia lilian lillian lily lizzie louisa louise lucia lucie lucille lucy lydia mabel madeleine magdalene
maggie margaret marguerite maria marianne marie marianna martha mary matilda maud maude mercedes meg millicent
minnie miranda molly nancy natalia natasha nell nelly nora olga olivia ophelia pamela pauline penelope
philippa phoebe polly priscilla prudence rachel rebecca regina rosa rosalind rosamond rose rosina sarah sophia
sophie susan susanna susannah sybil sylvia teresa theresa tatiana ursula victoria violet virginia winifred
"""

GIVEN_NAME_SEX: dict[str, str] = {**dict.fromkeys(_MEN.split(), MALE), **dict.fromkeys(_WOMEN.split(), FEMALE)}
"""Each first name above, casefolded, and the one sex that bears it."""


def sex_of_given_name(name: str) -> str | None:
    """``MALE`` or ``FEMALE`` when the first word of ``name`` is a first name only that sex bears, else None."""
    words = name.casefold().replace(".", " ").split()
    return GIVEN_NAME_SEX.get(words[0]) if words else None

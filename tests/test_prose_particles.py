"""Names with lowercase particles and French titles (game/graph/fast_extract/particles.py): "d'Artagnan",
"M. de Treville", "Gaspard de Coligny", "Mademoiselle de la Mole" are people, and "Monsieur" alone is nobody."""

from __future__ import annotations

from helpers.prose import people_of, related, relations_read

from game.graph.fast_extract.extractor import unknown_names
from game.graph.fast_extract.gazetteer import NameIndex
from game.graph.fast_extract.prose import read_story
from game.graph.identity_match import judge
from game.graph.models import Node
from game.graph.names import slugify
from game.graph.sexes import FEMALE, MALE, TITLE_SEX


def aliases_of(text: str, name: str) -> set[str]:
    person = next(p for p in read_story(text).people if p.name == name)
    return {alias for alias, _ in person.aliases}


def test_an_elided_particle_starts_a_name() -> None:
    # "d'Artagnan" was no word at all, so neither he nor the man he fought was anyone
    assert people_of("d'Artagnan fought Athos in the morning.") == {"d'Artagnan", "Athos"}
    assert "Alec d'Urberville" in people_of("Alec d'Urberville met Tess Durbeyfield at the fair.")
    # the capitalised Irish and Scottish forms stay whole
    assert people_of("D'Arcy loved Mary Hale. O'Brien hated M'Coy.") == {"D'Arcy", "Mary Hale", "O'Brien", "M'Coy"}


def test_relations_and_possessives_read_through_an_elided_name() -> None:
    assert related("Athos was the friend of d'Artagnan.", "Athos", "ALLY_OF", "d'Artagnan")
    assert related("Planchet was d'Artagnan's servant.", "Planchet", "SERVES", "d'Artagnan")
    assert related("O'Brien was the friend of M'Coy.", "O'Brien", "ALLY_OF", "M'Coy")
    assert "d'Artagnan" in people_of("d'Artagnan's horse was yellow.")
    assert related("d'Artagnan loved Constance Bonacieux.", "d'Artagnan", "LOVES", "Constance Bonacieux")


def test_a_french_title_with_a_particle_is_the_whole_name() -> None:
    # "M. de Treville" was read as "Treville"
    text = "M. de Treville was the captain of the Musketeers. Treville smiled at the men. De Treville nodded."
    assert "M. de Treville" in people_of(text) and "Treville" not in people_of(text)
    assert aliases_of(text, "M. de Treville") == {"Treville", "De Treville"}
    assert related("Mlle. de Scudéry was the friend of Mme. de Sévigné.", "Mlle. de Scudéry", "ALLY_OF",
                   "Mme. de Sévigné")
    assert related("Julien Sorel served Monsieur de Rênal.", "Julien Sorel", "SERVES", "Monsieur de Rênal")
    assert related("Madame de Merteuil was the enemy of Madame de Tourvel.", "Madame de Merteuil", "ENEMY_OF",
                   "Madame de Tourvel")


def test_particles_between_capitals_join_one_name() -> None:
    assert related("Gaspard de Coligny hated the Duc de Guise.", "Gaspard de Coligny", "HATES", "Duc de Guise")
    assert related("Ludwig van Beethoven loved Giulietta.", "Ludwig van Beethoven", "LOVES", "Giulietta")
    assert related("Count von Kramm hated Irene Adler.", "Count von Kramm", "HATES", "Irene Adler")
    # two particles together
    assert related("Mathilde de la Mole was the daughter of the Marquis de la Mole.", "Mathilde de la Mole",
                   "KIN_OF", "Marquis de la Mole")
    assert related("Mademoiselle de la Mole loved Julien.", "Mademoiselle de la Mole", "LOVES", "Julien")
    assert "Abbé Pirard" in people_of("Abbé Pirard said nothing.")
    # a particle opening a name written without its first name or title
    assert related("Then de Treville said nothing. He loved Athos.", "de Treville", "LOVES", "Athos")


def test_a_french_title_stop_ends_no_sentence_and_no_said_tag() -> None:
    # "Mme." ended the sentence, so "Mme. Bovary loved Rodolphe" stated nothing
    assert related("Mme. Bovary loved Rodolphe.", "Mme. Bovary", "LOVES", "Rodolphe")
    # "said M." was the whole said-tag, so M. de Treville never spoke
    assert people_of("“Go,” said M. de Treville. “Yes,” said d'Artagnan.") == {"M. de Treville", "d'Artagnan"}
    assert "d'Artagnan" in people_of("“Go,” said M. de Treville to d'Artagnan.")
    assert "Rousseau" in people_of("“Go,” said Mme. d'Épinay to Rousseau.")


def test_a_french_title_and_its_short_form_are_one_title() -> None:
    text = "M. d'Artagnan loved Constance. Monsieur d'Artagnan was brave."
    assert aliases_of(text, "Monsieur d'Artagnan") == {"M. d'Artagnan"}
    # but never a title of the other sex
    assert {"Mme. Bonacieux", "M. Bonacieux"} <= people_of("M. Bonacieux loved Athos. Mme. Bonacieux loved Aramis.")


def test_a_surname_with_its_particle_is_the_one_full_name_ending_so() -> None:
    text = "Gaspard de Coligny was the admiral. De Coligny loved his wife. Coligny rode out."
    assert people_of(text) == {"Gaspard de Coligny"}
    assert aliases_of(text, "Gaspard de Coligny") == {"De Coligny", "Coligny"}
    # two full names end so: the short form is either, so it stays its own name
    two = "Gaspard de Coligny said nothing. Louise de Coligny said nothing. De Coligny smiled at Tom."
    assert aliases_of(two, "Gaspard de Coligny") == set() and aliases_of(two, "Louise de Coligny") == set()


def test_a_bare_name_two_titled_people_share_is_neither() -> None:
    text = "Monsieur de Rênal was the mayor. Madame de Rênal loved Julien. De Rênal hated Julien."
    assert {"Monsieur de Rênal", "Madame de Rênal"} <= people_of(text)
    assert aliases_of(text, "Monsieur de Rênal") == set() and aliases_of(text, "Madame de Rênal") == set()
    found = relations_read(text)
    assert ("Monsieur de Rênal", "HATES", "Julien") not in found and ("Madame de Rênal", "HATES", "Julien") not in found
    # the same for English titles: "Hale" was taken as Mrs. Hale's, and Tom loved her
    found = relations_read("“Go,” said Mr. Hale to Mrs. Hale. Hale laughed. Tom loved Hale.")
    assert ("Tom", "LOVES", "Mrs. Hale") not in found and ("Tom", "LOVES", "Mr. Hale") not in found


def test_a_french_title_alone_is_a_form_of_address_not_a_person() -> None:
    assert people_of("“Yes, Monsieur,” said Tom. “Pardon, Madame,” said Ann. “Oui, Mademoiselle.”") == {"Tom", "Ann"}
    assert people_of("Madame was tired that evening, and Monsieur had gone out.") == set()


def test_french_titles_carry_a_sex() -> None:
    for title in ("m", "monsieur", "abbé", "comte", "marquis", "duc", "chevalier"):
        assert TITLE_SEX[title] == MALE
    for title in ("mme", "mlle", "madame", "mademoiselle", "comtesse", "marquise", "duchesse"):
        assert TITLE_SEX[title] == FEMALE
    # and so a pronoun can only be the one of its sex
    assert related("Mme. Bovary met M. Rodolphe at the fair, and he loved her.", "M. Rodolphe", "LOVES", "Mme. Bovary")
    assert related("Madame Bovary met Monsieur Rodolphe at the fair, and she loved him.", "Madame Bovary", "LOVES",
                   "Monsieur Rodolphe")


def _person(name: str) -> Node:
    return Node(id=f"npc-{slugify(name)}", name=name, type="individual", summary=f"{name}, of the story.",
                first_seen_turn=0, last_seen_turn=0)


def test_identity_reads_a_french_title_as_it_reads_an_english_one() -> None:
    # a husband and a wife of one name are never asked about as one person
    assert judge("Madame de Rênal", "individual", [], [_person("Monsieur de Rênal")]).decision == "new"
    # a title and a surname is asked about, as "Mrs. Bovary" is ("Mme. Bovary" was another name altogether)
    charles = [_person("Charles Bovary")]
    assert judge("Mme. Bovary", "individual", [], charles).decision == judge("Mrs. Bovary", "individual", [],
                                                                             charles).decision == "ask"


def test_lowercase_words_that_are_no_particle_here_join_nothing() -> None:
    # "van" is a vehicle before a name, "de" in a place's name stays the place's
    assert people_of("He drove the van Tom had bought. Tom smiled.") == {"Tom"}
    assert people_of("The van Tom drove was old. Tom Hale loved it.") == {"Tom Hale"}
    assert people_of("In the Rue de Rivoli, Tom met Ann.") == {"Tom", "Ann"}
    assert people_of("R. M. Renfield was mad. M. Dumas was a writer.") == {"R. M. Renfield", "M. Dumas"}


def test_a_turns_unknown_names_keep_their_particles() -> None:
    assert unknown_names("Tom met Gaspard de Coligny and Mademoiselle de la Mole.", NameIndex()) == [
        "Gaspard de Coligny", "Mademoiselle de la Mole"]
    # a lower-case "d'" is no capital by position: it names someone even opening the sentence
    assert unknown_names("d'Artagnan fought Athos in the morning.", NameIndex()) == ["d'Artagnan", "Athos"]
    assert unknown_names("He drove the van Tom had bought.", NameIndex()) == ["Tom"]


def _aliases(text: str) -> dict[str, set[str]]:
    return {person.name: {alias for alias, _ in person.aliases} for person in read_story(text).people}


def test_a_peers_title_alone_is_the_one_person_of_the_story_with_that_title() -> None:
    # "the Marquis" was nobody: "marquis" stood alone for no one as "the Count" does
    text = "Julien met the Marquis de la Mole in Paris. The Marquis trusted Julien."
    assert _aliases(text) == {"Marquis de la Mole": {"the Marquis"}, "Julien": set()}
    assert related(text, "Marquis de la Mole", "TRUSTS", "Julien")
    assert _aliases("The Marquise de Fervaques wrote. The Marquise laughed.") == {"Marquise de Fervaques": {"the Marquise"}}
    # a title and one name: "the Countess" was its own person beside Countess Olenska
    assert _aliases("Ann met Countess Olenska. The Countess wept.")["Countess Olenska"] == {"the Countess"}
    assert _aliases("Tom served Duke Robert. The Duke smiled.")["Duke Robert"] == {"the Duke"}
    # the Marquis and the Marquise are two: neither title is the other's
    both = _aliases("The Marquis de la Mole loved the Marquise de la Mole. The Marquise smiled. The Marquis frowned.")
    assert both == {"Marquis de la Mole": {"the Marquis"}, "Marquise de la Mole": {"the Marquise"}}


def test_a_peers_title_alone_is_nobodys_alias_when_two_carry_it_or_one_is_named_by_a_place() -> None:
    two = _aliases("Ann met the Marquis de la Mole and the Marquis de Croisenois. The Marquis smiled.")
    assert two["the Marquis"] == set() and two["Marquis de la Mole"] == set() and two["Marquis de Croisenois"] == set()
    two = _aliases("Ann met the Marquis de la Mole and Marquis Croisenois. The Marquis smiled.")
    assert "the Marquis" in two and not two["Marquis de la Mole"] and not two["Marquis Croisenois"]
    # "the Duke of Guise" is a duke the text names by his land, as the King of Scandinavia is a king
    assert "the Duke" in _aliases("Tom met the Duke of Guise. The Duke smiled.")
    # a title alone nobody else carries is still someone
    assert _aliases("The Marquis trusted Julien. Julien smiled.") == {"the Marquis": set(), "Julien": set()}


def test_a_lowercase_van_opens_a_name_but_a_van_after_a_determiner_is_a_vehicle() -> None:
    # "van Helsing" was "Helsing", or nobody: "van" opened no name, as it may be the vehicle
    assert related("Lucy trusted van Helsing.", "Lucy", "TRUSTS", "van Helsing")
    assert "van Helsing" in people_of("When Tom came, van Helsing rose.")
    assert "van Helsing" in people_of("Her husband met van Helsing.")
    # the vehicle stays a vehicle, however it is described
    for text in ("The van Tom drove was red.", "In the van Tom slept.", "They waited for the van Tom had hired."):
        assert people_of(text) == {"Tom"}, text
    assert people_of("A van Harris owned stood in the yard.") == {"Harris"}
    assert people_of("The old red van Ann hired broke down.") == {"Ann"}
    assert people_of("They loaded the van Monday. They sat in his van Tuesday.") == set()


def test_a_french_cheer_or_church_is_nobody_though_a_particle_follows_its_first_word() -> None:
    # "Vive le Roi" and "Notre-Dame de Paris" were people: a capital, a particle, a capital, and a doing
    for text in ("“Vive la France!” they cried.", "“Vive l’Empereur!” cried the soldiers.",
                 "Notre-Dame de Paris rose above the river.", "Notre-Dame stood grey in the rain.",
                 "The Sacré-Cœur gleamed.", "Then Notre Dame rose above the roofs."):
        assert people_of(text) == set(), text
    assert people_of("The crowd cried, “Vive le Roi!” and Tom fled.") == {"Tom"}
    assert relations_read("Tom loved Notre-Dame de Paris.") == set()

"""General English constructions of kinship, service, friendship, betrothal and membership (issue 26), and
the guards that keep them from stating what a text does not. Each text is read as ``kith import-story``
reads a story (its people first, then its relations), so a person the reader cannot find fails here too.
Every sentence is written for these tests; none is taken from the labelled passages."""

from __future__ import annotations

from helpers.prose import related as _related
from helpers.prose import relations_read as _relations

from game.graph.fast_extract.prose import read_story


def test_a_possessive_pronoun_owning_a_role_beside_a_name_is_the_one_person_it_can_be() -> None:
    assert _related("Mira walked home with her sister Elin.", "Elin", "KIN_OF", "Mira")
    assert _related("The Mole went to see his old friend the Badger.", "Badger", "ALLY_OF", "Mole")
    assert _related("Mr. Tallis sat in the hall. His man Jacques brought the tea.", "Jacques", "SERVES", "Mr. Tallis")
    assert _related("Mr. Tallis and his man Jacques walked to the gate.", "Jacques", "SERVES", "Mr. Tallis")
    assert _related("Harold Vane sat down. Maud Hawley, his cousin, was eighteen.", "Maud Hawley", "KIN_OF",
                    "Harold Vane")
    assert _related("Edith Moore smiled at her betrothed, Captain Frank Dale.", "Edith Moore", "ENGAGED_TO",
                    "Captain Frank Dale")


def test_a_possessive_two_people_could_own_states_nothing() -> None:
    # "her" may be Mira's or Tomas's: nobody.
    assert not {r for r in _relations("Mira met Tomas and her brother Oren.") if r[1] == "KIN_OF"}
    # A title rules out the other sex: Mrs. Pike is no "his".
    text = "Mrs. Pike met Henry Vane and his sister Clara."
    assert _related(text, "Clara", "KIN_OF", "Henry Vane") and len(_relations(text)) == 1
    # "her man" is as often a husband as a servant.
    assert not {r for r in _relations("Mrs. Pike came in. Her man Jacques followed.") if r[1] == "SERVES"}


def test_an_ended_role_is_no_bond() -> None:
    assert _relations("Mrs. Pike came in. Her former servant Jacques was with her.") == set()
    assert _relations("Jacques Morel, Mr. Tallis's former servant, opened the door.") == set()


def test_a_role_in_apposition_holds_whatever_the_clause_around_it_does() -> None:
    text = "“I must go and see my aunt, Lady Margery,” said Harold Vane."
    assert _related(text, "Lady Margery", "KIN_OF", "Harold Vane")
    # ... but not when the phrase itself is denied
    assert _relations("It was not his sister Beth, but Mira Lane, who came in. Tom Price waited.") == set()


def test_service_is_read_from_apposition_hiring_and_entering_service() -> None:
    assert _related("Jacques Morel, Mr. Tallis's servant, opened the door.", "Jacques Morel", "SERVES", "Mr. Tallis")
    assert _related("Dick Hale was Mr. Ashby's faithful servant.", "Dick Hale", "SERVES", "Mr. Ashby")
    assert _related("Dick Hale had entered the service of Mr. Ashby as a footman.", "Dick Hale", "SERVES", "Mr. Ashby")
    assert _related("Mr. Ashby engaged Dick Hale as his valet.", "Dick Hale", "SERVES", "Mr. Ashby")
    assert _related("Dick Hale was engaged as a valet by Mr. Ashby.", "Dick Hale", "SERVES", "Mr. Ashby")
    assert _related("Dick Hale served Mr. Ashby for twenty years.", "Dick Hale", "SERVES", "Mr. Ashby")
    # Engaging a room, or an engagement to marry, is no hiring.
    assert not {r for r in _relations("Mr. Ashby engaged Dick Hale in conversation.") if r[1] in {"SERVES", "EMPLOYS"}}


def test_friends_betrothals_love_and_membership_make_their_names_people() -> None:
    assert _related("Tom Cole and Will Barker were old friends.", "Tom Cole", "ALLY_OF", "Will Barker")
    assert _related("Tomas Reed was engaged to Anna Hale.", "Tomas Reed", "ENGAGED_TO", "Anna Hale")
    assert _related("Tomas Reed was in love with Anna Hale.", "Tomas Reed", "LOVES", "Anna Hale")
    assert _related("Edith Moore had fallen in love with Frank Dale.", "Edith Moore", "LOVES", "Frank Dale")
    assert _related("Frank Dale was the sworn enemy of Black Morgan.", "Frank Dale", "ENEMY_OF", "Black Morgan")
    assert _related("Henry Tallis was a member of the Albion Club.", "Henry Tallis", "MEMBER_OF", "Albion Club")
    assert _related("Mowgli was one of the Pack.", "Mowgli", "MEMBER_OF", "Pack")
    assert _related("Colin was Mr. Craven's son.", "Colin", "KIN_OF", "Mr. Craven")


def test_the_two_friends_are_the_two_people_the_sentence_before_named() -> None:
    text = "Tom Cole sat with Mr. Will Barker. Then the two friends went home."
    assert _related(text, "Tom Cole", "ALLY_OF", "Mr. Will Barker")
    # A third name might be one of the two: no friendship. (Sam Weller, the object of "met" with Will Barker, is a
    # person now, so whom Tom Cole met is read; before, the unknown name stopped the sentence.)
    assert _relations("Tom Cole met Will Barker and Sam Weller. The two friends said nothing.") == {
        ("Tom Cole", "KNOWS", "Will Barker"), ("Tom Cole", "KNOWS", "Sam Weller")}
    # Only the sentence just before counts.
    assert _relations("Tom Cole sat with Mr. Will Barker. It rained. The two friends went home.") == set()


def test_negation_hypotheses_questions_and_hearsay_state_nothing() -> None:
    assert _relations("Tomas Reed was not engaged to Anna Hale.") == set()
    assert _relations("If Tomas Reed were engaged to Anna Hale, all would be well.") == set()
    assert _relations("Was Tomas Reed engaged to Anna Hale?") == set()
    assert _relations("They say Edith Moore loved Frank Dale.") == set()
    assert _relations("Edith Moore loved Frank Dale, or so people said.") == set()
    assert _relations("It was said that Edith Moore was engaged to Frank Dale.") == set()
    assert _relations("Dick Hale might enter the service of Mr. Ashby.") == set()


def test_marriage_proposal_accepted_and_friendship_of_stated_outright() -> None:
    assert _related("Frank Dale and Edith Moore were married in June.", "Frank Dale", "KIN_OF", "Edith Moore")
    # married to others is no marriage of theirs to each other
    assert _relations("Frank Dale and Edith Moore were married to other people.") == set()
    assert _related("Edith Moore accepted Frank Dale's proposal.", "Edith Moore", "ENGAGED_TO", "Frank Dale")
    assert _related("Toad was a great friend of the Rat.", "Toad", "ALLY_OF", "Rat")
    assert _related("“Jem is my brother,” said Scout.", "Jem", "KIN_OF", "Scout")


def test_pronouns_are_not_the_name_beside_them_nor_an_object_pronoun_the_doer() -> None:
    # The second "him" is Tobin as the first was, not Nell.
    assert ("Nell", "LOVES", "Tobin") in _relations("Tobin slept all day, and Nell sat with him, and loved him dearly.")
    # "Scrooge and he": "he" is the one named before, never Scrooge himself.
    assert _related("Marley sat down. Scrooge and he were partners.", "Scrooge", "ALLY_OF", "Marley")


def test_a_said_tag_with_a_titled_name_gives_the_line_its_speaker() -> None:
    # "Mr." and "Mrs." end no tag: the line is Mr. Fogg's, and "my friend" his.
    for text in ("“This is my friend Tom Price,” said Mr. Fogg.", "“This is my friend Tom Price,” Mr. Fogg said.",
                 "“This is my friend Tom Price,” said Mr. Fogg, smiling."):
        assert _related(text, "Tom Price", "ALLY_OF", "Mr. Fogg"), text


def test_her_in_a_quoted_line_is_neither_its_speaker_nor_a_name_of_the_narration() -> None:
    # Mrs. Hale says "her betrothed" of someone else: not her own betrothal.
    assert _relations("“Her betrothed, Sir Percival, is away,” said Mrs. Hale.") == set()
    # A line nobody is known to say takes no "her" from the narration around it.
    assert _relations("“Her betrothed, Sir Percival, is away,” said the old woman. Mrs. Hale sat still.") == set()
    # "I told Tom his sister ...": the speaker is "I", so "his" is Tom.
    assert _related("“I told Tom Price his sister Ann was here,” said Mrs. Hale.", "Ann", "KIN_OF", "Tom Price")


def test_betrothal_of_two_leadership_and_the_one_looked_at() -> None:
    assert _related("Laurie Hale and Jo March were engaged.", "Laurie Hale", "ENGAGED_TO", "Jo March")
    assert _related("Meg and John Brooke were engaged to be married.", "Meg", "ENGAGED_TO", "John Brooke")
    assert _relations("Meg and John Brooke were engaged in talk.") == set()
    assert _related("Akela was the leader of the Pack.", "Akela", "LEADS", "Pack")
    text = "Lord Henry looked at Basil Hallward. “You are my oldest friend,” he said."
    assert _related(text, "Basil Hallward", "ALLY_OF", "Lord Henry")


def test_a_master_owned_is_served_and_service_denied_or_ended_is_nothing() -> None:
    assert _related("Jup waited for his master, Mr. Legrand.", "Jup", "SERVES", "Mr. Legrand")
    assert _related("Mr. Legrand was Jup's master.", "Jup", "SERVES", "Mr. Legrand")
    assert _related("Bram Kettle, master of the Watch, came in.", "Bram Kettle", "LEADS", "Watch")
    for text in ("Tom Price was not Mr. Ashby's servant.", "Dick Hale had left the service of Mr. Ashby.",
                 "Would Dick Hale enter the service of Mr. Ashby?", "Dick Hale, once Mr. Ashby's servant, was rich.",
                 "Dick Hale, Mr. Ashby's late servant, was buried today."):
        assert _relations(text) == set(), text


def test_a_master_speaking_of_my_servant_employs_them() -> None:
    # The said-tag gives the speaker, and "my servant" is a post the speaker holds: kept, not a claim dropped.
    for text in ("“Jean Morel, my new servant, will carry the bags,” said Mr. Tallis.",
                 "“This is my servant, Jean Morel,” said Mr. Tallis.",
                 "“My servant Jean Morel will see to it,” said Mr. Tallis.",
                 "Mr. Tallis looked at Jean Morel. “You are my new servant,” said Mr. Tallis."):
        assert _related(text, "Jean Morel", "SERVES", "Mr. Tallis"), text
    # How another feels about the speaker stays a claim; a denied post, or a line nobody is named saying, is nothing.
    for text in ("“Jean Morel trusts me,” said Mr. Tallis.", "“Jean Morel is not my servant,” said Mr. Tallis.",
                 "“Jean Morel, my new servant, is here,” he said.", "“Jean Morel, my new servant, is here.”"):
        assert _relations(text) == set(), text


def test_children_a_parent_had_or_begat_named_in_a_list_are_each_their_child() -> None:
    text = "Mr. Hale had two daughters, Clara and Maud."
    assert _related(text, "Mr. Hale", "KIN_OF", "Clara") and _related(text, "Mr. Hale", "KIN_OF", "Maud")
    text = "Jesse begat three sons, Eliab, Abinadab and Shammah."
    assert all(_related(text, "Jesse", "KIN_OF", son) for son in ("Eliab", "Abinadab", "Shammah"))
    assert _related("Mrs. Hale had three children, Tom, Ann, and Will, who lived with her.", "Mrs. Hale", "KIN_OF", "Will")
    assert _related("Mr. Hale had a son named Tobias.", "Mr. Hale", "KIN_OF", "Tobias")
    # Friends are no children, a denied family none, and a name with a verb of its own is no list.
    for text in ("Mr. Hale had two friends, Clara and Maud.", "Mr. Hale never had two daughters, Clara and Maud.",
                 "Mr. Hale had two sons, Tom said, and both were idle."):
        assert not {r for r in _relations(text) if r[1] == "KIN_OF"}, text


def test_a_role_said_of_a_name_with_his_or_her_is_the_one_person_it_can_be() -> None:
    assert _related("Mary Lennox sat in the garden. Colin was her cousin.", "Colin", "KIN_OF", "Mary Lennox")
    assert _related("Mr. Craven came in. Colin was his son.", "Colin", "KIN_OF", "Mr. Craven")
    assert _related("Mary Lennox met Colin, who was her cousin.", "Colin", "KIN_OF", "Mary Lennox")
    assert _related("Mary Lennox sat down, and Colin, who was her cousin, came in.", "Colin", "KIN_OF", "Mary Lennox")
    # "Mr." is no "her": the one woman named before is.
    assert _related("Mr. Craven and Mary Lennox sat down. Colin was her cousin.", "Colin", "KIN_OF", "Mary Lennox")
    assert _related("Sara Crewe sat by the fire. Becky was her maid.", "Becky", "SERVES", "Sara Crewe")
    # Two women who could own "her", a denial, or another's cousin: nothing of Colin's kin.
    for text in ("Mary Lennox smiled at Ann Price. Colin was her cousin.",
                 "Mary Lennox sat in the garden. Colin was not her cousin.",
                 "Mary Lennox sat in the garden. Colin was her cousin's friend."):
        assert not {r for r in _relations(text) if r[1] == "KIN_OF"}, text


def test_a_name_owning_something_after_a_role_is_still_the_role() -> None:
    text = "Mrs. Pike went to London when her sister Maria's daughter was married."
    assert _related(text, "Maria", "KIN_OF", "Mrs. Pike")
    # After a comma, a name owning something may be another's apposition: not the cousin.
    assert not {r for r in _relations("Tom Price's cousin, Will Barker's friend, came in.") if r[1] == "KIN_OF"}


def test_the_one_turned_to_before_a_quote_is_spoken_to_and_answers_next() -> None:
    text = "Tom Price turned to Will Barker and said, “Your sister Ann Barker is here.”"
    assert _related(text, "Ann Barker", "KIN_OF", "Will Barker")
    assert _related("Tom Price turned to Will Barker and said, “My sister Ann Barker is here.”", "Ann Barker",
                    "KIN_OF", "Tom Price")
    # "He" who turned is not the one turned to; the line goes to someone unknown, and its answer is Will's.
    text = "He turned to Will Barker and said, “Where is Ann Barker?”\n\n“My sister Ann Barker is at home.”"
    assert _relations(text) == {("Ann Barker", "KIN_OF", "Will Barker")}


def test_a_pronoun_tag_in_a_paragraph_of_several_is_the_one_who_opened_the_sentence_before() -> None:
    text = ("“Are you the new maid?” Mary Lennox asked, looking up. Martha Sowerby began to sweep the hearth. "
            "“I’m Mr Hale’s servant,” she said stoutly.")
    assert _relations(text) == {("Martha Sowerby", "SERVES", "Mr Hale")}
    # A title of the other sex is no "she": the line stays with whoever spoke before.
    text = ("“Are you the new maid?” Mary Lennox asked, looking up. Mr. Dick Price began to sweep the hearth. "
            "“I’m Mr Hale’s servant,” she said stoutly.")
    assert ("Mr. Dick Price", "SERVES", "Mr Hale") not in _relations(text)


def test_our_in_a_quoted_line_is_its_speakers() -> None:
    text = "Mary Lennox looked at Basil Reed. “Our sister Mabel Reed was sent to England,” said Basil Reed."
    assert _relations(text) == {("Mabel Reed", "KIN_OF", "Basil Reed")}
    assert _relations("“Our sister Mabel Reed is away,” he said.") == set()


def test_a_role_whose_holders_name_is_given_after_it() -> None:
    text = ("The boy was sent to the woman Mr. Hale had hired. The woman was his housekeeper at Thornfield Hall, "
            "and her name was Mrs. Pike.")
    assert _relations(text) == {("Mrs. Pike", "SERVES", "Mr. Hale")}
    text = ("Mary Lennox looked at Basil Reed. “You are going to your uncle,” said Basil Reed. “His name is Mr. "
            "Archibald Craven.”")
    assert _related(text, "Mr. Archibald Craven", "KIN_OF", "Mary Lennox")
    # "his" is not the name of an aunt, nor "her" of a valet: someone else is named.
    assert _relations(text.replace("your uncle", "your aunt")) == set()
    assert not _relations("The boy was sent to Mr. Hale. The man was his valet, and her name was Ann Price.")


def test_a_bond_said_to_stand_between_two_people() -> None:
    assert _related("A friendship had long existed between Tom Cole and Will Barker.", "Tom Cole", "ALLY_OF",
                    "Will Barker")
    assert _related("Something that might be called friendship existed between Tom Cole and Will Barker.",
                    "Tom Cole", "ALLY_OF", "Will Barker")
    assert _related("The old feud between Tom Cole and Will Barker went on.", "Tom Cole", "ENEMY_OF", "Will Barker")
    for text in ("There was no friendship between Tom Cole and Will Barker.",
                 "The friendship between Tom Cole and Will Barker ended in May.",
                 "If a friendship existed between Tom Cole and Will Barker, nobody knew.",
                 "There might be a friendship between Tom Cole and Will Barker."):
        assert _relations(text) == set(), text


def test_calling_the_one_spoken_to_by_a_kin_title_makes_them_kin() -> None:
    assert _related("“It is late, Aunt Polly,” said Tom Sawyer.", "Tom Sawyer", "KIN_OF", "Aunt Polly")
    # "Uncle George" is a person, though "George" may end a place's name.
    text = "“Americans are the fashion, Uncle George,” said Harry Wotton."
    assert _related(text, "Harry Wotton", "KIN_OF", "Uncle George")
    # Speaking of her is no call.
    assert _relations("Tom Sawyer looked at Aunt Polly. “I went to see Aunt Polly,” said Tom Sawyer.") == set()


def test_kin_by_marriage_household_servants_and_an_old_name_beside_a_role() -> None:
    assert _related("Mrs. Pike came in with her daughter-in-law, Ann Price.", "Ann Price", "KIN_OF", "Mrs. Pike")
    assert _related("Tom Price was Mr. Hale's son-in-law.", "Tom Price", "KIN_OF", "Mr. Hale")
    # "sister-in-law" is no sister with a word left over, nor anything else
    assert _relations("Mrs. Pike sat down. Her sister-in-law Ann Price stood.") == {("Ann Price", "KIN_OF", "Mrs. Pike")}
    assert _related("Mr. Hale's lackey Jacques opened the door.", "Jacques", "SERVES", "Mr. Hale")
    assert _related("Emma Bovary sat by the fire. Her father, old Rouault, came in.", "Rouault", "KIN_OF", "Emma Bovary")


def test_the_one_a_tag_says_is_spoken_to_is_a_person_and_a_kin_word_calls_them() -> None:
    assert _related("“Your sister Ann Price is here,” said Mr. Tallis to Jean Morel.", "Ann Price", "KIN_OF",
                    "Jean Morel")
    assert _related("“Good night, uncle,” said Tom Price to Mr. Hale.", "Tom Price", "KIN_OF", "Mr. Hale")
    # "Little Brother" is as often a comrade's call: no kin.
    assert _relations("“Good night, Little Brother,” said Bagheera to Mowgli.") == set()


def test_a_friend_of_someone_in_apposition_and_what_one_is_a_member_of() -> None:
    assert _related("“This is Tom Price, an old school friend of mine,” said Will Barker.", "Tom Price", "ALLY_OF",
                    "Will Barker")
    assert _related("Tom Price, a friend of Will Barker, came in.", "Tom Price", "ALLY_OF", "Will Barker")
    for text in ("Tom Price, a friend of Will Barker's sister, came in.", "Tom Price, not a friend of Will Barker, came in."):
        assert _relations(text) == set(), text
    # what one is a member of is a body of people, even with a name nobody else gives it
    assert _relations("Phileas Fogg was a member of the Reform, and that was all.") == {
        ("Phileas Fogg", "MEMBER_OF", "Reform")}


def test_a_kinsman_named_after_the_role_or_in_a_relative_clause_and_service_taken_into() -> None:
    assert _related("Tom Price's sister was Ann Price.", "Ann Price", "KIN_OF", "Tom Price")
    assert _related("Emma Bovary sat by the fire. Her father was old Rouault.", "Rouault", "KIN_OF", "Emma Bovary")
    assert _related("Colin Craven, whose father was Mr. Archibald Craven, lay in bed.", "Colin Craven", "KIN_OF",
                    "Mr. Archibald Craven")
    assert _related("Mr. Ashby took Dick Hale into his service.", "Dick Hale", "SERVES", "Mr. Ashby")
    for text in ("Tom Price's sister was Ann Price's friend.", "Emma Bovary sat by the fire. Her father was not Rouault.",
                 "Colin, whose father was not Mr. Hale, lay in bed.", "Mr. Ashby did not take Dick Hale into his service.",
                 "Mr. Ashby took Dick Hale into the garden."):
        assert not {r for r in _relations(text) if r[1] in {"KIN_OF", "SERVES"}}, text


def _people(text: str) -> set[str]:
    return {person.name for person in read_story(text).people}


def test_a_name_called_before_i_owning_what_a_person_owns_or_said_to_be_a_girl_is_a_person() -> None:
    assert "Marilla" in _people("“Well, Marilla, I’ll just tell you plain,” said the old woman.")
    assert "Rachel" in _people("“There is something in what you say, Rachel. I’ve had qualms myself,” said the old woman.")
    assert "Marilla" in _people("The old woman went home. Marilla’s lips twitched.")
    assert "Clara" in _people("Clara was a little girl of six.")
    assert "Rat" in _people("“Why, certainly,” said the good-natured Rat.")
    # A line's first word before "I" is no call, and a city is no girl.
    assert "Proud" not in _people("“Proud, I’m sure,” said the old woman.")
    assert "London" not in _people("London was a great city.")


def test_self_naming_initials_foreign_titles_and_a_titled_name_after_in_are_people() -> None:
    assert "Mary Lennox" in _people("“I am Mary Lennox,” the little girl said.")
    assert "M. Dumas" in _people("In the opinion of M. Dumas, the lady had been throttled.")
    assert "Monsieur Dupin" in _people("There I became acquainted with a Monsieur Dupin.")
    assert "Sir Francis Cromarty" in _people("He found in Sir Francis Cromarty an enthusiastic ally.")
    assert "Parker" in _people("“Ask Mr. Gray to wait, Parker: I shall be in soon.”")
    # a titled name owning the place one is at is the place
    assert "Madame Tussaud" not in _people("They spent the evening at Madame Tussaud's.")


def test_the_first_of_two_who_do_something_and_irregular_doings_make_people() -> None:
    assert {"Eliza", "Georgiana"} <= _people("Eliza and Georgiana had run for help.")
    assert "Bessie" in _people("Bessie brought the tray up.")
    # a place before "and" is still no doer's name
    assert "Paris" not in _people("In Paris and London had come the news.")


def test_a_list_joined_by_and_beside_the_sons_of_someone_is_their_kin() -> None:
    text = "In the morning came Mr. Hale, and Tom, and Will, and Harry, the sons of Mr. Hale, into the yard."
    assert _relations(text) == {("Mr. Hale", "KIN_OF", son) for son in ("Tom", "Will", "Harry")}
    # friends in the plural are each Mr. Hale's friend (issue 26's lists), never his kin nor each other's
    assert _relations("Tom, and Will, and Harry, the friends of Mr. Hale, came in.") == {
        (friend, "ALLY_OF", "Mr. Hale") for friend in ("Tom", "Will", "Harry")}


def test_kin_named_after_the_sister_of_born_unto_and_a_name_taken_up_by_she() -> None:
    assert _related("Tom Hale came home, and the sister of Tom Hale was Ruth.", "Ruth", "KIN_OF", "Tom Hale")
    assert "Ruth" in _people("And unto Ruth was born a son.")
    assert _related("And Ruth, she also bare Obed.", "Ruth", "KIN_OF", "Obed")


def test_love_hatred_and_a_marriage_to_come_in_more_words() -> None:
    assert _related("Anna Hale sat down. Anna Hale was to marry Tomas Reed in June.", "Anna Hale", "ENGAGED_TO",
                    "Tomas Reed")
    assert _related("Tom Price came home. Tom Price abhorred Will Barker.", "Tom Price", "HATES", "Will Barker")
    assert _related("Mrs. Pike came home. Mrs. Pike doted on Tom Price.", "Mrs. Pike", "LOVES", "Tom Price")
    assert _relations("Anna Hale was not to marry Tomas Reed.") == set()


def test_one_whose_love_engagement_or_marriage_the_text_names_is_a_person_with_that_bond() -> None:
    # "Newland Archer's engagement" made no one of Newland Archer: an owned bond is a person's
    assert _related("Newland Archer's engagement to May Welland was announced that night.", "Newland Archer",
                    "ENGAGED_TO", "May Welland")
    assert _related("Catherine's marriage to Edgar Linton pleased nobody.", "Catherine", "KIN_OF", "Edgar Linton")
    assert _related("Newland Archer thought of his engagement to May Welland.", "Newland Archer", "ENGAGED_TO",
                    "May Welland")


def test_a_lover_loves_a_sweetheart_is_loved_and_a_mistress_is_no_employer() -> None:
    assert _related("Rodolphe Boulanger was Emma's lover.", "Rodolphe Boulanger", "LOVES", "Emma")
    assert _related("Tom Sawyer's sweetheart, Becky Thatcher, came by.", "Tom Sawyer", "LOVES", "Becky Thatcher")
    # "Emma was Rodolphe's mistress" read as Rodolphe serving Emma; a master is still the one served
    assert _relations("Emma was Rodolphe's mistress.") == set()
    assert _related("Jup's master, Legrand, came in.", "Jup", "SERVES", "Legrand")


def test_one_named_before_and_his_kin_is_a_person_whose_kin_they_are() -> None:
    # "Julius Beaufort and his wife Regina gave a ball" found only Regina
    assert _related("Julius Beaufort and his wife Regina gave a ball.", "Regina", "KIN_OF", "Julius Beaufort")
    assert _related("Tom Hale and his sister Ann rode home.", "Ann", "KIN_OF", "Tom Hale")


def test_a_spy_serves_the_one_whose_spy_they_are_and_the_cardinal_is_one_person() -> None:
    assert _related("Tom Hale was the Cardinal's spy.", "Tom Hale", "SERVES", "the Cardinal")
    assert _related("Cardinal Richelieu hated the Queen.", "Cardinal Richelieu", "HATES", "the Queen")


def test_one_who_joins_a_body_is_its_member_but_joining_people_at_dinner_is_company() -> None:
    assert _related("Tom Hale joined the Musketeers.", "Tom Hale", "MEMBER_OF", "Musketeers")
    assert _relations("Tom Hale joined the Hales at dinner.") == set()


def test_a_bond_held_long_is_read_through_had_long_been() -> None:
    assert _related("Tom Hale, who had long been Ann's friend, smiled.", "Tom Hale", "ALLY_OF", "Ann")
    assert _related("Tom Hale had long been Ann's friend.", "Tom Hale", "ALLY_OF", "Ann")


def test_a_plural_name_someone_captains_commands_or_is_one_of_is_a_body_they_lead_or_belong_to() -> None:
    # "the Musketeers" was nobody, so their captain led no one
    assert _related("Tom Treville, captain of the Musketeers, received Will.", "Tom Treville", "LEADS", "Musketeers")
    assert _related("Tom Treville commanded the Musketeers.", "Tom Treville", "LEADS", "Musketeers")
    assert _related("Tom Carr was one of the Musketeers.", "Tom Carr", "MEMBER_OF", "Musketeers")
    kinds = {p.name: p.type for p in read_story("Tom Carr was one of the Musketeers.").people}
    assert kinds["Musketeers"] == "faction"
    # guiding is not leading, and a people led somewhere is no body named
    assert _relations("Tom Carr led the Hales to the river.") == set()


def test_one_said_to_be_anothers_spy_is_a_person() -> None:
    # a spy at a sentence's start was nobody: "spy" was no noun only a person holds
    assert _related("Rochefort was the Cardinal's spy.", "Rochefort", "SERVES", "the Cardinal")

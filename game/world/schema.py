"""The world format: pydantic models of the TOML files in ``content/<world>/``.

Every file of a world is validated against the same root model (``WorldDocument``), whose tables are all
optional, so an author may keep a small world in one file or split a large one by kind. Unknown fields
are errors (``extra="forbid"``): a typo in content must fail at load, never be ignored in play.
Cross-references (an exit to a missing place, a flag never set) are checked afterwards by
``game.world.checks``, because they span files.

It is one piece (about 400 lines) on purpose: it is the whole content format, one model per TOML
table, and reads as its reference from the top-level ``WorldDocument`` down; split by table it would
scatter the format an author looks up in one place.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from game.graph.vocabulary import RelationSpec
from game.world.refs import RelationRef, parse_relation_ref
from game.world.tiers import Tier, parse_tier_spec

ID_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
DIRECTIONS: tuple[str, ...] = (
    "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest",
    "up", "down", "in", "out",
)
ITEM_ACTS = frozenset({"give", "show", "bribe", "steal"})
TOPIC_ACTS = frozenset({"accuse", "lie", "warn"})
Act = Literal["talk", "help", "give", "show", "threaten", "bribe", "accuse", "lie", "follow", "warn", "steal",
              "apologize"]
CharacterType = Literal["individual", "group", "faction"]
Everyday = Literal["buy", "drink", "eat", "hug", "pray", "sing", "sleep", "swim", "jump", "dance"]
"""The everyday verbs (``game.story.actions.everyday``) a place may answer in its own words (``answers``)."""


class Strict(BaseModel):
    """Base of every content model: unknown fields are errors, aliases let TOML use reserved words."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _text_variants(value: Any) -> Any:
    """A text field takes one string or a list of variants (one is chosen per turn, from the seed)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    raise ValueError("should be a string, or a list of strings to choose from")


def _relation_ref(value: Any) -> Any:
    if isinstance(value, RelationRef):
        return value
    if not isinstance(value, str):
        raise ValueError('should be a string like "Mira -> player: TRUSTS sign=+"')
    return parse_relation_ref(value)


NonEmpty = Annotated[str, Field(min_length=1)]
OWNER = ""
"""The name a bare ``when = { tier = "..." }`` is kept under until its character claims it."""
Text = Annotated[list[NonEmpty], BeforeValidator(_text_variants), Field(min_length=1)]
RelationRefField = Annotated[RelationRef, BeforeValidator(_relation_ref)]
Id = Annotated[str, Field(pattern=ID_PATTERN, max_length=48)]


class Conditions(Strict):
    """When something may happen. Every field given must hold; ``any`` needs one of its entries to hold.

    List entries starting with ``!`` are negated: ``flags = ["door_open", "!alarm"]``.
    """

    place: list[NonEmpty] = Field(default_factory=list)
    flags: list[NonEmpty] = Field(default_factory=list)
    items: list[NonEmpty] = Field(default_factory=list)
    present: list[NonEmpty] = Field(default_factory=list)
    met: list[NonEmpty] = Field(default_factory=list)
    fired: list[NonEmpty] = Field(default_factory=list)
    since: dict[str, int] = Field(default_factory=dict)
    at: dict[str, str] = Field(default_factory=dict)
    turn_min: int | None = Field(default=None, ge=0)
    turn_max: int | None = Field(default=None, ge=0)
    relations: list[RelationRefField] = Field(default_factory=list)
    tier: dict[str, str] = Field(
        default_factory=dict, description='A character\'s attitude tier toward the player: { "Hob Tarrant" = '
        '"HOSTILE" }, or in a character\'s own topic or reaction just "HOSTILE" (theirs). A tier, or one after '
        '"!", ">=" or "<=" (docs/world-format.md, "Attitudes").')
    any_of: list[Conditions] = Field(default_factory=list, alias="any")

    @field_validator("place", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("tier", mode="before")
    @classmethod
    def _own_tier(cls, value: Any) -> Any:
        # A bare tier is the owner's: the character whose topic or reaction it is fills in its name
        # (``CharacterDef._own_tiers``); anywhere else an unnamed tier is refused by the world checks.
        return {OWNER: value} if isinstance(value, str) else value

    @field_validator("tier")
    @classmethod
    def _tier_specs(cls, value: dict[str, str]) -> dict[str, str]:
        for spec in value.values():
            parse_tier_spec(spec)
        return value

    def with_owner(self, owner: str) -> Conditions:
        """These conditions with a bare ``tier`` (and those of ``any``) read as ``owner``'s."""
        tier = {(owner if name == OWNER else name): spec for name, spec in self.tier.items()}
        any_of = [sub.with_owner(owner) for sub in self.any_of]
        if tier == self.tier and any_of == self.any_of:
            return self
        return self.model_copy(update={"tier": tier, "any_of": any_of})

    def is_empty(self) -> bool:
        return self == Conditions()


class Detail(Strict):
    """A sentence added to a text only while ``when`` holds, so the text says what the world is now.

    A place's description, a feature and a beat take them: "the rope coiled on its hook" is a detail
    that stops holding once the rope is taken down, and an ending's beat lists only what was done.
    """

    when: Conditions = Field(default_factory=Conditions)
    text: Text


class RelationChange(Strict):
    """A relation written to the graph: opened, or a new version when its strength or fact changed."""

    source: NonEmpty
    target: NonEmpty
    relation: NonEmpty
    strength: float = Field(ge=-1.0, le=1.0, allow_inf_nan=False)
    fact: str = Field(min_length=8, max_length=400)
    evidence: str | None = Field(default=None, max_length=600)
    public: bool = Field(default=False, description="Everyone knows it (what the whole town knows).")
    known_by: list[NonEmpty] | None = Field(
        default=None, description="Who knows it, replacing the default knowers (its two ends); 'player' may be one.")


class AttitudeChange(Strict):
    """A world rule's change to one character's attitude toward the player, added to what it was."""

    name: NonEmpty
    trust: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    respect: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    friendliness: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    reason: str = Field(min_length=4, max_length=200, description="Why, as the attitude's history shows it.")


class Effects(Strict):
    """What happens when a reply, reaction, command or beat fires."""

    relations: list[RelationChange] = Field(default_factory=list)
    end: list[RelationRefField] = Field(default_factory=list)
    meet: list[NonEmpty] = Field(default_factory=list)
    set_flags: list[NonEmpty] = Field(default_factory=list, alias="set")
    clear: list[NonEmpty] = Field(default_factory=list)
    give: list[NonEmpty] = Field(default_factory=list)
    remove: list[NonEmpty] = Field(default_factory=list)
    move: dict[str, str] = Field(default_factory=dict)
    put: dict[str, str] = Field(default_factory=dict)
    move_player: str | None = None
    ending: str | None = None
    goal: str | None = None
    reveal: list[NonEmpty] = Field(
        default_factory=list, description='Revelations the player learns: "Character Name:key" '
        "(a name or alias, a colon, the key of one of that character's [[characters.revelations]]).")
    attitude: list[AttitudeChange] = Field(
        default_factory=list, description="Changes to characters' attitudes toward the player (a world's own "
        "rules: amends, a favour remembered); docs/world-format.md, \"Attitudes\".")

    def is_empty(self) -> bool:
        return self == Effects()


EXPLORE = ("false: `kith explore` does not list it as never reached (content only a path the explorer cannot "
           "guess leads to; docs/explore.md).")
EXPLORE_REASON = "Why it is marked ``explore = false``, for the next author."


class Topic(Strict):
    """Something to ``ask``/``tell`` a character about. The first topic that matches and holds answers."""

    about: list[NonEmpty] = Field(min_length=1)
    verb: Literal["ask", "tell", "both"] = "ask"
    reply: Text
    when: Conditions = Field(default_factory=Conditions)
    effects: Effects = Field(default_factory=Effects)
    once: bool = False
    open: bool = Field(default=False, description="Told even at a cold tier (UNFRIENDLY, HOSTILE), which "
                       "otherwise withholds what would help the player: a revelation, a relation among others, a thing given.")
    lie: bool = False
    denies: list[NonEmpty] = Field(
        default_factory=list, description="For a lie: the revelations (\"NAME:KEY\", or the speaker's own KEY) "
        "it denies. Once the speaker remembers telling the player one of them, they never tell this lie again; "
        "a lie with no ``denies`` stops once the speaker has confessed anything of their own.")
    explore: bool = Field(default=True, description=EXPLORE)
    explore_reason: str | None = Field(default=None, min_length=4, max_length=200, description=EXPLORE_REASON)


class Reaction(Strict):
    """How a character answers an act (talk, help, give, show, threaten, bribe, accuse, lie, follow, warn).

    ``act`` is one act or a list of them. ``item`` only constrains acts that offer an item (give, show,
    bribe); ``about`` only constrains acts that name a subject (accuse, lie, warn) when one is named.
    """

    act: Annotated[list[Act], BeforeValidator(lambda v: [v] if isinstance(v, str) else v), Field(min_length=1)]
    item: str | None = None
    about: list[NonEmpty] = Field(default_factory=list)
    reply: Text
    when: Conditions = Field(default_factory=Conditions)
    effects: Effects = Field(default_factory=Effects)
    once: bool = False
    open: bool = Field(default=False, description="Told even at a cold tier (UNFRIENDLY, HOSTILE), which "
                       "otherwise withholds what would help the player: a revelation, a relation among others, a thing given.")
    takes: bool | None = None
    first_meeting: bool = Field(
        default=False, description="Only when this person meets the player for the first time (they remember "
        "every meeting after it, whatever the player did then).")
    explore: bool = Field(default=True, description=EXPLORE)
    explore_reason: str | None = Field(default=None, min_length=4, max_length=200, description=EXPLORE_REASON)


class Revelation(Strict):
    """Something the player may learn about a character, told by the effect that reveals it.

    ``replace`` puts the text in place of what the player was shown so far (the public description and
    earlier revelations); ``extend`` adds it after them. Until it is revealed the player never sees it.
    """

    key: Id
    text: str = Field(min_length=4, max_length=400)
    mode: Literal["replace", "extend"] = "extend"


class NewsLine(Strict):
    """What someone says, once, on hearing second-hand of how one of their own people stands with the player.

    The news is a relation between the player and someone the hearer is tied to (kin, ally, faction-mate,
    enemy), which the hearer was told or heard as a rumour. ``relations``: relation names it fits (none:
    any); ``sign``: ``"-"`` for a relation of negative strength (fear, distrust), ``"+"`` for a positive
    one (none: either); ``about``: names or labels of the person the news is about (none: anyone).
    ``text`` may use ``{name}`` (the hearer), ``{who}`` (whom the news is about) and ``{teller}`` (who told
    them). A character's own lines are tried first, then the world's, each in file order. ``acts``: the line
    speaks of a *deed* of the player's instead (docs/world-format.md, "Deeds"): word of an act it lists,
    with ``sign`` ``"-"`` for a harmful act and ``"+"`` for a kind one, ``about`` the deed's target, and
    ``{act}`` the act's words ("threatened Tibby").
    """

    relations: list[NonEmpty] = Field(default_factory=list)
    sign: Literal["+", "-"] | None = None
    about: list[NonEmpty] = Field(default_factory=list)
    acts: list[NonEmpty] = Field(default_factory=list, description=(
        "Deeds this line speaks of (threaten, help, give...): a line with acts answers word of what the "
        "player did, and {act} fills in the act's words; a line without answers how someone stands."))
    text: Text


class MemoryLine(Strict):
    """What someone says when a memory of the player comes up (``game.story.memory_lines``).

    ``heard``: true for something they only heard of, false for what they saw or had done to them (none:
    either); ``sign``: ``"+"`` for a kind deed, ``"-"`` for a harmful one (none: either); ``about``:
    ``"self"`` for what the player did to them, ``"other"`` for what the player did to someone else (none:
    either); ``tags``: the memory must carry one of them (none: any). ``text`` may use ``{name}`` (the one
    who remembers), ``{who}`` (whom the deed was done to) and ``{memory}`` (the memory's sentence). A
    character's own lines are tried first, then the world's, then the built-in ones.
    """

    heard: bool | None = None
    sign: Literal["+", "-"] | None = None
    about: Literal["self", "other"] | None = None
    tags: list[NonEmpty] = Field(default_factory=list)
    text: Text


class CharacterDef(Strict):
    """A person, group or faction: a graph node, and for individuals someone to talk to.

    ``summary`` is the authored truth (kept in the graph, for narrators); ``public`` is what anyone may
    know, which the player's views show until ``revelations`` deepen or overturn it.
    """

    name: str = Field(min_length=1, max_length=100)
    aliases: list[NonEmpty] = Field(default_factory=list, max_length=12)
    type: CharacterType = "individual"
    summary: str = Field(min_length=4, max_length=400)
    public: str | None = Field(
        default=None, min_length=4, max_length=400,
        description="What the town says of them: shown to the player before they learn more (default: the summary).")
    revelations: list[Revelation] = Field(default_factory=list)
    profile: str = ""
    location: str | None = None
    labels: list[NonEmpty] = Field(default_factory=list, max_length=5)
    description: str | None = None
    here: str | None = None
    away: str | None = None
    poses: list[Detail] = Field(
        default_factory=list,
        description="How they stand in their own place while ``when`` holds, in place of ``here`` (the first that "
        "holds): Ambry with the bell rope in her hands, not still painting.")
    greeting: Text | None = None
    unknown: Text | None = None
    refusals: dict[Act, Text] = Field(default_factory=dict)
    topics: list[Topic] = Field(default_factory=list)
    reactions: list[Reaction] = Field(default_factory=list)
    news: list[NewsLine] = Field(default_factory=list)
    tiers: dict[Tier, Text] = Field(
        default_factory=dict, description="Their own line for each attitude tier, added to their ordinary "
        "replies (greeting, nothing to say, a refusal); overrides the world's [world.tiers].")
    tier_changes: dict[Tier, Text] = Field(
        default_factory=dict, description="What the story says when their attitude falls or rises into a "
        "tier; overrides the world's [world.tier_changes].")
    again: Text | None = Field(
        default=None, description="What they say when the player talks to them after their first meeting "
        "(the greeting is said once); none: a memory of the player, or a nod.")
    withhold: Text | None = Field(
        default=None, description="What they say, at UNFRIENDLY, instead of a secret or a favour they keep from "
        "the player (default: the world's ``withhold`` reply).")
    admitted: Text | None = Field(
        default=None, description="Once they have confessed: their answer to what they cannot or will no "
        "longer lie about (instead of ``unknown``).")
    memories: list[MemoryLine] = Field(default_factory=list)
    pronoun: Literal["he", "she", "they"] | None = Field(
        default=None, description="Which pronouns the parser follows to them: he/him, she/her, they/them; "
        "none declared: any of them.")

    @model_validator(mode="after")
    def _own_tiers(self) -> CharacterDef:
        """A bare ``tier`` in one of their topics or reactions is their tier toward the player."""
        for topic in self.topics:
            topic.when = topic.when.with_owner(self.name)
        for reaction in self.reactions:
            reaction.when = reaction.when.with_owner(self.name)
        return self

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def revelation(self, key: str) -> Revelation | None:
        return next((r for r in self.revelations if r.key == key), None)

    def seen_as(self, revealed: list[str]) -> str:
        """What the player knows of them: the public description, then each revelation learned, in order."""
        text = self.public if self.public is not None else self.summary
        for key in revealed:
            found = self.revelation(key)
            if found is not None:
                text = found.text if found.mode == "replace" else f"{text} {found.text}"
        return text

    @property
    def short_name(self) -> str:
        """How prose names them in passing: the first alias that is a plain name, else the full name."""
        for alias in self.aliases:
            if alias[:1].isupper() and not alias.lower().startswith("the "):
                return alias
        return self.name


class Feature(Strict):
    """Scenery to examine: not an item, but something to notice (and sometimes to learn from)."""

    names: list[NonEmpty] = Field(min_length=1)
    text: Text
    details: list[Detail] = Field(default_factory=list)
    effects: Effects = Field(default_factory=Effects)


class Barrier(Strict):
    """An exit that only opens when ``requires`` holds; otherwise ``text`` says why not."""

    exit: str
    requires: Conditions
    text: Text


class Place(Strict):
    id: Id
    name: str = Field(min_length=1, max_length=100)
    description: str = Field(min_length=1)
    brief: str | None = None
    details: list[Detail] = Field(default_factory=list)
    indoors: bool = False
    exits: dict[str, str] = Field(default_factory=dict)
    features: list[Feature] = Field(default_factory=list)
    barriers: list[Barrier] = Field(default_factory=list)
    answers: dict[Everyday, Text] = Field(
        default_factory=dict, description="The place's own answer to an everyday verb ({thing}: what was named): "
        "`pray` in a chapel, `buy` and `drink` in a tavern (docs/world-format.md).")

    @field_validator("exits")
    @classmethod
    def _directions(cls, value: dict[str, str]) -> dict[str, str]:
        for direction in value:
            if direction not in DIRECTIONS:
                raise ValueError(f"{direction!r} is not a direction; use one of {', '.join(DIRECTIONS)}")
        return value


class Item(Strict):
    id: Id
    name: str = Field(min_length=1, max_length=100)
    aliases: list[NonEmpty] = Field(default_factory=list)
    description: str = Field(min_length=1)
    location: str | None = None
    portable: bool = True
    currency: bool = False
    here: str | None = None
    take_text: str | None = None
    fixed_text: str | None = None
    on_take: Effects = Field(default_factory=Effects)

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]


class Beat(Strict):
    """Something the world does on its own once ``when`` holds, after the player's act each turn."""

    id: Id
    when: Conditions = Field(default_factory=Conditions)
    text: Text | None = None
    details: list[Detail] = Field(default_factory=list)
    visible: list[NonEmpty] = Field(default_factory=list)
    effects: Effects = Field(default_factory=Effects)
    once: bool = True
    explore: bool = Field(default=True, description=EXPLORE)
    explore_reason: str | None = Field(default=None, min_length=4, max_length=200, description=EXPLORE_REASON)


class Command(Strict):
    """A verb this world adds ("ring the bell"): matched before the built-in verbs."""

    id: Id
    say: list[NonEmpty] = Field(min_length=1)
    when: Conditions = Field(default_factory=Conditions)
    reply: Text
    effects: Effects = Field(default_factory=Effects)
    otherwise: Text | None = None
    once: bool = False
    explore: bool = Field(default=True, description=EXPLORE)
    explore_reason: str | None = Field(default=None, min_length=4, max_length=200, description=EXPLORE_REASON)


class Ending(Strict):
    id: Id
    title: str = Field(min_length=1, max_length=100)
    text: str = ""
    details: list[Detail] = Field(default_factory=list)


class TimeOfDay(Strict):
    """What ``look`` says of the hour from the story clock's turn ``at`` on (turns that took time)."""

    at: int = Field(ge=0)
    text: Text


class ShowLine(Strict):
    """A world-level answer to ``show ITEM to PERSON`` when the person has no reaction of their own.

    ``items`` are item ids (none: any item); ``to`` are character names or labels (none: anyone).
    The first line, in file order, that fits both answers, so write the particular before the general.
    """

    items: list[NonEmpty] = Field(default_factory=list)
    to: list[NonEmpty] = Field(default_factory=list)
    text: Text


class WorldSection(Strict):
    title: str = Field(min_length=1, max_length=100)
    summary: str = Field(min_length=4, max_length=300)
    premise: str = Field(min_length=4)
    style: str = ""
    start: str
    opening: Text
    flags: list[NonEmpty] = Field(default_factory=list)
    goal: str | None = None
    times: list[TimeOfDay] = Field(default_factory=list)
    shows: list[ShowLine] = Field(default_factory=list)
    news: list[NewsLine] = Field(default_factory=list)
    tiers: dict[Tier, Text] = Field(
        default_factory=dict, description="A line per attitude tier ({name}: the character) added to every "
        "character's ordinary replies at that tier; NEUTRAL usually has none.")
    tier_changes: dict[Tier, Text] = Field(
        default_factory=dict, description="What the story says when someone's attitude toward the player falls "
        "or rises into a tier ({name}: the character).")
    memories: list[MemoryLine] = Field(default_factory=list)


class PlayerDef(Strict):
    name: str = Field(min_length=1, max_length=100)
    aliases: list[NonEmpty] = Field(default_factory=list, max_length=12)
    summary: str = Field(min_length=4, max_length=400)
    labels: list[NonEmpty] = Field(default_factory=list, max_length=4)


class Replies(Strict):
    """The world's voice for what the engine cannot do; each has a plain default."""

    unknown: Text | None = None
    no_such: Text | None = None
    nobody: Text | None = None
    not_here: Text | None = None
    no_exit: Text | None = None
    wait: Text | None = None
    no_topic: Text | None = None
    think: Text | None = None
    no_exit_indoors: Text | None = None
    scenery: Text | None = None
    unknown_subject: Text | None = None
    not_news: Text | None = None
    told_before: Text | None = None
    withhold: Text | None = None


class MetaPathDef(Strict):
    """``[[metapaths]]``: two relations in a row that make a two-hop fact worth telling (docs/world-format.md)."""

    relations: list[Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$")]] = Field(min_length=2, max_length=2)
    """Relation names in UPPER_SNAKE_CASE (a synonym or an inverse stands for its canonical relation)."""
    weight: float = Field(default=0.8, gt=0.0, le=1.0)


class WorldDocument(Strict):
    """One TOML file of a world. All tables are optional; ``world`` and ``player`` appear once per world."""

    world: WorldSection | None = None
    player: PlayerDef | None = None
    replies: Replies | None = None
    endings: list[Ending] = Field(default_factory=list)
    places: list[Place] = Field(default_factory=list)
    characters: list[CharacterDef] = Field(default_factory=list)
    relationships: list[RelationChange] = Field(default_factory=list)
    items: list[Item] = Field(default_factory=list)
    beats: list[Beat] = Field(default_factory=list)
    commands: list[Command] = Field(default_factory=list)
    relations: list[RelationSpec] = Field(default_factory=list)
    metapaths: list[MetaPathDef] = Field(default_factory=list)

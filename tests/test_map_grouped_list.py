"""The list's grouped form (one name's relations written after it once) must not read like the list of
names that share a relation: a comma means "and" between names (``Maud, Hob +TRUSTS→ Wren``), so the
relations one name heads are kept apart with "; "."""

from __future__ import annotations

from game.graph.map.flow import by_name, by_source
from game.graph.map.listing import KEEP, Said


def _said(source: str, relation: str, target: str) -> Said:
    return Said(source, relation, target, (source, target))


def test_one_name_s_relations_are_parted_by_semicolons_not_commas() -> None:
    relations = [_said("Wren Tallis", "+TRUSTS", "Pell"), _said("Pell", "+MOURNS", "Ness Tallis"),
                 _said("Tibby Tarrant", "-WITNESSED", "Pell")]
    (item,) = by_name(relations)
    text = item.text.replace(KEEP, " ")
    # "Wren Tallis, +MOURNS→ Ness Tallis" would read as Wren mourning; Pell mourns, and Wren trusts Pell.
    assert text == "Pell: ←+TRUSTS Wren Tallis; +MOURNS→ Ness Tallis; ←-WITNESSED Tibby Tarrant"
    assert item.pairs == tuple(said.pair for said in relations)
    (held,) = by_source([_said("Dace", "+OWES", "Orla Vance"), _said("Dace", "+LEADS", "Harbour Watch")])
    assert held.text.replace(KEEP, " ") == "Dace: +OWES→ Orla Vance; +LEADS→ Harbour Watch"

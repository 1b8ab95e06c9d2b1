"""Roles told with an auxiliary before them ("had become the wife of") and in the words of intrigue ("the
Cardinal's agent"): the role's relation is read as it is after a plain "was"."""

from __future__ import annotations

from helpers.prose import related, relations_read


def test_a_role_after_had_become_is_read() -> None:
    assert related("Catherine had become the wife of Edgar Linton.", "Catherine", "KIN_OF", "Edgar Linton")
    assert related("Tom had long been the servant of Ann.", "Tom", "SERVES", "Ann")


def test_an_agent_or_envoy_serves_the_one_who_sends_them() -> None:
    assert related("Milady was the Cardinal's agent.", "Milady", "SERVES", "the Cardinal")
    assert related("Rochefort, the Cardinal's envoy, rode away.", "Rochefort", "SERVES", "the Cardinal")
    assert not relations_read("The travel agent sold Tom a ticket.")

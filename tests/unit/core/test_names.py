"""Did-you-mean against one large set of names (`problems.Names`): a suite's case ids asked
for each misnamed trace file or trace. The answers are those of `closest`, and the work of
each ask stays bounded whatever the size of the set, counted in the comparisons difflib
makes (no time is measured)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from validator.problems import SHORTLIST, Names, closest, did_you_mean

SERVICES = ["mysql-slow-query", "redis-timeout", "milvus-not-loaded", "tls-expired", "disk-full"]
# Two thousand case ids, shaped like a real suite's: a few families of numbered cases.
IDS = [f"{service}-{n:05d}" for service in SERVICES for n in range(0, 4000, 10)]


@pytest.mark.parametrize(
    ("asked", "meant"),
    [
        ("mysql-slow-query-00120-v2", "mysql-slow-query-00120"),  # a suffix
        ("redis_timeout_03100", "redis-timeout-03100"),  # underscores for dashes
        ("redis-timout-03100", "redis-timeout-03100"),  # a letter dropped
        ("milvus-not-loadedd-00040", "milvus-not-loaded-00040"),  # a letter added
        ("tls-expirex-01230", "tls-expired-01230"),  # a letter changed
        ("DISK-FULL-03990", "disk-full-03990"),  # the case
        ("ｄｉｓｋ-full-00020", "disk-full-00020"),  # full-width letters
    ],
)
def test_a_misspelt_case_id_is_given_the_id_it_misspells(asked: str, meant: str) -> None:
    assert Names(IDS).closest(asked) == meant
    assert did_you_mean(asked, Names(IDS)) == f" (did you mean '{meant}'?)"


def test_a_name_like_none_of_them_gets_no_suggestion() -> None:
    assert Names(IDS).closest("payments-api-latency") is None
    assert did_you_mean("zz", Names(IDS)) == ""


def test_each_ask_of_a_large_set_compares_a_shortlist_not_every_name(
    comparisons: list[str],
) -> None:
    names = Names(IDS)
    for n in range(0, 4000, 400):
        asked = f"mysql-slow-query-{n:05d}-copy"
        assert names.closest(asked) == f"mysql-slow-query-{n:05d}"
        assert len(comparisons) <= 2 * SHORTLIST, (
            f"{asked}: {len(comparisons)} names compared, of {len(IDS)}"
        )
        comparisons.clear()
    # The exact search, as the function `closest` makes it for a one-off question.
    assert closest("mysql-slow-query-00400-copy", IDS) == "mysql-slow-query-00400"
    assert len(comparisons) >= len(IDS)


@pytest.mark.parametrize("asked", ["3f2a9c4e-0012-4b7d-9e21-00000000a310", "build-2024-11-30"])
def test_a_name_of_another_kind_is_compared_with_none(asked: str, comparisons: list[str]) -> None:
    """It shares a few digit pieces (`001`, `-00`) with hundreds of ids, and no more."""
    assert Names(IDS).closest(asked) is None
    assert comparisons == []


def test_a_text_longer_than_any_id_is_compared_with_none(comparisons: list[str]) -> None:
    """A trace's case id field may hold any text, a megabyte of it."""
    assert Names(IDS).closest("mysql-slow-query-00120" * 50_000) is None
    assert comparisons == []


def test_a_name_asked_again_is_answered_without_comparing(comparisons: list[str]) -> None:
    names = Names(IDS)
    assert names.closest("redis-timeout-00100-old") == "redis-timeout-00100"
    assert comparisons
    comparisons.clear()
    assert names.closest("redis-timeout-00100-old") == "redis-timeout-00100"
    assert comparisons == []


def test_the_set_is_read_only_when_a_name_is_first_asked() -> None:
    read: list[str] = []

    def ids() -> Iterator[str]:
        for case_id in ("payment", "checkout"):
            read.append(case_id)
            yield case_id

    names = Names(ids())
    assert read == [], "a run whose files all name their cases pays nothing"
    assert names.closest("paymnet") == "payment"
    assert read == ["payment", "checkout"]


@pytest.mark.parametrize(
    "asked",
    ["warning", "Warning", "ＷＡＲＮＩＮＧ", "warnign", "eror", "ERRRO", "note", "x", ""],
)
def test_a_small_set_answers_as_closest_does(asked: str) -> None:
    known = ["warning", "error", "WARNING", "info"]
    assert Names(known).closest(asked) == closest(asked, known)
    assert Names(known, shortlist=None).closest(asked) == closest(asked, known)

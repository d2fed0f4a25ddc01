"""Case files -> `Case` objects, or positioned problems a non-developer can act on."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import codes
from ..evaluation.params import percent_share
from ..evaluation.text import normalize_markdown, normalize_plain
from ..model import Case, Spec
from ..problems import ERROR, WARNING, Problem, closest, show
from ..units import UNIT_KINDS, UNIT_MARK, read_value
from .caseformat import CaseFormat
from .schema import schema_problems
from .slips import SEPARATOR_CHAR, looks_like_list, typographic_quotes
from .yamlfile import PathKey, YamlDocument

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")
_LIST_FIELDS = (
    "required_tools",
    "allowed_verdicts",
    "forbidden_keywords",
    "forbidden_verdicts",
    "tags",
)


def case_problems(
    doc: YamlDocument,
    fmt: CaseFormat,
    plan: tuple[Spec, ...],
    verdicts: tuple[str, ...] | None = None,
) -> list[Problem]:
    """Schema errors plus the cross-field logic a schema cannot express.

    `fmt` and `plan`: the suite's case keys and the specs this case applies (they decide
    which keys it may and must write). `verdicts`: the verdicts the verifier gives (the
    trace-fields spec's list): a case verdict outside it is an error; None: no such check."""
    data = doc.data
    bound = _bound_keys(plan)
    problems = bound_cuts(doc, lambda path: path[0] in bound, "a check reads this value")
    found = schema_problems(doc, fmt.schema(plan))
    percents = _percent_problems(doc) + _unit_problems(doc, fmt)
    taken = {(p.line, p.column) for p in percents}
    problems += [
        _named(p, fmt, plan)
        for p in found
        if not _coverage_handled_here(doc, p) and (p.line, p.column) not in taken
    ]
    problems += percents
    problems += _coverage_problems(doc)
    problems += _conflicts(doc)
    problems += _slips(doc)
    problems += _blank_keywords(doc)
    problems += _markdown_keywords(doc)
    if verdicts:
        problems += _verdict_spelling(doc, verdicts)
    problems += _duplicates(doc)
    case_id = data.get("id")
    if isinstance(case_id, str) and ID_PATTERN.match(case_id) and case_id != _stem(doc.file):
        stem = Path(doc.file).stem
        problems.append(
            doc.problem(
                ("id",),
                WARNING,
                codes.ID_MISMATCH,
                f"case id '{case_id}' differs from the file name '{stem}':"
                f" rename the file to '{case_id}{Path(doc.file).suffix}' so people find it",
            )
        )
    return sorted(_said_once(problems))


@lru_cache(maxsize=256)
def _bound_keys(plan: tuple[Spec, ...]) -> frozenset[str]:
    """The case keys a plan's checks read (once per plan: cases without `checks` share one)."""
    return frozenset(key for spec in plan for key in spec.reads)


def _said_once(problems: list[Problem]) -> list[Problem]:
    """`- #mysql_explain` is one mistake: the comment-in-value problem says it (quote it);
    the empty value it leaves is not told again as "found nothing"."""
    cut = {p.line for p in problems if p.code == codes.COMMENT_IN_VALUE and p.severity == ERROR}
    if not cut:
        return problems
    return [
        p
        for p in problems
        if not (p.line in cut and p.code == codes.WRONG_TYPE and "found nothing" in p.message)
    ]


def bound_cuts(doc: YamlDocument, bound: Callable[[PathKey], bool], why: str) -> list[Problem]:
    """The file's own problems, a value cut short by ` #` (a `comment-in-value` warning)
    made an error where `bound` says a check reads the value: the check would compare the
    part before the `#`."""
    out = []
    for problem in doc.problems:
        if problem.code == codes.COMMENT_IN_VALUE and problem.severity == WARNING:
            path = doc.path_at(problem.line, problem.column)
            if path and bound(path):
                problem = dataclasses.replace(
                    problem, severity=ERROR, message=f"{problem.message} ({why})"
                )
        out.append(problem)
    return out


def _stem(file: str) -> str:
    """`Path(file).stem` without making a Path (this is asked of every case file)."""
    name = file.rsplit("/", 1)[-1] if os.sep == "/" else Path(file).name
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def build_case(doc: YamlDocument, plan: tuple[Spec, ...] = ()) -> Case:
    """A Case from a document already known to have no errors; the inputs of its plan that
    it does not write get their declared defaults."""
    fields = dict(doc.data)
    rate = percent_share(fields.get("min_pass_rate"))
    if rate is not None:  # `80%`, as run --min-run-pass-rate takes it
        fields["min_pass_rate"] = rate
    defaulted = set()
    for name, kind, default in _plan_inputs(plan):
        if kind is not None and isinstance(fields.get(name), str):  # `20s`: units.py
            read = read_value(kind, fields[name])
            if read is not None:
                fields[name] = read
        if default is not None and name not in fields:
            fields[name] = default
            defaulted.add(name)
    return Case(id=doc.data["id"], file=doc.file, fields=fields, defaulted=frozenset(defaulted))


@lru_cache(maxsize=256)
def _plan_inputs(plan: tuple[Spec, ...]) -> tuple[tuple[str, str | None, Any], ...]:
    """The inputs of a plan's specs that `build_case` acts on, in the plan's order: (name,
    its unit kind or None, its default or None). Read once per plan, not once per case
    (cases that name no `checks` share one plan)."""
    out = []
    for spec in plan:
        for name, schema in spec.inputs.items():
            kind = schema.get(UNIT_MARK)
            unit = kind if isinstance(kind, str) and kind in UNIT_KINDS else None
            default = schema.get("default")
            if unit is not None or default is not None:
                out.append((name, unit, default))
    return tuple(out)


def _named(problem: Problem, fmt: CaseFormat, plan: tuple[Spec, ...]) -> Problem:
    """A missing required input says which spec needs it."""
    if problem.code != codes.MISSING_KEY:
        return problem
    match = re.search(r"missing required key '([^']+)'", problem.message)
    needs = fmt.requirers(match.group(1), plan) if match else []
    if not needs:
        return problem
    message = f"{problem.message} (needed by {', '.join(needs)})"
    return dataclasses.replace(problem, message=message)


# The case keys that take a share written as a percentage, and the code of a wrong one.
_PERCENT_KEYS = {"min_keyword_coverage": codes.COVERAGE_RANGE, "min_pass_rate": codes.OUT_OF_RANGE}


def _percent_problems(doc: YamlDocument) -> list[Problem]:
    """Text where a share or a count is read: a percentage that is no share (`150%`, `0%`),
    or other text (`two`), said plainly in place of the schema's pattern."""
    out = []
    for key, code in _PERCENT_KEYS.items():
        value = doc.data.get(key)
        if not isinstance(value, str) or percent_share(value) is not None:
            continue
        if "%" in value:
            message = (
                f"{key}: '{value}' is no share: write a percentage above 0% and at most 100%"
                ' (e.g. "80%"), or a decimal such as 0.8'
            )
        else:
            code = codes.WRONG_TYPE
            message = (
                f"{key} must be a number, found text {show(value)}: write a decimal such as"
                ' 0.8, or a percentage in quotes such as "80%"'
                + (", or a whole number (a count) such as 2" if key != "min_pass_rate" else "")
            )
        out.append(doc.problem((key,), ERROR, code, message))
    return out


def _unit_problems(doc: YamlDocument, fmt: CaseFormat) -> list[Problem]:
    """Text no unit reads where an input takes a value with a unit (`20 parsecs`), said with
    the units it takes, in place of the schema's pattern."""
    out = []
    for key, value in doc.data.items():
        kind = fmt.unit_of(key) if isinstance(value, str) else None
        if kind is None or read_value(kind, value) is not None:
            continue
        unit = UNIT_KINDS[kind]
        out.append(
            doc.problem(
                (key,),
                ERROR,
                codes.WRONG_TYPE,
                f"{key}: {show(value)} is not a {kind} this tool reads: write a number"
                f" ({unit.base}) or a {kind} with its unit, e.g. {unit.examples}",
            )
        )
    return out


def _coverage_handled_here(doc: YamlDocument, problem: Problem) -> bool:
    """Numeric min_keyword_coverage values get a precise message below, not the schema's."""
    value = doc.data.get("min_keyword_coverage")
    at = doc.value_at(("min_keyword_coverage",))
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and (problem.line, problem.column) == (at.line, at.column)
    )


def _coverage_problems(doc: YamlDocument) -> list[Problem]:
    data = doc.data
    if "min_keyword_coverage" not in data:
        return []
    value = data["min_keyword_coverage"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []  # the schema already says it must be a number
    keywords = data.get("root_cause_keywords")
    entries = len(keywords) if isinstance(keywords, list) else None

    def err(code: str, msg: str) -> list[Problem]:
        return [doc.problem(("min_keyword_coverage",), ERROR, code, msg)]

    if isinstance(value, float):
        if not math.isfinite(value) or not 0 < value <= 1:
            count = f" (1 to {entries})" if entries else ""
            whole = (
                f": write {int(value)} for a count of entries"
                if value.is_integer() and value >= 1
                else f": write a share such as 0.75, or a whole number of entries{count}"
            )
            return err(
                codes.COVERAGE_RANGE,
                f"min_keyword_coverage {value} is a decimal, so it is read as a share of the"
                f" root_cause_keywords entries and must be above 0 and at most 1{whole}",
            )
        return []
    if value < 1:
        return err(
            codes.COVERAGE_RANGE,
            f"min_keyword_coverage {value} must be at least 1 (a count of keyword entries);"
            " remove the key to require every entry",
        )
    if entries is not None and entries and value > entries:
        return err(
            codes.COVERAGE_TOO_HIGH,
            f"min_keyword_coverage {value} is more than the {entries} root_cause_keywords"
            f" entries: write at most {entries}, or add keywords",
        )
    return []


def _conflicts(doc: YamlDocument) -> list[Problem]:
    return _verdict_conflicts(doc) + _keyword_conflicts(doc)


def _verdict_conflicts(doc: YamlDocument) -> list[Problem]:
    allowed = doc.data.get("allowed_verdicts")
    forbidden = doc.data.get("forbidden_verdicts")
    if not (isinstance(allowed, list) and isinstance(forbidden, list)):
        return []
    return [
        doc.problem(
            ("forbidden_verdicts", i),
            WARNING,
            codes.VERDICT_CONFLICT,
            f"verdict '{verdict}' is both allowed and forbidden; forbidden wins,"
            " so remove it from one of the two lists",
        )
        for i, verdict in enumerate(forbidden)
        if isinstance(verdict, str) and verdict in allowed
    ]


def _keyword_conflicts(doc: YamlDocument) -> list[Problem]:
    root = doc.data.get("root_cause_keywords")
    banned = doc.data.get("forbidden_keywords")
    if not (isinstance(root, list) and isinstance(banned, list)):
        return []
    wanted = [(k, _norm(k)) for _, k, _ in keyword_entries(root) if _norm(k)]
    out = []
    for i, keyword in enumerate(banned):
        norm = _norm(keyword) if isinstance(keyword, str) else ""
        clash = next(((k, n) for k, n in wanted if norm in n), None) if norm else None
        if clash is not None:
            message = _keyword_conflict(keyword, norm, *clash)
            out.append(
                doc.problem(("forbidden_keywords", i), WARNING, codes.KEYWORD_CONFLICT, message)
            )
    return out


def _keyword_conflict(keyword: str, norm: str, clash: str, clash_norm: str) -> str:
    if clash_norm == norm:
        same = "" if clash == keyword else f" ('{clash}')"
        return (
            f"'{keyword}' is both a root-cause keyword{same} and a forbidden keyword: an"
            " answer that names this root cause fails; remove it from one of the two lists"
        )
    return (
        f"forbidden keyword '{keyword}' is part of the root-cause keyword '{clash}':"
        " an answer that names this root cause also contains the forbidden words"
        " and fails; make the forbidden keyword more specific"
    )


# Lists of names (tools, verdicts, tags): an entry never holds a separator or spaces around it.
_NAME_LISTS = ("required_tools", "allowed_verdicts", "forbidden_verdicts", "tags", "checks")


def _string_entries(doc: YamlDocument) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """(path, text, key) of every text entry of a list field, synonyms included."""
    for key, value in doc.data.items():
        if key in _TEXT_LISTS:
            for index, keyword, _ in keyword_entries(value):
                yield (key, *index), keyword, key
        elif isinstance(value, list):
            for i, entry in enumerate(value):
                if isinstance(entry, str):
                    yield (key, i), entry, key


def _joined(doc: YamlDocument, keys: tuple[str, ...] | None = None) -> str:
    """Every text entry of the list fields (of `keys`, else of all), synonyms included, one a
    line: one search of it tells that no entry can have what a per-entry rule looks for."""
    texts: list[str] = []
    for key, value in doc.data.items():
        if not isinstance(value, list) or (keys is not None and key not in keys):
            continue
        for entry in value:
            if isinstance(entry, str):
                texts.append(entry)
            elif isinstance(entry, list):
                texts.extend(k for k in entry if isinstance(k, str))
    return "\n".join(texts)


# What a slip starts with: a separator (a list in one entry) or a typographic opening quote.
_SLIP_CHARS = re.compile("[,，、;；“‘„«「『〝]")


def _slips(doc: YamlDocument) -> list[Problem]:
    """Entries that can never match as written: a list inside one entry, typographic quotes."""
    if not _SLIP_CHARS.search(_joined(doc)):
        return []  # the common case: no entry has a separator or a typographic quote
    out = []
    for path, text, key in _string_entries(doc):
        quotes = typographic_quotes(text)
        if quotes is not None:
            inner = text.strip()[1:-1]
            message = (
                f"{key} has {text}: the {quotes[0]}{quotes[1]} quotes are typographic, so YAML"
                f" keeps them as part of the text and it never matches: write {inner}"
                " (or use ASCII quotes)"
            )
            out.append(doc.problem(path, ERROR, codes.TYPOGRAPHIC_QUOTES, message))
            continue
        parts = looks_like_list(text) if key in _TEXT_LISTS else _name_list(text, key)
        if parts:
            at = doc.char_at(path, ",，、;；")
            shown = ", ".join(parts)
            message = (
                f"{key} has one entry '{text}', which reads as {len(parts)}: the separator"
                f" keeps them one text that must occur whole; write a YAML list, [{shown}]"
            )
            out.append(
                Problem(doc.file, at.line, at.column, ERROR, codes.KEYWORD_LOOKS_LIKE_LIST, message)
            )
    return out


def _name_list(text: str, key: str) -> list[str] | None:
    if key not in _NAME_LISTS or not SEPARATOR_CHAR.search(text):
        return None
    parts = [p.strip() for p in re.split(r"[,，、;；]", text)]
    return parts if len(parts) > 1 and all(parts) else None


def _verdict_spelling(doc: YamlDocument, known: tuple[str, ...]) -> list[Problem]:
    """A verdict the verifier never gives (`pass`, `PASSED`) can never match: verdicts are
    compared exactly, upper case included, so an allowed one that is not in the list makes
    the case unable to pass, and a forbidden one forbids nothing. `known`: the verdicts the
    trace-fields spec lists."""
    out = []
    for key in ("allowed_verdicts", "forbidden_verdicts"):
        values = doc.data.get(key)
        if not isinstance(values, list):
            continue
        for i, verdict in enumerate(values):
            if not isinstance(verdict, str) or verdict in known or typographic_quotes(verdict):
                continue  # (typographic quotes get their own problem)
            upper = verdict.strip().upper()
            close = upper if upper in known else closest(upper, known)
            hint = f" (did you mean '{close}'?)" if close is not None else ""
            effect = (
                "so no trace can match it" if key == "allowed_verdicts" else "so it forbids nothing"
            )
            out.append(
                doc.problem(
                    (key, i),
                    ERROR,
                    codes.UNKNOWN_VERDICT,
                    f"{key} lists '{verdict}'{hint}, which the verifier never gives: verdicts"
                    f" are compared exactly, upper case included, and the verifier gives"
                    f" {_one_of(known)} (the trace-fields spec's verdicts list), {effect}",
                )
            )
    return out


def _one_of(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


# Lists whose entries are matched as text (normalized, case-insensitive): two entries that
# differ only in case or spacing are the same entry.
_TEXT_LISTS = ("root_cause_keywords", "forbidden_keywords", "degraded_markers")


@lru_cache(maxsize=8192)
def _norm(text: str) -> str:
    """normalize_plain, cached: suites repeat the same keywords and verdicts across cases."""
    return normalize_plain(text)


def keyword_entries(entries: Any) -> Iterator[tuple[tuple[int, ...], str, list[str]]]:
    """Each keyword of a keyword list (entries of text, or lists of synonyms): its index (and
    synonym index), the keyword, and the keywords it stands beside (its list's text entries,
    or its synonyms)."""
    if not isinstance(entries, list):
        return
    texts = [e for e in entries if isinstance(e, str)]
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            yield (i,), entry, texts
        elif isinstance(entry, list):
            synonyms = [k for k in entry if isinstance(k, str)]
            for j, k in enumerate(entry):
                if isinstance(k, str):
                    yield (i, j), k, synonyms


def blank_entries(entries: Any) -> list[tuple[tuple[int, ...], str]]:
    """The keywords of a keyword list that are empty once normalized, with their index."""
    return [(index, k) for index, k, _ in keyword_entries(entries) if not _norm(k)]


def blank_keyword_message(where: str, keyword: str) -> str:
    # Escaped (\u200b, \u3000): the characters at fault are the ones that do not show.
    return (
        f"{where} has {json.dumps(keyword)}, which is empty once spaces and invisible characters are"
        " removed: there is nothing to look for; write the word, or remove the entry"
    )


def _blank_keywords(doc: YamlDocument) -> list[Problem]:
    return [
        doc.problem((key, *index), ERROR, codes.BLANK_KEYWORD, blank_keyword_message(key, keyword))
        for key in _TEXT_LISTS
        for index, keyword in blank_entries(doc.data.get(key))
        if keyword  # "" is the schema's empty-value already
    ]


# `_` or `*` next to a non-word character (or an end): the only keywords whose text Markdown
# can restyle (`__init__` is bold "init"); `a_b` and `x*y` inside words it leaves alone.
_EMPHASIS_EDGE = re.compile(r"(?:^|\W)[_*]|[_*](?:$|\W)")


def _markdown_keywords(doc: YamlDocument) -> list[Problem]:
    """Keywords that Markdown reads differently: answers are matched after rendering, so
    `__init__` written in prose (rendered: bold "init") never contains the keyword. Quiet
    once the rendered form is listed too (as a synonym, or another entry of the list)."""
    # Each keyword is a line of its own here, and a line break is not a word character, so
    # a search of them all finds an edge exactly when one keyword has one.
    if not _EMPHASIS_EDGE.search(_joined(doc, _TEXT_LISTS)):
        return []
    out = []
    for key in _TEXT_LISTS:
        for index, keyword, siblings in keyword_entries(doc.data.get(key)):
            if not _EMPHASIS_EDGE.search(keyword):
                continue
            rendered = _rendered(keyword)
            if not rendered or any(_norm(k) == rendered for k in (keyword, *siblings)):
                continue  # reads the same, or the rendered form is listed as well
            shown = json.dumps(rendered, ensure_ascii=False)
            if len(index) == 2:
                fix = f"add {shown} to its synonyms"
            elif key == "root_cause_keywords":
                fix = f"write the entry as synonyms, [{json.dumps(keyword, ensure_ascii=False)}, {shown}]"
            else:
                fix = f"also list {shown}"
            message = (
                f"{key} has '{keyword}', which Markdown reads as '{rendered}'; answers are matched"
                f" as rendered text, so one that writes {keyword} outside `code` does not contain"
                f" it: {fix}"
            )
            out.append(doc.problem((key, *index), WARNING, codes.KEYWORD_MARKDOWN, message))
    return out


@lru_cache(maxsize=1024)
def _rendered(text: str) -> str:
    return normalize_markdown(text)


def _entry_key(key: str, value: Any) -> str:
    if key in _TEXT_LISTS:
        if isinstance(value, str):
            return "s:" + _norm(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return "l:" + repr(sorted({_norm(v) for v in value}))
    return "r:" + repr(value)


def _distinct_texts(key: str, values: list[Any]) -> bool:
    """Whether `values` is all text and no two entries have the same `_entry_key` (blank
    ones aside): the common list, known to hold no repeat without the per-entry keys."""
    if not all(type(v) is str for v in values):
        return False
    if key in _TEXT_LISTS:
        norms = [n for n in map(_norm, values) if n]
        return len(set(norms)) == len(norms)
    return len(set(values)) == len(values)


def _quoted(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else show(value)


def _duplicates(doc: YamlDocument) -> list[Problem]:
    out = []
    for key in (*_LIST_FIELDS, "root_cause_keywords", "checks", "degraded_markers"):
        values = doc.data.get(key)
        if not isinstance(values, list) or _distinct_texts(key, values):
            continue
        first: dict[str, int] = {}
        for i, value in enumerate(values):
            marker = _entry_key(key, value)
            if marker == "s:":  # blank: reported as blank-keyword, not as a repeat
                continue
            if marker not in first:
                first[marker] = i
                continue
            before = doc.value_at((key, first[marker]))
            earlier = values[first[marker]]
            where = f"line {before.line}, column {before.column}"
            if earlier == value:
                msg = f"{key} lists {_quoted(value)} twice (first at {where}): remove the repeat"
            else:
                msg = (
                    f"{key} lists {_quoted(value)}, the same as {_quoted(earlier)} at {where}"
                    " (case and spacing do not matter): remove the repeat"
                )
            out.append(doc.problem((key, i), WARNING, codes.DUPLICATE_ENTRY, msg))
    return out

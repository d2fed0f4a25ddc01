"""Problem codes: The suite config, the capture target, and what lint --fixtures and run find in the traces."""

from __future__ import annotations

from .code import ERROR, WARNING, Code

__all__ = [
    "AMBIGUOUS_FIXTURE",
    "BAD_TEMPLATE",
    "CONFIG_PATH",
    "FIXTURE_OUTSIDE",
    "IGNORE_MATCHES_NOTHING",
    "ITEM_KEY_MISSING",
    "MISNAMED_TRACE",
    "NO_CASE_ID",
    "NO_FIXTURE",
    "ORPHAN_FIXTURE",
    "QUERY_MATCHES_NOTHING",
    "SPLIT_MATCHES_A_LIST",
    "TARGET_SHAPE",
    "TLS_UNVERIFIED",
    "TOOL_NEVER_CALLED",
    "TOO_FEW_RUNS",
    "TRACE_CASE_MISMATCH",
    "TRACE_ENCODING",
    "TRACE_JSON",
    "UNKNOWN_CASE",
    "UNKNOWN_PLACEHOLDER",
    "UNREADABLE_TRACE",
    "VIEW_UNREAD",
]

TOOL_NEVER_CALLED = Code(
    "tool-never-called",
    WARNING,
    "a tool name in a case that no readable trace ever calls (no `tools:` declared)",
    "`required_tools: [mysql_slowlog]` when the traces call `mysql_slow_log`",
    "`required_tools: [mysql_slow_log]`, or declare `tools:`",
    when="--fixtures",
)

QUERY_MATCHES_NOTHING = Code(
    "query-matches-nothing",
    WARNING,
    "a spec's query matches nothing in any trace lint read: a negative check on it always passes",
    "`query: $.finalAnswr` with `contains-none`",
    "`query: $.finalAnswer`, or `allow_empty: true` when no match is expected",
    when="--fixtures",
)

ITEM_KEY_MISSING = Code(
    "item-key-missing",
    WARNING,
    "an item-key parameter (`key`, `name_key`, `args_key`) names a key no matched item"
    " holds in any trace lint read",
    "`name_key: function.name` on calls `{name, arguments}`",
    "`name_key: name`",
    when="--fixtures",
)

IGNORE_MATCHES_NOTHING = Code(
    "ignore-matches-nothing",
    WARNING,
    "a call entry's `ignore` entry that matches no argument of the calls the traces hold",
    "`ignore: [reqest_id]` when the calls have `request_id`",
    "`ignore: [request_id]`",
    when="--fixtures",
)

VIEW_UNREAD = Code(
    "view-unread",
    WARNING,
    "a view adapter met content of a kind checks read that it could not read in the"
    " traces (one problem per adapter, at the first such trace)",
    "Anthropic `tool_use` content parts read by `openai-messages`",
    "name the adapter that reads the shape (`traces.view`), or check `$.view.unread`",
    when="--fixtures",
)

CONFIG_PATH = Code(
    "config-path",
    ERROR,
    "a path in the suite config (validator.yaml) that does not exist",
    "`fixtures: fixturs`",
    "`fixtures: fixtures` (relative to the config file's folder)",
)

BAD_TEMPLATE = Code(
    "bad-template",
    ERROR,
    "a template (`traces.case_id`, a `target:` text, a spec's `message`) that cannot be read",
    '`case_id: "{file_stem-{$.id}"`',
    '`case_id: "{file_stem}-{$.id}"`',
)

UNKNOWN_PLACEHOLDER = Code(
    "unknown-placeholder",
    ERROR,
    "a template names a placeholder that is not one: a `target:` text naming no case"
    " key, or a spec's `message` naming one its predicate does not give",
    '`body: {q: "{qestion}"}`; `message: the answer lacks {mising}`',
    '`body: {q: "{question}"}`; `message: the answer lacks {missing}`',
)

TARGET_SHAPE = Code(
    "target-shape",
    ERROR,
    "a `target:` with both url and command, neither, or a key its kind does not use",
    "`command: [...]` with `headers:`",
    "`url:` with `headers:`, or `command:` alone",
)

TLS_UNVERIFIED = Code(
    "tls-unverified",
    WARNING,
    "a `target:` that does not check the agent's TLS certificate",
    "`verify: false`",
    "remove it once the agent has a valid certificate",
)

NO_FIXTURE = Code(
    "no-fixture",
    WARNING,
    "a case without a saved trace",
    "case `redis-memory` without `fixtures/redis-memory.json`",
    "save its trace there",
    when="--fixtures",
)

ORPHAN_FIXTURE = Code(
    "orphan-fixture",
    WARNING,
    "a saved trace that matches no case",
    "`fixtures/redis-memroy.json`",
    "rename it after its case id",
    when="--fixtures",
)

AMBIGUOUS_FIXTURE = Code(
    "ambiguous-fixture",
    WARNING,
    "a case with both a single trace file and a folder of runs",
    "both `fixtures/x.json` and `fixtures/x/`",
    "keep one",
    when="--fixtures",
)

FIXTURE_OUTSIDE = Code(
    "fixture-outside",
    WARNING,
    "a case's trace folder is a link to a folder outside the fixtures folder",
    "`fixtures/c1 -> /home/me/secrets`",
    "copy the traces into `fixtures/c1/`, or run with `--follow-symlinks`",
    when="--fixtures",
)

NO_CASE_ID = Code(
    "no-case-id",
    WARNING,
    "a trace whose case id (`traces.case_id`) cannot be read",
    "`case_id: $.task_id` and a trace without `task_id`",
    "point `case_id` at the field that holds the id",
    when="--fixtures",
)

UNREADABLE_TRACE = Code(
    "unreadable-trace",
    WARNING,
    "a trace file that cannot be read or split into traces",
    "`split: $.simulations[*]` and a file without `simulations`",
    "fix the file, or the `split` JSONPath",
    when="--fixtures",
)

TRACE_JSON = Code(
    "trace-json",
    ERROR,
    "a trace file that is not valid JSON (at the character at fault)",
    '`{"caseId": "x",}` (a trailing comma)',
    '`{"caseId": "x"}`',
    when="--fixtures",
)

TRACE_ENCODING = Code(
    "trace-encoding",
    ERROR,
    "a trace file not saved as UTF-8 (UTF-16, UTF-32, Latin-1; a UTF-8 byte-order"
    " mark is a warning)",
    "a trace saved as UTF-16 by PowerShell",
    "re-save it as UTF-8",
    when="--fixtures",
    also_warning=True,
)

TRACE_CASE_MISMATCH = Code(
    "trace-case-mismatch",
    ERROR,
    "a trace filed under one case by its name whose case id field names another",
    '`fixtures/redis-memory.json` holding `"caseId": "mysql-slow"`',
    "fix the trace's caseId, or move the file to the case it names",
    when="--fixtures",
)

MISNAMED_TRACE = Code(
    "misnamed-trace",
    WARNING,
    "a trace whose case id names a case but whose file name does not",
    '`fixtures/run1.json` holding `"caseId": "redis-memory"`',
    "rename it `fixtures/redis-memory.json`, or `fixture: run1.json` in the case",
    when="--fixtures",
)

UNKNOWN_CASE = Code(
    "unknown-case",
    WARNING,
    "a quarantine entry names no case of the suite",
    "`- id: redis-memroy` in the `--quarantine` file",
    "`- id: redis-memory`, or remove the entry",
    when="run --quarantine",
)

TOO_FEW_RUNS = Code(
    "too-few-runs",
    WARNING,
    "a case asks for more passing runs than it has runs",
    "`min_passes: 8` with 3 traces in `fixtures/<id>/`",
    "save more runs, or lower `min_passes`",
    when="run",
)


SPLIT_MATCHES_A_LIST = Code(
    "split-matches-a-list",
    ERROR,
    "traces.split matches one list of traces, read as a single trace",
    "`split: $.simulations`",
    "`split: $.simulations[*]`",
    when="--fixtures",
    also_warning=True,
)

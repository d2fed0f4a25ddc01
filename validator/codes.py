"""Problem codes: the one registry of every problem lint and run can report.

Each code is stable (users' tooling and the tests rely on it) and has a severity, a one-line
title, and a bad and a fixed example. The README's code table is rendered from this table
(`markdown_table`) and a test keeps the two equal; a `Problem` with a code missing here is a
bug the tests catch. Adding a code means an entry here and the place that detects it.

It is over 600 lines because it is one table, an entry per code.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Code:
    code: str
    severity: str  # the usual severity
    title: str
    bad: str  # Markdown, for the README table
    fixed: str
    when: str = ""  # the flag it needs, when lint reports it only with one
    # Reported as a warning in the cases its message explains, an error otherwise.
    also_warning: bool = False


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code(
            "yaml-syntax",
            ERROR,
            "the file is not valid YAML",
            "`root_cause_keywords: [pool, exhausted`",
            "`root_cause_keywords: [pool, exhausted]`",
        ),
        Code(
            "empty-file",
            ERROR,
            "the file holds no YAML mapping",
            "a file holding only comments",
            "write the case's keys",
        ),
        Code(
            "not-a-mapping",
            ERROR,
            "the file holds a list or a single value, not 'key: value' lines",
            "`- id: x`",
            "`id: x`",
        ),
        Code(
            "not-utf8",
            ERROR,
            "the file is not UTF-8 text",
            "a file saved as Latin-1",
            "save it as UTF-8",
        ),
        Code(
            "duplicate-key",
            ERROR,
            "a key is written twice in one mapping",
            "`question:` written twice",
            "keep one",
        ),
        Code(
            "yaml-tag",
            ERROR,
            "a YAML tag (!!python/..., !custom) is used",
            "`question: !!python/object/apply:os.system [...]`",
            "`question: plain text`",
        ),
        Code(
            "yaml-unsupported",
            ERROR,
            "a YAML feature these files do not use (merge keys, complex keys)",
            "`<<: *base` (merge key)",
            "write the entries out",
        ),
        Code(
            "yaml-too-large",
            ERROR,
            "anchors and aliases expand to too many values",
            "anchors and aliases expanding past 20,000 values",
            "write the values plainly",
        ),
        Code(
            "yaml-too-deep",
            ERROR,
            "values are nested too deeply",
            "values nested more than 100 levels",
            "flatten the file",
        ),
        Code(
            "file-too-large",
            ERROR,
            "the file is larger than a case or spec file can be",
            "a case file over 4 MiB",
            "use the right file",
        ),
        Code(
            "unreadable",
            ERROR,
            "the file cannot be read",
            "no permission to read the file",
            "fix its permissions",
        ),
        Code(
            "unknown-key",
            ERROR,
            "a key the format does not have",
            "`required_tool: [x]`",
            "`required_tools: [x]`",
        ),
        Code(
            "missing-key",
            ERROR,
            "a required key is missing",
            "no `question:` line",
            "`question: Why is checkout slow?`",
        ),
        Code(
            "wrong-type",
            ERROR,
            "a value of the wrong type",
            "`required_tools: mysql_explain`",
            "`required_tools: [mysql_explain]`",
        ),
        Code(
            "empty-list",
            ERROR,
            "a list that must have entries is empty",
            "`allowed_verdicts: []`",
            "`allowed_verdicts: [PASS]`",
        ),
        Code(
            "empty-value",
            ERROR,
            "a text that must not be empty is empty",
            '`question: ""`',
            "`question: Why is checkout slow?`",
        ),
        Code(
            "blank-keyword",
            ERROR,
            "a keyword that is empty once spaces and invisible characters are removed",
            '`forbidden_keywords: [" "]` (only spaces or invisible characters; also in a spec\'s `keywords`)',
            "write the word, or remove the entry",
        ),
        Code(
            "bad-id",
            ERROR,
            "an id with characters ids may not use",
            "`id: ../Checkout Slow`",
            "`id: checkout-slow`",
        ),
        Code(
            "bad-value",
            ERROR,
            "a value that is not one of the allowed ones",
            "`report_as: evidence_coverag`",
            "`report_as: evidence_coverage`",
        ),
        Code(
            "coverage-range",
            ERROR,
            "min_keyword_coverage is neither a count nor a share in (0, 1]",
            "`min_keyword_coverage: 1.5` (or `0`, or `2.0`)",
            "`min_keyword_coverage: 0.75` (a share) or `2` (a count)",
        ),
        Code(
            "coverage-too-high",
            ERROR,
            "min_keyword_coverage (or min_answer_keywords) asks for more entries than there are",
            "`min_keyword_coverage: 3` with 2 keyword entries",
            "`min_keyword_coverage: 2`",
        ),
        Code(
            "verdict-conflict",
            WARNING,
            "a verdict is both allowed and forbidden",
            "`allowed_verdicts: [PASS, REVISE]`, `forbidden_verdicts: [REVISE]`",
            "remove `REVISE` from one list (forbidden wins)",
        ),
        Code(
            "keyword-conflict",
            WARNING,
            "a forbidden keyword is (part of) a root-cause keyword",
            "root cause `restart the pool`, forbidden `restart`",
            "a more specific forbidden keyword",
        ),
        Code(
            "duplicate-entry",
            WARNING,
            "a list names the same entry twice",
            "`tags: [a, b, a]`",
            "`tags: [a, b]`",
        ),
        Code(
            "keyword-markdown",
            WARNING,
            "a keyword that Markdown reads differently",
            '`root_cause_keywords: [__init__]` (Markdown reads it as bold "init")',
            '`root_cause_keywords: [["__init__", init]]`',
        ),
        Code(
            "unknown-verdict",
            ERROR,
            "a case verdict the verifier never gives (not in the `verdicts:` list)",
            "`allowed_verdicts: [pass]` (verdicts as `trace-fields` lists them)",
            "`allowed_verdicts: [PASS]`",
        ),
        Code(
            "undeclared-tool",
            ERROR,
            "a tool name in a case that the suite's `tools:` list does not declare",
            "`required_tools: [mysql_slowlog]` with `tools: [mysql_slow_log]`",
            "`required_tools: [mysql_slow_log]`",
        ),
        Code(
            "tool-glob",
            ERROR,
            "a glob where the check compares tool names exactly (it could never match)",
            "`required_tools: [mysql_*]`",
            "`required_tools: [mysql_slow_log, mysql_explain]` (globs suit `tool_order`)",
        ),
        Code(
            "tool-never-called",
            WARNING,
            "a tool name in a case that no readable trace ever calls (no `tools:` declared)",
            "`required_tools: [mysql_slowlog]` when the traces call `mysql_slow_log`",
            "`required_tools: [mysql_slow_log]`, or declare `tools:`",
            when="--fixtures",
        ),
        Code(
            "query-matches-nothing",
            WARNING,
            "a spec's query matches nothing in any trace lint read: a negative check on it"
            " always passes",
            "`query: $.finalAnswr` with `contains-none`",
            "`query: $.finalAnswer`, or `allow_empty: true` when no match is expected",
            when="--fixtures",
        ),
        Code(
            "item-key-missing",
            WARNING,
            "an item-key parameter (`key`, `name_key`, `args_key`) names a key no matched item"
            " holds in any trace lint read",
            "`name_key: function.name` on calls `{name, arguments}`",
            "`name_key: name`",
            when="--fixtures",
        ),
        Code(
            "count-or-share",
            WARNING,
            'a whole number that counts list entries where a share was likely meant ("at least'
            ' 1 of 3", or a `%` comment)',
            "`min_keyword_coverage: 1  # 100%` with 3 keywords",
            '`min_keyword_coverage: 3`, `1.0` or `"100%"`',
        ),
        Code(
            "ignore-matches-nothing",
            WARNING,
            "a call entry's `ignore` entry that matches no argument of the calls the traces hold",
            "`ignore: [reqest_id]` when the calls have `request_id`",
            "`ignore: [request_id]`",
            when="--fixtures",
        ),
        Code(
            "view-unread",
            WARNING,
            "a view adapter met content of a kind checks read that it could not read in the"
            " traces (one problem per adapter, at the first such trace)",
            "Anthropic `tool_use` content parts read by `openai-messages`",
            "name the adapter that reads the shape (`traces.view`), or check `$.view.unread`",
            when="--fixtures",
        ),
        Code(
            "id-mismatch",
            WARNING,
            "the case id differs from the file name",
            "`id: checkout-slow` in `slow.yaml`",
            "rename the file `checkout-slow.yaml`",
        ),
        Code(
            "duplicate-case-id",
            ERROR,
            "two case files use one id",
            "two files with `id: db-slow` (both named)",
            "give each case its own id",
        ),
        Code(
            "duplicate-spec-id",
            ERROR,
            "two spec files in one folder use one id",
            "two specs with the same id in one folder",
            "give each spec its own id",
        ),
        Code(
            "unknown-check",
            ERROR,
            "checks or severity_overrides names a check the case does not apply",
            "`checks: [verdict-alowed]`, `severity_overrides: {keyword-coverag: warning}`",
            "`checks: [verdict-allowed]`, or pass your spec folder with `--specs`",
        ),
        Code(
            "missing-input",
            ERROR,
            "checks names a spec whose input (when_input) the case does not set",
            "`checks: [agent-max-tool-calls]` without `max_tool_calls:`",
            "`max_tool_calls: 8`, or remove the check from `checks`",
        ),
        Code(
            "no-effective-checks",
            WARNING,
            "every check of a case may be skipped, so its runs could pass unexamined",
            "`packs: [agent]` and a case that sets none of the agent inputs",
            "set an input such as `required_tools: [search]` (or run with `--fail-on vacuous`)",
        ),
        Code(
            "unknown-predicate",
            ERROR,
            "a predicate that is not in the registry",
            "`predicate: exist`",
            "`predicate: exists`",
        ),
        Code(
            "unknown-parameter",
            ERROR,
            "a parameter the predicate does not take",
            "`contains-min` with `minimum: 2`",
            "`min: 2`",
        ),
        Code(
            "missing-parameter",
            ERROR,
            "a required parameter of the predicate is missing",
            "`predicate: in` without `params`",
            "`params: {values: [PASS]}`",
        ),
        Code(
            "bad-parameter",
            ERROR,
            "a parameter value of the wrong type",
            "`count` with `min: one`",
            "`min: 1`",
        ),
        Code(
            "bad-regex",
            ERROR,
            "a regular expression parameter that does not compile, or that the linear-time"
            " engine cannot run with Python's meaning",
            "`regex: '^(\\w+)-\\1$'` (a backreference)",
            "`regex: '^\\w+-\\w+$'`",
        ),
        Code(
            "bad-matcher",
            ERROR,
            "an argument matcher of call-matches written wrongly (unknown operator, empty"
            " matcher, an operand of the wrong type, an invalid JSON Schema)",
            "`args: {command: {contians: rm}}`",
            "`args: {command: {contains: rm}}`",
        ),
        Code(
            "default-never-applies",
            WARNING,
            "a call entry's `defaults` names an argument that `args` fixes to another value,"
            " so the default never makes a call match",
            "`args: {page: 2}, defaults: {page: 1}`",
            "`args: {page: {in: [1, 2]}}`, or drop the default",
        ),
        Code(
            "bad-binding",
            ERROR,
            "a bound parameter ({case: ...} or {trace: ...}) written wrongly",
            "`keywords: {case: x, trace: $.y}`",
            "one source: `keywords: {case: root_cause_keywords}`",
        ),
        Code(
            "unknown-case-field",
            ERROR,
            "a parameter bound to a case key that cases do not have",
            "`items: {case: required_tool}`",
            "`items: {case: required_tools}`",
        ),
        Code(
            "bad-jsonpath",
            ERROR,
            "a JSONPath that does not compile",
            "`query: $.toolInvocations[*.toolName`",
            "`query: $.toolInvocations[*].toolName`",
        ),
        Code(
            "unknown-view-field",
            ERROR,
            "a $.view query names a field the normalized view does not have",
            "`query: $.view.tool_call[*].name`",
            "`query: $.view.tool_calls[*].name`",
        ),
        Code(
            "spec-shape",
            ERROR,
            "a spec whose parts do not fit together",
            "`query`/`predicate` and `clauses` in one spec",
            "one or the other",
            also_warning=True,
        ),
        Code(
            "missing-trace-fields",
            ERROR,
            "no usable trace-fields spec",
            "no usable `trace-fields` spec",
            "restore `specs/trace-fields.yaml` (or reinstall)",
        ),
        Code(
            "no-checks",
            ERROR,
            "a case that applies no check (it would pass every trace)",
            "`packs: []` in validator.yaml and a case without `checks:`",
            "`checks: [my-check]` in the case, or in validator.yaml",
        ),
        Code(
            "config-path",
            ERROR,
            "a path in the suite config (validator.yaml) that does not exist",
            "`fixtures: fixturs`",
            "`fixtures: fixtures` (relative to the config file's folder)",
        ),
        Code(
            "bad-template",
            ERROR,
            "a template (`traces.case_id`, a `target:` text, a spec's `message`) that cannot be"
            " read",
            '`case_id: "{file_stem-{$.id}"`',
            '`case_id: "{file_stem}-{$.id}"`',
        ),
        Code(
            "unknown-placeholder",
            ERROR,
            "a template names a placeholder that is not one: a `target:` text naming no case"
            " key, or a spec's `message` naming one its predicate does not give",
            '`body: {q: "{qestion}"}`; `message: the answer lacks {mising}`',
            '`body: {q: "{question}"}`; `message: the answer lacks {missing}`',
        ),
        Code(
            "target-shape",
            ERROR,
            "a `target:` with both url and command, neither, or a key its kind does not use",
            "`command: [...]` with `headers:`",
            "`url:` with `headers:`, or `command:` alone",
        ),
        Code(
            "tls-unverified",
            WARNING,
            "a `target:` that does not check the agent's TLS certificate",
            "`verify: false`",
            "remove it once the agent has a valid certificate",
        ),
        Code(
            "no-fixture",
            WARNING,
            "a case without a saved trace",
            "case `redis-memory` without `fixtures/redis-memory.json`",
            "save its trace there",
            when="--fixtures",
        ),
        Code(
            "orphan-fixture",
            WARNING,
            "a saved trace that matches no case",
            "`fixtures/redis-memroy.json`",
            "rename it after its case id",
            when="--fixtures",
        ),
        Code(
            "split-matches-a-list",
            ERROR,
            "traces.split matches one list of traces, read as a single trace",
            "`split: $.simulations`",
            "`split: $.simulations[*]`",
            when="--fixtures",
            also_warning=True,
        ),
        Code(
            "ambiguous-fixture",
            WARNING,
            "a case with both a single trace file and a folder of runs",
            "both `fixtures/x.json` and `fixtures/x/`",
            "keep one",
            when="--fixtures",
        ),
        Code(
            "full-width-syntax",
            ERROR,
            "full-width punctuation where YAML syntax was meant",
            "`id：mysql-slow`, `－ mysql_explain` (a Chinese input method)",
            "`id: mysql-slow`, `- mysql_explain` (ASCII, then a space)",
        ),
        Code(
            "keyword-looks-like-list",
            ERROR,
            "one entry that reads as several (a list written inside one entry)",
            "`- rebalance storm, consumer lag, offset reset`",
            "`[rebalance storm, consumer lag, offset reset]` (one entry each)",
        ),
        Code(
            "typographic-quotes",
            ERROR,
            "a value wrapped in typographic quotes, which YAML keeps as part of it",
            "`- “payments-consumer”`",
            '`- payments-consumer` (or ASCII quotes: `"payments-consumer"`)',
        ),
        Code(
            "comment-in-value",
            ERROR,
            "a value emptied or cut short by ' #' (YAML reads the rest as a comment): an error"
            " where a check reads the value, a warning where none does",
            "`order_id: #W5362037`, `question: why did build #42 fail?`",
            '`order_id: "#W5362037"`, `question: "why did build #42 fail?"`',
            also_warning=True,
        ),
        Code(
            "bad-input",
            ERROR,
            "a spec input with a name a case key cannot have, or a default that does not fit",
            "`inputs: {Max-Turns: {type: integer}}`",
            "`inputs: {max_turns: {type: integer, minimum: 1, default: 20}}`",
            also_warning=True,
        ),
        Code(
            "input-conflict",
            ERROR,
            "two specs declare one case key with different schemas",
            "`max_turns: {type: integer}` in one spec, `{type: string}` in another",
            "one schema for the key, or two names",
        ),
        Code(
            "fixture-outside",
            WARNING,
            "a case's trace folder is a link to a folder outside the fixtures folder",
            "`fixtures/c1 -> /home/me/secrets`",
            "copy the traces into `fixtures/c1/`, or run with `--follow-symlinks`",
            when="--fixtures",
        ),
        Code(
            "no-case-id",
            WARNING,
            "a trace whose case id (`traces.case_id`) cannot be read",
            "`case_id: $.task_id` and a trace without `task_id`",
            "point `case_id` at the field that holds the id",
            when="--fixtures",
        ),
        Code(
            "unreadable-trace",
            WARNING,
            "a trace file that cannot be read or split into traces",
            "`split: $.simulations[*]` and a file without `simulations`",
            "fix the file, or the `split` JSONPath",
            when="--fixtures",
        ),
        Code(
            "trace-json",
            ERROR,
            "a trace file that is not valid JSON (at the character at fault)",
            '`{"caseId": "x",}` (a trailing comma)',
            '`{"caseId": "x"}`',
            when="--fixtures",
        ),
        Code(
            "trace-encoding",
            ERROR,
            "a trace file not saved as UTF-8 (UTF-16, UTF-32, Latin-1; a UTF-8 byte-order"
            " mark is a warning)",
            "a trace saved as UTF-16 by PowerShell",
            "re-save it as UTF-8",
            when="--fixtures",
            also_warning=True,
        ),
        Code(
            "trace-case-mismatch",
            ERROR,
            "a trace filed under one case by its name whose case id field names another",
            '`fixtures/redis-memory.json` holding `"caseId": "mysql-slow"`',
            "fix the trace's caseId, or move the file to the case it names",
            when="--fixtures",
        ),
        Code(
            "misnamed-trace",
            WARNING,
            "a trace whose case id names a case but whose file name does not",
            '`fixtures/run1.json` holding `"caseId": "redis-memory"`',
            "rename it `fixtures/redis-memory.json`, or `fixture: run1.json` in the case",
            when="--fixtures",
        ),
        Code(
            "spec-not-loaded",
            WARNING,
            "a spec file that run does not read",
            "`specs/more/x.yaml`",
            "move it up: spec folders are read one level deep",
        ),
        Code(
            "unknown-case",
            WARNING,
            "a quarantine entry names no case of the suite",
            "`- id: redis-memroy` in the `--quarantine` file",
            "`- id: redis-memory`, or remove the entry",
            when="run --quarantine",
        ),
        Code(
            "too-few-runs",
            WARNING,
            "a case asks for more passing runs than it has runs",
            "`min_passes: 8` with 3 traces in `fixtures/<id>/`",
            "save more runs, or lower `min_passes`",
            when="run",
        ),
        Code(
            "out-of-range",
            ERROR,
            "a number outside its allowed bounds",
            "`min_keyword_coverage: -1`",
            "a value within the bounds the message names",
        ),
        Code(
            "schema",
            ERROR,
            "any other way a file breaks its schema",
            "a value the schema rejects for another reason",
            "as the message says",
        ),
    )
}


def severity_allowed(code: str, severity: str) -> bool:
    entry = CODES.get(code)
    if entry is None:
        return False
    return severity == entry.severity or (entry.also_warning and severity == WARNING)


def markdown_table() -> str:
    """The README's table of problem codes."""
    lines = ["| code | what is wrong | bad | fixed |", "|---|---|---|---|"]
    for entry in CODES.values():
        flags = ", ".join(f for f in ("w" if entry.severity == WARNING else "", entry.when) if f)
        if entry.also_warning:
            flags = "w in some cases"
        name = f"`{entry.code}`" + (f" ({flags})" if flags else "")
        lines.append(f"| {name} | {entry.title} | {entry.bad} | {entry.fixed} |")
    return "\n".join(lines) + "\n"

"""Problem codes: A case file's keys and values, and the rules across cases."""

from __future__ import annotations

from .code import ERROR, WARNING, Code

__all__ = [
    "BAD_ID",
    "BAD_VALUE",
    "BLANK_KEYWORD",
    "COUNT_OR_SHARE",
    "COVERAGE_RANGE",
    "COVERAGE_TOO_HIGH",
    "DUPLICATE_CASE_ID",
    "DUPLICATE_ENTRY",
    "EMPTY_LIST",
    "EMPTY_VALUE",
    "ID_MISMATCH",
    "KEYWORD_CONFLICT",
    "KEYWORD_MARKDOWN",
    "MISSING_INPUT",
    "MISSING_KEY",
    "NO_CHECKS",
    "NO_EFFECTIVE_CHECKS",
    "OUT_OF_RANGE",
    "SCHEMA",
    "TOOL_GLOB",
    "UNDECLARED_TOOL",
    "UNKNOWN_CHECK",
    "UNKNOWN_KEY",
    "UNKNOWN_VERDICT",
    "VERDICT_CONFLICT",
    "WRONG_TYPE",
]

UNKNOWN_KEY = Code(
    "unknown-key",
    ERROR,
    "a key the format does not have",
    "`required_tool: [x]`",
    "`required_tools: [x]`",
)

MISSING_KEY = Code(
    "missing-key",
    ERROR,
    "a required key is missing",
    "no `question:` line",
    "`question: Why is checkout slow?`",
)

WRONG_TYPE = Code(
    "wrong-type",
    ERROR,
    "a value of the wrong type",
    "`required_tools: mysql_explain`",
    "`required_tools: [mysql_explain]`",
)

EMPTY_LIST = Code(
    "empty-list",
    ERROR,
    "a list that must have entries is empty",
    "`allowed_verdicts: []`",
    "`allowed_verdicts: [PASS]`",
)

EMPTY_VALUE = Code(
    "empty-value",
    ERROR,
    "a text that must not be empty is empty",
    '`question: ""`',
    "`question: Why is checkout slow?`",
)

BLANK_KEYWORD = Code(
    "blank-keyword",
    ERROR,
    "a keyword that is empty once spaces and invisible characters are removed",
    '`forbidden_keywords: [" "]` (only spaces or invisible characters; also in a spec\'s `keywords`)',
    "write the word, or remove the entry",
)

BAD_ID = Code(
    "bad-id",
    ERROR,
    "an id with characters ids may not use",
    "`id: ../Checkout Slow`",
    "`id: checkout-slow`",
)

BAD_VALUE = Code(
    "bad-value",
    ERROR,
    "a value that is not one of the allowed ones",
    "`report_as: evidence_coverag`",
    "`report_as: evidence_coverage`",
)

COVERAGE_RANGE = Code(
    "coverage-range",
    ERROR,
    "min_keyword_coverage is neither a count nor a share in (0, 1]",
    "`min_keyword_coverage: 1.5` (or `0`, or `2.0`)",
    "`min_keyword_coverage: 0.75` (a share) or `2` (a count)",
)

COVERAGE_TOO_HIGH = Code(
    "coverage-too-high",
    ERROR,
    "min_keyword_coverage (or min_answer_keywords) asks for more entries than there are",
    "`min_keyword_coverage: 3` with 2 keyword entries",
    "`min_keyword_coverage: 2`",
)

VERDICT_CONFLICT = Code(
    "verdict-conflict",
    WARNING,
    "a verdict is both allowed and forbidden",
    "`allowed_verdicts: [PASS, REVISE]`, `forbidden_verdicts: [REVISE]`",
    "remove `REVISE` from one list (forbidden wins)",
)

KEYWORD_CONFLICT = Code(
    "keyword-conflict",
    WARNING,
    "a forbidden keyword is (part of) a root-cause keyword",
    "root cause `restart the pool`, forbidden `restart`",
    "a more specific forbidden keyword",
)

DUPLICATE_ENTRY = Code(
    "duplicate-entry",
    WARNING,
    "a list names the same entry twice",
    "`tags: [a, b, a]`",
    "`tags: [a, b]`",
)

KEYWORD_MARKDOWN = Code(
    "keyword-markdown",
    WARNING,
    "a keyword that Markdown reads differently",
    '`root_cause_keywords: [__init__]` (Markdown reads it as bold "init")',
    '`root_cause_keywords: [["__init__", init]]`',
)

UNKNOWN_VERDICT = Code(
    "unknown-verdict",
    ERROR,
    "a case verdict the verifier never gives (not in the `verdicts:` list)",
    "`allowed_verdicts: [pass]` (verdicts as `trace-fields` lists them)",
    "`allowed_verdicts: [PASS]`",
)

UNDECLARED_TOOL = Code(
    "undeclared-tool",
    ERROR,
    "a tool name in a case that the suite's `tools:` list does not declare",
    "`required_tools: [mysql_slowlog]` with `tools: [mysql_slow_log]`",
    "`required_tools: [mysql_slow_log]`",
)

TOOL_GLOB = Code(
    "tool-glob",
    ERROR,
    "a glob where the check compares tool names exactly (it could never match)",
    "`required_tools: [mysql_*]`",
    "`required_tools: [mysql_slow_log, mysql_explain]` (globs suit `tool_order`)",
)

COUNT_OR_SHARE = Code(
    "count-or-share",
    WARNING,
    'a whole number that counts list entries where a share was likely meant ("at least'
    ' 1 of 3", or a `%` comment)',
    "`min_keyword_coverage: 1  # 100%` with 3 keywords",
    '`min_keyword_coverage: 3`, `1.0` or `"100%"`',
)

ID_MISMATCH = Code(
    "id-mismatch",
    WARNING,
    "the case id differs from the file name",
    "`id: checkout-slow` in `slow.yaml`",
    "rename the file `checkout-slow.yaml`",
)

DUPLICATE_CASE_ID = Code(
    "duplicate-case-id",
    ERROR,
    "two case files use one id",
    "two files with `id: db-slow` (both named)",
    "give each case its own id",
)

UNKNOWN_CHECK = Code(
    "unknown-check",
    ERROR,
    "checks or severity_overrides names a check the case does not apply",
    "`checks: [verdict-alowed]`, `severity_overrides: {keyword-coverag: warning}`",
    "`checks: [verdict-allowed]`, or pass your spec folder with `--specs`",
)

MISSING_INPUT = Code(
    "missing-input",
    ERROR,
    "checks names a spec whose input (when_input) the case does not set",
    "`checks: [agent-max-tool-calls]` without `max_tool_calls:`",
    "`max_tool_calls: 8`, or remove the check from `checks`",
)

NO_EFFECTIVE_CHECKS = Code(
    "no-effective-checks",
    WARNING,
    "every check of a case may be skipped, so its runs could pass unexamined",
    "`packs: [agent]` and a case that sets none of the agent inputs",
    "set an input such as `required_tools: [search]` (or run with `--fail-on vacuous`)",
)

NO_CHECKS = Code(
    "no-checks",
    ERROR,
    "a case that applies no check (it would pass every trace)",
    "`packs: []` in validator.yaml and a case without `checks:`",
    "`checks: [my-check]` in the case, or in validator.yaml",
)


OUT_OF_RANGE = Code(
    "out-of-range",
    ERROR,
    "a number outside its allowed bounds",
    "`min_keyword_coverage: -1`",
    "a value within the bounds the message names",
)

SCHEMA = Code(
    "schema",
    ERROR,
    "any other way a file breaks its schema",
    "a value the schema rejects for another reason",
    "as the message says",
)

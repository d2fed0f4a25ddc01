"""Problem codes: The file itself: encoding, size, YAML syntax, and the authoring slips found at the character."""

from __future__ import annotations

from .code import ERROR, Code

__all__ = [
    "COMMENT_IN_VALUE",
    "DUPLICATE_KEY",
    "EMPTY_FILE",
    "FILE_TOO_LARGE",
    "FULL_WIDTH_SYNTAX",
    "KEYWORD_LOOKS_LIKE_LIST",
    "NOT_A_MAPPING",
    "NOT_UTF8",
    "TYPOGRAPHIC_QUOTES",
    "UNREADABLE",
    "YAML_SYNTAX",
    "YAML_TAG",
    "YAML_TOO_DEEP",
    "YAML_TOO_LARGE",
    "YAML_UNSUPPORTED",
]

YAML_SYNTAX = Code(
    "yaml-syntax",
    ERROR,
    "the file is not valid YAML",
    "`root_cause_keywords: [pool, exhausted`",
    "`root_cause_keywords: [pool, exhausted]`",
)

EMPTY_FILE = Code(
    "empty-file",
    ERROR,
    "the file holds no YAML mapping",
    "a file holding only comments",
    "write the case's keys",
)

NOT_A_MAPPING = Code(
    "not-a-mapping",
    ERROR,
    "the file holds a list or a single value, not 'key: value' lines",
    "`- id: x`",
    "`id: x`",
)

NOT_UTF8 = Code(
    "not-utf8", ERROR, "the file is not UTF-8 text", "a file saved as Latin-1", "save it as UTF-8"
)

DUPLICATE_KEY = Code(
    "duplicate-key",
    ERROR,
    "a key is written twice in one mapping",
    "`question:` written twice",
    "keep one",
)

YAML_TAG = Code(
    "yaml-tag",
    ERROR,
    "a YAML tag (!!python/..., !custom) is used",
    "`question: !!python/object/apply:os.system [...]`",
    "`question: plain text`",
)

YAML_UNSUPPORTED = Code(
    "yaml-unsupported",
    ERROR,
    "a YAML feature these files do not use (merge keys, complex keys)",
    "`<<: *base` (merge key)",
    "write the entries out",
)

YAML_TOO_LARGE = Code(
    "yaml-too-large",
    ERROR,
    "anchors and aliases expand to too many values",
    "anchors and aliases expanding past 20,000 values",
    "write the values plainly",
)

YAML_TOO_DEEP = Code(
    "yaml-too-deep",
    ERROR,
    "values are nested too deeply",
    "values nested more than 100 levels",
    "flatten the file",
)

FILE_TOO_LARGE = Code(
    "file-too-large",
    ERROR,
    "the file is larger than a case or spec file can be",
    "a case file over 4 MiB",
    "use the right file",
)

UNREADABLE = Code(
    "unreadable",
    ERROR,
    "the file cannot be read",
    "no permission to read the file",
    "fix its permissions",
)

FULL_WIDTH_SYNTAX = Code(
    "full-width-syntax",
    ERROR,
    "full-width punctuation where YAML syntax was meant",
    "`id：mysql-slow`, `－ mysql_explain` (a Chinese input method)",
    "`id: mysql-slow`, `- mysql_explain` (ASCII, then a space)",
)

KEYWORD_LOOKS_LIKE_LIST = Code(
    "keyword-looks-like-list",
    ERROR,
    "one entry that reads as several (a list written inside one entry)",
    "`- rebalance storm, consumer lag, offset reset`",
    "`[rebalance storm, consumer lag, offset reset]` (one entry each)",
)

TYPOGRAPHIC_QUOTES = Code(
    "typographic-quotes",
    ERROR,
    "a value wrapped in typographic quotes, which YAML keeps as part of it",
    "`- “payments-consumer”`",
    '`- payments-consumer` (or ASCII quotes: `"payments-consumer"`)',
)

COMMENT_IN_VALUE = Code(
    "comment-in-value",
    ERROR,
    "a value emptied or cut short by ' #' (YAML reads the rest as a comment): an error"
    " where a check reads the value, a warning where none does",
    "`order_id: #W5362037`, `question: why did build #42 fail?`",
    '`order_id: "#W5362037"`, `question: "why did build #42 fail?"`',
    also_warning=True,
)

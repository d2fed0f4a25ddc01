"""A deterministic benchmark corpus: realistic diagnosis cases and ~20 KB saved traces.

Two shapes (see `bench/run.py`):

- ``cases``: N cases, one trace each, ``FIXTURES/<id>.json``;
- ``runs``: 50 cases with N/50 traces each, ``FIXTURES/<id>/run-NNNN.json``.

Everything is derived from one seed with `random.Random`, so the same arguments always
write the same bytes. About one trace in six fails a check, in every way the standard set
can fail (missing tool, missing keywords, forbidden advice, wrong or missing verdict, a
REJECT without marker or leaking the executor's draft), and the answers exercise the text
normalization (Markdown emphasis, code, escapes, soft line breaks, Chinese, full-width
letters).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Scenario:
    slug: str
    question: str
    tools: tuple[str, ...]  # evidence tools; the first ones are the typical required ones
    keywords: tuple[tuple[str, ...], ...]  # root-cause keyword entries (synonym groups)
    forbidden: tuple[str, ...]
    cause: str  # one English sentence naming the root cause
    fix: tuple[str, ...]
    zh: bool = False


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "mysql-slow-query",
        "Why did the order API slow down at 14:00 today?",
        ("mysql_slow_log", "mysql_explain", "metrics_query", "log_search"),
        (
            ("slow query", "慢查询"),
            ("full table scan", "全表扫描"),
            ("missing index", "no index"),
            ("customer_ref",),
        ),
        ("restart mysql", "drop table", "flush tables"),
        "the new customer_ref filter runs a slow query doing a full table scan because of a missing index",
        ("Add an index on `orders(customer_ref, created_at)`", "Watch p99 of `/api/orders`"),
    ),
    Scenario(
        "redis-memory-eviction",
        "Why is the cache hit rate dropping and latency rising on the session service?",
        ("redis_info", "metrics_query", "redis_memory_doctor", "log_search"),
        (
            ("maxmemory",),
            ("eviction", "evicted_keys", "驱逐"),
            ("allkeys-lru",),
            ("big keys", "bigkey", "大key"),
        ),
        ("flushall", "disable persistence"),
        "Redis reached maxmemory and the allkeys-lru eviction policy is evicting session keys, made worse by big keys",
        ("Raise `maxmemory` to 12gb", "Split the big keys under `session:*`"),
    ),
    Scenario(
        "milvus-collection-not-loaded",
        "Why does vector search return 'collection not loaded' errors?",
        ("milvus_describe_collection", "log_search", "k8s_events", "metrics_query"),
        (("collection not loaded", "未加载"), ("load_collection", "load()"), ("querynode",)),
        ("drop collection", "recreate the collection"),
        "the collection was released after the querynode restart and load_collection was never called again, so it is collection not loaded",
        ("Call `collection.load()` after deploys", "Alert on querynode restarts"),
    ),
    Scenario(
        "connection-pool-exhausted",
        'Why are checkout requests timing out with "Connection is not available"?',
        ("metrics_query", "log_search", "thread_dump", "apm_trace"),
        (
            ("connection pool", "连接池"),
            ("exhausted", "耗尽"),
            ("maximumPoolSize",),
            ("transaction", "事务"),
        ),
        ("increase maximumPoolSize to 1000",),
        "the HikariCP connection pool is exhausted: a slow payment call holds a connection inside the transaction, beyond maximumPoolSize",
        ("Move the payment call out of the transaction", "Set a connection timeout"),
    ),
    Scenario(
        "binlog-disk-full",
        "订单库为什么在凌晨变成只读？",
        ("metrics_query", "mysql_variables", "disk_usage", "log_search"),
        (
            ("磁盘已满", "disk full", "磁盘满"),
            ("binlog_expire_logs_seconds",),
            ("binlog", "二进制日志"),
        ),
        ("rm -rf /var/lib/mysql", "RESET MASTER"),
        "数据盘被 binlog 二进制日志写满（磁盘已满），因为 binlog_expire_logs_seconds 为 0",
        (
            "设置 `binlog_expire_logs_seconds = 604800`",
            "执行 `PURGE BINARY LOGS BEFORE NOW() - INTERVAL 3 DAY`",
        ),
        zh=True,
    ),
    Scenario(
        "kafka-consumer-lag",
        "Why are order events arriving minutes late in the analytics pipeline?",
        ("kafka_consumer_groups", "metrics_query", "log_search", "k8s_events"),
        (("consumer lag", "消费延迟"), ("rebalance", "rebalancing"), ("max.poll.interval.ms",)),
        ("delete the consumer group", "reset offsets to latest"),
        "the consumer group keeps rebalancing because processing exceeds max.poll.interval.ms, so consumer lag grows",
        ("Lower `max.poll.records` to 100", "Raise `max.poll.interval.ms` to 600000"),
    ),
    Scenario(
        "k8s-oomkilled",
        "为什么报表服务的 Pod 每隔几小时就重启一次？",
        ("k8s_events", "metrics_query", "log_search", "heap_dump"),
        (("OOMKilled", "内存溢出"), ("memory limit", "内存限制"), ("内存泄漏", "memory leak")),
        ("kubectl delete namespace", "关闭 OOM killer"),
        "Pod 因 OOMKilled 被重启：报表缓存存在内存泄漏，超过了 memory limit（内存限制）",
        ("修复 `ReportCache` 的内存泄漏", "把内存限制调整为 `2Gi` 并加告警"),
        zh=True,
    ),
    Scenario(
        "tls-certificate-expired",
        "Why do partner API calls fail with handshake errors since midnight?",
        ("tls_probe", "log_search", "cert_inventory", "metrics_query"),
        (("certificate expired", "证书过期"), ("cert-manager",), ("handshake",)),
        ("disable TLS verification", "verify=False"),
        "the partner gateway certificate expired at midnight because cert-manager failed to renew it, so every handshake fails",
        ("Renew the certificate with `cert-manager renew`", "Alert 14 days before expiry"),
    ),
)

DEFAULT_MARKERS_EN = ("unverified", "could not be verified", "not verified", "cannot confirm")
DEFAULT_MARKERS_ZH = ("未经验证", "无法确认")
FILLER_TOOLS = (
    "log_search",
    "metrics_query",
    "k8s_events",
    "config_diff",
    "deploy_history",
    "apm_trace",
    "dns_lookup",
    "alert_history",
)


@dataclass(frozen=True)
class CaseSpec:
    id: str
    scenario: Scenario
    keywords: tuple[tuple[str, ...], ...]
    min_coverage: int | float | None
    required_tools: tuple[str, ...]
    allowed: tuple[str, ...]
    forbidden_verdicts: tuple[str, ...]
    forbidden: tuple[str, ...]
    reject: bool
    markers: tuple[str, ...] | None


def make_cases(count: int, seed: int) -> list[CaseSpec]:
    rng = random.Random(f"cases:{seed}")
    out = []
    for i in range(count):
        sc = SCENARIOS[i % len(SCENARIOS)]
        reject = rng.random() < 0.12
        keywords = tuple(sc.keywords[: rng.randint(max(2, len(sc.keywords) - 1), len(sc.keywords))])
        choice = rng.random()
        if choice < 0.4:
            minimum: int | float | None = None
        elif choice < 0.7:
            minimum = rng.randint(1, len(keywords))
        else:
            minimum = rng.choice((0.5, 0.6, 0.7, 0.75, 1.0))
        required = tuple(sc.tools[: rng.randint(1, 3)]) if rng.random() < 0.9 else ()
        if reject:
            allowed: tuple[str, ...] = ("REJECT",)
        else:
            allowed = ("PASS",) if rng.random() < 0.7 else ("PASS", "REVISE")
        # A forbidden verdict is one the verifier gives (lint refuses any other): REVISE,
        # when it is not allowed.
        forbid = rng.random() < 0.2 and "REVISE" not in allowed
        forbidden_verdicts = ("REVISE",) if forbid else ()
        markers = None
        if reject and rng.random() < 0.3:
            markers = ("未经验证", "无法确认") if sc.zh else ("unverified", "not confirmed")
        out.append(
            CaseSpec(
                f"{sc.slug}-{i:05d}",
                sc,
                keywords,
                minimum,
                required,
                allowed,
                forbidden_verdicts,
                sc.forbidden[: rng.randint(1, len(sc.forbidden))],
                reject,
                markers,
            )
        )
    return out


def _y(text: str) -> str:
    """A YAML flow scalar: plain when obviously safe, else a JSON (= YAML) quoted string."""
    safe = all(c.isalnum() or c in " _-./" or ord(c) > 0x2E80 for c in text)
    if (
        safe
        and text[:1].isalpha()
        and text.strip() == text
        and text.lower() not in {"yes", "no", "true", "false", "null", "on", "off"}
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def _flow(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(_y(x) for x in items) + "]"


def case_yaml(case: CaseSpec) -> str:
    sc = case.scenario
    lines = [
        "# yaml-language-server: $schema=../validator/schemas/case.schema.json",
        f"id: {case.id}",
        f"question: {json.dumps(sc.question, ensure_ascii=False)}",
        "description: >",
        f"  Generated benchmark case for the {sc.slug.replace('-', ' ')} scenario; the answer must",
        "  name the root cause and cite the evidence tools.",
        f"tags: [{sc.slug.split('-')[0]}, bench{', zh' if sc.zh else ''}{', reject' if case.reject else ''}]",
        "root_cause_keywords:",
    ]
    for group in case.keywords:
        lines.append(f"  - {_y(group[0]) if len(group) == 1 else _flow(group)}")
    if case.min_coverage is not None:
        lines.append(f"min_keyword_coverage: {case.min_coverage}")
    lines.append(f"required_tools: {_flow(case.required_tools)}")
    lines.append(f"allowed_verdicts: {_flow(case.allowed)}")
    if case.forbidden_verdicts:
        lines.append(f"forbidden_verdicts: {_flow(case.forbidden_verdicts)}")
    lines.append("forbidden_keywords:")
    lines.extend(f"  - {_y(k)}" for k in case.forbidden)
    if case.markers:
        lines.append(f"degraded_markers: {_flow(case.markers)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Traces

FAILURES = ("missing_tool", "missing_keywords", "forbidden", "bad_verdict", "no_verdict")
REJECT_FAILURES = ("leak", "no_marker")


def _log_output(rng: random.Random, tool: str, size: int) -> str:
    services = ("orders-api", "checkout", "session-svc", "report-worker", "gateway", "search")
    levels = ("INFO", "INFO", "INFO", "WARN", "ERROR")
    lines = []
    total = 0
    while total < size:
        h, m, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
        svc = rng.choice(services)
        line = (
            f"{h:02d}:{m:02d}:{s:02d}.{rng.randint(0, 999):03d} {rng.choice(levels)} {svc}"
            f" [{tool}] req={rng.getrandbits(40):010x} latency_ms={rng.randint(3, 4200)}"
            f" rows={rng.randint(0, 2_500_000)} status={rng.choice((200, 200, 200, 499, 503))}"
        )
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def _mention(rng: random.Random, keyword: str) -> str:
    """A keyword as an answer might write it: emphasis, code, escapes, upper case..."""
    style = rng.randint(0, 5)
    if style == 0:
        return f"**{keyword}**"
    if style == 1 and "`" not in keyword:
        return f"`{keyword}`"
    if style == 2:
        return keyword.replace("_", "\\_")
    if style == 3 and keyword.isascii():
        return keyword.upper()
    if style == 4 and " " in keyword:
        return keyword.replace(" ", "\n", 1)  # a soft line break inside the keyword
    return keyword


def _answer(rng: random.Random, case: CaseSpec, keywords: list[str], forbidden: str | None) -> str:
    sc = case.scenario
    heading = "## 根因" if sc.zh else "## Root cause"
    parts = [heading, ""]
    lead = f"{sc.cause}." if not sc.zh else f"{sc.cause}。"
    parts.append(lead if keywords else "The cause is not yet clear; more evidence is needed.")
    if keywords:
        mentions = ", ".join(_mention(rng, k) for k in keywords)
        parts.append(("证据指向：" if sc.zh else "The evidence points to: ") + mentions + ".")
    parts += ["", "## 证据" if sc.zh else "## Evidence", ""]
    for tool in case.required_tools or sc.tools[:2]:
        parts.append(
            f"- `{tool}`: {rng.choice(('confirms the timeline', 'shows the spike at 14:00', 'matches the deploy', '与告警时间一致'))}"
        )
    parts += ["", "## 修复" if sc.zh else "## Fix", ""]
    steps = sc.fix if keywords else ("Collect more evidence", "Re-run the diagnosis")
    parts += [f"{i}. {step}" for i, step in enumerate(steps, start=1)]
    if forbidden:
        parts.append(f"{len(steps) + 1}. If nothing else helps: {forbidden}.")
    parts += [
        "",
        "```sql",
        "SELECT table_name, data_length FROM information_schema.tables ORDER BY 2 DESC LIMIT 5;",
        "```",
        "",
        f"Dashboards: [latency](https://grafana.example/d/{sc.slug}) and [runbook](https://wiki.example/runbooks/{sc.slug}).",
    ]
    filler = (
        "Timeline: the alert fired at 14:02, the on-call acknowledged at 14:05, and the graphs"
        " below were captured during the incident window. "
    )
    parts += ["", filler * rng.randint(3, 6)]
    return "\n".join(parts)


def make_trace(case: CaseSpec, run: int, seed: int) -> tuple[dict[str, Any], str]:
    """One saved trace for `case`, and the failure mode it was built with ('ok' or why)."""
    rng = random.Random(f"trace:{seed}:{case.id}:{run}")
    sc = case.scenario
    mode = "ok"
    if rng.random() < 0.18:
        modes = REJECT_FAILURES if case.reject else FAILURES
        if not case.required_tools:  # no tool to leave out
            modes = tuple(m for m in modes if m != "missing_tool")
        mode = rng.choice(modes)
    tools = list(case.required_tools)
    fillers = FILLER_TOOLS + sc.tools[3:]
    if mode == "missing_tool" and tools:
        dropped = tools.pop(rng.randrange(len(tools)))
        fillers = tuple(t for t in fillers if t != dropped)  # it must not come back as filler
    while len(tools) < 12:
        tools.append(rng.choice(fillers))
    rng.shuffle(tools)
    invocations = [
        {
            "toolName": tool,
            "arguments": {"query": f"{sc.slug} {tool}", "since": "13:45", "limit": 200},
            "status": "success" if rng.random() < 0.95 else "error",
            "durationMs": rng.randint(20, 900),
            "output": _log_output(rng, tool, rng.randint(1100, 1500)),
        }
        for tool in tools
    ]
    all_keywords = [rng.choice(group) for group in case.keywords]
    keywords = all_keywords
    if mode == "missing_keywords":
        keywords = all_keywords[:0]
    forbidden = rng.choice(case.forbidden) if mode == "forbidden" else None
    executor = (
        f"{sc.cause}. The executor concluded this from {', '.join(tools[:3])} after comparing the"
        f" incident window with the previous day; the fix is: {sc.fix[0]}."
    )
    if case.reject:
        verdict: str | None = "REJECT"
        marker = (case.markers or (DEFAULT_MARKERS_ZH if sc.zh else DEFAULT_MARKERS_EN))[0]
        final = [
            "## Diagnosis status"
            if mode == "no_marker"
            else "## 诊断未通过验证"
            if sc.zh
            else "## Diagnosis not verified",
            "",
            (
                f"The verifier rejected the draft explanation, so the cause is **{marker}**."
                if mode != "no_marker"
                else "The verifier had concerns about the draft explanation."
            ),
            "",
            "What is known: the worker exited at 01:59; evidence is inconclusive.",
        ]
        if mode == "leak":
            final += ["", "Draft for reference: " + executor]
        final += ["", "Next steps: check the memory limit and kernel logs for 01:59."]
        final_answer = "\n".join(final)
    else:
        verdict = rng.choice(case.allowed)
        if mode == "bad_verdict":
            verdict = (
                case.forbidden_verdicts[0]
                if case.forbidden_verdicts
                else "REVISE"
                if "REVISE" not in case.allowed
                else "FAIL"
            )
        if mode == "no_verdict":
            verdict = None
        final_answer = _answer(rng, case, keywords, forbidden)
    evaluation: dict[str, Any] = {
        "reason": "The evidence supports the claim; the timing matches the deploy.",
        "trace_summaries": [
            {"tool": t, "summary": f"{t} output reviewed: consistent with the claim"}
            for t in tools[:3]
        ],
    }
    if verdict is not None:
        evaluation["verdict"] = verdict
    trace = {
        "caseId": case.id,
        "question": sc.question,
        "toolInvocations": invocations,
        "executorAnswer": executor,
        "selfEvaluation": {"verifier_evaluation": evaluation},
        "finalAnswer": final_answer,
        "durationMs": rng.randint(3000, 60000),
    }
    return trace, mode


def write_corpus(root: Path, shape: str, n: int, seed: int) -> tuple[Path, Path, int]:
    """Write cases/ and fixtures/ under `root`; return (cases, fixtures, number of traces)."""
    cases_dir, fixtures = root / "cases", root / "fixtures"
    cases_dir.mkdir(parents=True)
    fixtures.mkdir()
    if shape == "cases":
        cases, runs = make_cases(n, seed), 1
    else:
        cases, runs = make_cases(50, seed), max(1, n // 50)
    count = 0
    for case in cases:
        (cases_dir / f"{case.id}.yaml").write_text(case_yaml(case), "utf-8")
        folder = fixtures
        if runs > 1:
            folder = fixtures / case.id
            folder.mkdir()
        for r in range(runs):
            trace, _ = make_trace(case, r, seed)
            name = f"{case.id}.json" if runs == 1 else f"run-{r:04d}.json"
            (folder / name).write_text(json.dumps(trace, ensure_ascii=False, indent=1), "utf-8")
            count += 1
    return cases_dir, fixtures, count


def write_jsonl(root: Path, cases: int, runs: int, seed: int) -> tuple[Path, Path, int]:
    """`cases` cases and one JSON Lines file holding `runs` traces of each (run-major order,
    as an export over time would list them: every case's first run, then every second...);
    return (cases folder, the .jsonl file, number of traces)."""
    cases_dir = root / "cases"
    cases_dir.mkdir(parents=True)
    made = make_cases(cases, seed)
    for case in made:
        (cases_dir / f"{case.id}.yaml").write_text(case_yaml(case), "utf-8")
    path = root / "traces.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for r in range(runs):
            for case in made:
                trace, _ = make_trace(case, r, seed)
                out.write(json.dumps(trace, ensure_ascii=False) + "\n")
    return cases_dir, path, cases * runs


def read_traces(root: Path) -> list[tuple[str, str, Any]]:
    """(case id, file name, parsed trace) of every trace of a corpus `write_corpus` wrote at
    `root`, by case."""
    fixtures = root / "fixtures"
    out = []
    for path in sorted(fixtures.rglob("*.json")):
        case_id = path.stem if path.parent == fixtures else path.parent.name
        out.append((case_id, path.name, json.loads(path.read_bytes())))
    return sorted(out, key=lambda t: t[0])

"""Capture: ask a live agent (the suite config's `target:`) for one trace per case and run.

- `transport`: one request (HTTP, with retries, backoff, Retry-After, a rate, size and time
  limits) or one command run, giving the answer's bytes or a reason; secrets redacted.
- `runs`: which runs a capture does (where each trace goes, which are saved already), the
  request of each run (its templates filled in) and the trace taken out of an answer.

`commands/capture.py` puts them together: the worker threads, atomic writes, the log.
"""

"""Every process the tool starts: started here, given work here, taken back here, ended here.

Two shapes of parallel work, one set of rules:

* :func:`ordered_map` -- a stream of batches (the traces of a run) evaluated by long-lived
  worker processes (a :class:`Pool`) while this process evaluates too, whenever it would
  otherwise wait; results come back in the order of the batches.
* :func:`map_in_processes` -- one pass over a few parts, each but the first in a forked
  child that sends its result back (case loading; report writing, whose children write
  their files).

The rules every child follows, whichever shape: it is forked while SIGINT and SIGTERM are
held (a signal between the fork and recording the child would lose it); its first act is
:func:`become_child` (it ignores Ctrl-C, which reaches the whole group, and dies with this
process); a child that dies costs time, never a result: its work is done again (in a new
worker, or here) and only a batch that killed two workers becomes errors, through the
caller's `given_up`; :func:`stop_all` kills whatever is still running (the command line's
last word on SIGTERM). Nothing of the package is imported here but the signal holding, so
loading, evaluation and report writing may all use this module.

One concept over 600 lines: the lifecycle of child processes. The pool, its dispatch window
and the one-pass map share the fork discipline, the death accounting and the parent-death
rule; split apart, the next reader would have to hold those rules across files again.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import field
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

from .dataclass import dataclass
from .signals import signals_held

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

_Part = TypeVar("_Part")
_Out = TypeVar("_Out")


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, which containers and `taskset`
    narrow), not the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------------------------
# Every child's first act


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
ORPHANED = 70  # the exit code of a child whose parent died (nobody reads it: any will do)


def become_child(parent: int) -> None:
    """The first thing a forked child of the run does (a worker, a loading process, a
    report writer): Ctrl-C reaches the whole process group, so it ignores SIGINT (the
    parent decides, and ends its children); SIGTERM ends it at once; both are unblocked
    (they were held while forking). On Linux the kernel kills it when the parent dies
    (PR_SET_PDEATHSIG), even in the middle of its work, so no child outlives the run
    holding a CI step's output open; a parent already gone ends it here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if sys.platform.startswith("linux"):
        import ctypes

        with suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the above took effect
        os._exit(ORPHANED)


def can_fork() -> bool:
    """Whether children may be forked now: the system has fork, and this process runs no
    other thread (a lock another thread holds would be inherited held, for good)."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


# --------------------------------------------------------------------------------------------
# A stream of batches, in worker processes and here


@dataclass(frozen=True)
class Workers:
    """What the worker processes of an :func:`ordered_map` do, and how their deaths read.

    `make(*args)` runs in each worker and returns its function from a batch to that batch's
    results (`make` and `args` are pickled where there is no fork); `describe(batch)` names
    a batch in a note ("a.json .. b.json"), and `given_up(batch, causes)` gives the results
    of a batch whose workers died on it RETRIES + 1 times. `warm(item)`, when given, is
    what this process does with the first item before any fork, in place of doing it (see
    `ordered_map`): for items that are much work each, a part of one is enough to warm."""

    make: Callable[..., Callable[[list[Any]], list[Any]]]
    args: tuple[Any, ...]
    describe: Callable[[list[Any]], str]
    given_up: Callable[[list[Any], list[str]], list[Any]]
    noun: str = "traces"
    fate: str = "are reported as errors"  # what becomes of a batch given up, for the note
    warm: Callable[[Any], None] | None = None


# Batches a worker holds at a time: the one it evaluates and the next, so that it never waits
# for this process (busy with a batch of its own) to send more.
DEPTH = 2

# How many times a batch is evaluated again after the worker evaluating it died.
RETRIES = 1

# Batches in flight per process: the bound on how far reading runs ahead of the results.
WINDOW_PER_PROCESS = 4


def ordered_map(
    here: Callable[[list[_Part]], list[_Out]],
    batches: Iterable[list[_Part]],
    count: int,
    workers: Workers,
    progress: Callable[[int], None] | None,
    notify: Callable[[str], None],
) -> Iterator[_Out]:
    """Every batch's results, in order: `here` in this process, and up to `count` - 1 worker
    processes doing what `workers` says. The first item is done here before any fork (or,
    with `workers.warm`, warmed by it): what it imports and builds on first use is then
    inherited, not done twice. `progress` gets the number of results so far; `notify` one
    line per worker that died or could not start."""
    pool = Pool(workers, notify)
    finished = False
    try:
        window = _Window(here, pool, iter(batches), progress)
        window.warm(workers.warm)
        window.limit = (pool.start(count - 1) + 1) * WINDOW_PER_PROCESS
        yield from window.results()
        finished = True
    finally:
        # Stopped early (an exception, SIGTERM, a consumer that stops reading): the workers'
        # results are of no use, so they are killed rather than waited for.
        pool.close(kill=not finished)


@dataclass(eq=False)
class Task(Generic[_Part]):
    """A batch in flight."""

    seq: int  # its place in the order of the batches
    items: list[_Part]
    results: list[Any] | None = None
    remote: bool = False  # held by a worker process; else done here when its turn comes
    deaths: list[str] = field(default_factory=list)  # how each worker doing it died


class _Window:
    """The batches in flight, oldest first, and who does them.

    Balancing is dynamic: each worker is kept holding DEPTH batches (the one it does and the
    next, so it never waits for this process), and this process, which also collects
    results and makes the report, does a batch only when it would otherwise wait: the
    oldest batch no worker holds, or, when no more can be read (the input is all read, or
    the window is full), one a worker holds but has not begun (see `Pool.take_back`), so
    no process idles long at the end."""

    def __init__(
        self,
        here: Callable[[list[Any]], list[Any]],
        pool: Pool,
        source: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> None:
        self.tasks: deque[Task[Any]] = deque()
        self.here = here
        self.pool = pool
        self.source: Iterator[list[Any]] | None = source  # None once it is exhausted
        self.progress = progress
        self.limit = WINDOW_PER_PROCESS
        self.seq = 0
        self.done = 0

    def _add(self, items: list[Any]) -> Task[Any]:
        task = Task(self.seq, items)
        self.seq += 1
        self.tasks.append(task)
        return task

    def warm(self, warming: Callable[[Any], None] | None = None) -> None:
        """Do the first item here, as a batch of its own (batch bounds must change nothing
        in the results); the rest of its batch is the next one. With `warming`, that is
        given the first item instead, and its batch goes out as it is."""
        batch = next(self.source, None) if self.source is not None else None
        if not batch:
            self.source = None
            return
        if warming is not None:
            warming(batch[0])
            self._add(batch)
            return
        self._do(self._add(batch[:1]))
        if batch[1:]:
            self._add(batch[1:])

    def _fill(self) -> None:
        while self.source is not None and len(self.tasks) < self.limit:
            batch = next(self.source, None)
            if batch is None:
                self.source = None
            else:
                self._add(batch)

    def _do(self, task: Task[Any]) -> None:
        task.results = self.here(task.items)
        task.remote = False

    def results(self) -> Iterator[Any]:
        """Every batch's results, in order."""
        while True:
            self._fill()
            self.pool.feed(t for t in self.tasks if t.results is None and not t.remote)
            while self.tasks and self.tasks[0].results is not None:
                yield from self._pop()
            if not self.tasks and self.source is None:
                return
            if self.tasks:
                self._step()

    def _step(self) -> None:
        """One thing to do while the oldest batch is not done: take in results that have
        come, else do a batch here, else wait for a worker."""
        if self.pool.slots and self.pool.wait(timeout=0):
            return
        mine = next((t for t in self.tasks if t.results is None and not t.remote), None)
        if mine is None and (self.source is None or len(self.tasks) >= self.limit):
            mine = self.pool.take_back()  # nothing more to read, or not yet
        if mine is not None:
            self._do(mine)
        else:
            self.pool.wait()

    def _pop(self) -> list[Any]:
        head = self.tasks.popleft()
        assert head.results is not None
        self.done += len(head.results)
        if self.progress:
            self.progress(self.done)
        return head.results


@dataclass(eq=False)
class _Slot:
    """One worker process: batches go out on `tasks`, results come back on `results`, both in
    the order the batches were sent. `running` (shared memory) holds the `seq` of the batch
    it is doing, -1 between batches: written by the worker before and after each, so it is
    still right when the worker is killed, whatever its results pipe had sent by then."""

    process: BaseProcess
    tasks: Connection
    results: Connection
    running: Any  # multiprocessing.sharedctypes.RawValue("q")
    # The seq of a batch this process took back (see `Pool.take_back`): the worker skips
    # it, answering None, unless it had begun it.
    skip: Any
    # The seq of the last batch the worker began (never reset, unlike `running`): a batch
    # it has done and left looks like one not begun by `running` alone, until its results
    # arrive here.
    begun: Any
    # A lock (multiprocessing) held while the worker begins a batch (sets `running` and
    # `begun`, reads `skip`) and while this process takes one back (sets `skip`, reads
    # `begun`): so that one of the two always sees the other's write.
    claim: Any
    held: deque[Task[Any]] = field(default_factory=deque)

    def stop(self, kill: bool) -> str:
        """End the process (`kill`: at once, else once it has read the stop message) and
        say how it ended."""
        if kill:
            self.process.kill()
        self.process.join(_JOIN_SECONDS)
        cause = _cause(self.process.exitcode)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()
        for end in (self.tasks, self.results):
            end.close()
        return cause


# Long enough for a worker told to stop (or killed) to exit, short enough not to hang a run.
_JOIN_SECONDS = 5.0

# Pools not yet closed, for `stop_all`.
_LIVE: set[Pool] = set()


def stop_all() -> None:
    """Kill every worker process still running. A run's own cleanup does it when its
    generator is closed; this is for an exception raised between two of its results.
    (A `map_in_processes` call ends its children itself, on any exception.)"""
    for pool in list(_LIVE):
        pool.close(kill=True)


class Pool:
    """Worker processes, each a `_Slot`, each doing the batches sent to it in order.

    Unlike concurrent.futures' pool, where one death fails every pending future, a worker's
    death is precisely attributed: `_Slot.running` names the batch it was doing. That batch
    is sent again, to a worker started in its place (or, if none can be started, to
    another, or done here); when a batch has seen RETRIES + 1 workers die doing it, its
    results are `Workers.given_up`. The other batches it held are simply sent again (not
    those this process took back and did: see `take_back`). A worker that dies between
    batches is replaced as long as `spares` lasts (one per worker asked for), so a worker
    that cannot even start is not restarted for ever. Workers are forked from this process
    while it runs no other thread (no lock of another thread can be inherited held), and
    they die with it (see `become_child`)."""

    def __init__(self, workers: Workers, notify: Callable[[str], None]):
        import multiprocessing

        self.fork = "fork" in multiprocessing.get_all_start_methods()
        self.context: Any = multiprocessing.get_context("fork" if self.fork else "spawn")
        self.workers = workers
        self.notify = notify
        self.slots: list[_Slot] = []
        self.spares = 0
        _LIVE.add(self)

    def start(self, count: int) -> int:
        """Start up to `count` workers; fewer (with a note) when the system refuses more."""
        self.spares = count
        for _ in range(count):
            error = self._start_one()
            if error:
                self.notify(
                    f"note: could start only {len(self.slots)} of {count} worker processes"
                    f" ({error}); continuing with {_processes(len(self.slots) + 1)}"
                )
                break
        return len(self.slots)

    def _start_one(self) -> str | None:
        """Fork one worker, first in `slots` (so a batch sent again prefers it); None, or why
        it could not be started."""
        ends: list[Connection] = []
        try:
            tasks_in, tasks = self.context.Pipe(duplex=False)
            ends += (tasks_in, tasks)
            results, results_out = self.context.Pipe(duplex=False)
            ends += (results, results_out)
            _widen(tasks, results)
            running = self.context.RawValue("q", -1)
            skip = self.context.RawValue("q", -1)
            begun = self.context.RawValue("q", -1)
            claim = self.context.Lock()
            # A forked child inherits the parent's ends of the other workers' pipes: it
            # closes them (a spawned one gets nothing it was not given).
            inherited = [e for s in self.slots for e in (s.tasks, s.results)] if self.fork else []
            process = self.context.Process(
                target=_serve,
                args=(
                    tasks_in,
                    results_out,
                    [*inherited, tasks, results],
                    (running, skip, begun, claim),
                    self.workers.make,
                    self.workers.args,
                ),
                kwargs={"parent": os.getpid()},
                daemon=True,  # multiprocessing's exit handler kills any left
            )
            # A signal while forking would leave a child this process does not know about.
            with signals_held():
                process.start()
                self.slots.insert(0, _Slot(process, tasks, results, running, skip, begun, claim))
        except OSError as exc:  # EAGAIN, ENOMEM, EMFILE: a process or file limit, no memory
            for end in ends:
                end.close()
            return exc.strerror or str(exc)
        tasks_in.close()  # the child's ends: with these closed here, its death is an EOF
        results_out.close()
        return None

    def assign(self, task: Task[Any]) -> None:
        """Send `task` to the worker holding the fewest; if none is left, it is this
        process's to do."""
        while self.slots:
            slot = min(self.slots, key=lambda s: len(s.held))
            if self._send(slot, task):
                return
        task.remote = False

    def _send(self, slot: _Slot, task: Task[Any]) -> bool:
        try:
            slot.tasks.send((task.seq, task.items))
        except OSError:  # the worker died since its last results
            self._lost(slot)
            return False
        slot.held.append(task)
        task.remote = True
        return True

    def feed(self, tasks: Iterable[Task[Any]]) -> None:
        """Send batches, oldest first, to every worker holding fewer than DEPTH."""
        for task in tasks:
            hungry = [s for s in self.slots if len(s.held) < DEPTH]
            if not hungry:
                return
            while hungry and not self._send(min(hungry, key=lambda s: len(s.held)), task):
                hungry = [s for s in self.slots if len(s.held) < DEPTH]

    def take_back(self) -> Task[Any] | None:
        """A batch some worker holds but has not begun (the last sent), for this process to
        do instead; the worker is told to skip it. Never a batch a worker died on: it may
        kill whoever does it."""
        for slot in self.slots:
            if any(t.results is not None for t in slot.held):  # one taken back already
                continue
            held = list(slot.held)  # in the order the worker does them
            for at in range(len(held) - 1, 0, -1):  # the first is begun, or about to be
                task = held[at]
                if task.deaths:
                    continue
                # Not held for long by a live worker; one killed holding it keeps its
                # batches (they are sent again when its death is noticed).
                if not slot.claim.acquire(timeout=_CLAIM_SECONDS):
                    break
                try:
                    slot.skip.value = task.seq
                    # It began this batch or one after it (so this one is done) meanwhile.
                    begun = slot.begun.value in {t.seq for t in held[at:]}
                finally:
                    slot.claim.release()
                if begun:
                    return None
                task.remote = False
                return task
        return None

    def wait(self, timeout: float | None = None) -> bool:
        """Take in what workers sent (or notice that one died): block until there is
        something, or at most `timeout` seconds. True when there was."""
        from multiprocessing.connection import wait

        assert self.slots, "a batch is held by a worker, so one is alive"
        ends = [end for s in self.slots for end in (s.results, s.process.sentinel)]
        ready = set(wait(ends, timeout))
        for slot in [s for s in self.slots if {s.results, s.process.sentinel} & ready]:
            if slot in self.slots:  # not found dead meanwhile, sending it another's batch
                self._collect(slot)
        return bool(ready)

    def _collect(self, slot: _Slot) -> None:
        try:
            while slot.results.poll():
                seq, results = slot.results.recv()
                task = slot.held.popleft()
                assert task.seq == seq, "a worker answers its batches in the order sent"
                if task.results is None:  # else this process took it back and did it
                    task.results = results  # None: skipped, so this process's to do
                    task.remote = False
        except Exception:  # EOF, or a message cut short: the worker died sending it
            self._lost(slot)
            return
        if not slot.process.is_alive():
            self._lost(slot)

    def _lost(self, slot: _Slot) -> None:
        """A worker died: blame the batch it was doing, send the others again."""
        self.slots.remove(slot)
        cause = slot.stop(kill=True)
        held = [t for t in slot.held if t.results is None]  # not those taken back
        slot.held.clear()
        blamed = next((t for t in held if t.seq == slot.running.value), None)
        if blamed is not None:
            held.remove(blamed)
            if self._blame(blamed, cause):
                held.insert(0, blamed)  # first, so that it goes to the new worker
        elif held and self.spares > 0:
            self.spares -= 1
            self._replace(cause)
        else:
            self.notify(
                f"note: a worker process died between chunks ({cause}); continuing with"
                f" {_processes(len(self.slots) + 1)}"
            )
        for task in held:
            self.assign(task)

    def _blame(self, task: Task[Any], cause: str) -> bool:
        """Count a death against `task`; True when it is to be done again."""
        task.deaths.append(cause)
        self._replace(cause)
        what, noun = self.workers.describe(task.items), self.workers.noun
        if len(task.deaths) > RETRIES:
            self.notify(
                f"note: a worker process died again ({cause}) evaluating {what}:"
                f" those {len(task.items)} {noun} {self.workers.fate}"
            )
            task.results = self.workers.given_up(task.items, task.deaths)
            task.remote = False
            return False
        self.notify(
            f"note: a worker process died ({cause}) evaluating {what}:"
            " they are evaluated again in a new one"
        )
        return True

    def _replace(self, cause: str) -> None:
        error = self._start_one()
        if error:
            self.notify(
                f"note: cannot start a worker process in place of one that died ({cause}):"
                f" {error}; continuing with {_processes(len(self.slots) + 1)}"
            )

    def close(self, kill: bool) -> None:
        """Stop every worker: told to stop and waited for, or (`kill`) killed."""
        if not kill:
            for slot in self.slots:
                with suppress(OSError):
                    slot.tasks.send(None)
        for slot in self.slots:
            slot.stop(kill)
        self.slots.clear()
        _LIVE.discard(self)


# A batch of JSON Lines jobs carries its lines (32 x 20 KB): in a pipe of the default 64 KB,
# this process would wait on each send until the worker, busy evaluating, had read it piece
# by piece (its reader thread gets the GIL once per switch interval, 5 ms): at 10,000 traces
# that was half of this process's time. Linux lets a pipe hold up to 1 MiB unprivileged.
PIPE_BYTES = 1 << 20


def _widen(*ends: Connection) -> None:
    """Make each pipe hold PIPE_BYTES, where the system allows it (else it stays as it is)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if setsize is None:  # pragma: no cover
        return
    for end in ends:
        with suppress(OSError):
            fcntl.fcntl(end.fileno(), setsize, PIPE_BYTES)


def _processes(count: int) -> str:
    return f"{count} process" if count == 1 else f"{count} processes"


def _cause(exitcode: int | None) -> str:
    """How a worker process ended, for a note and a result's reason."""
    if exitcode is None:
        return "it stopped answering"
    if exitcode > 0:
        return f"exit code {exitcode}"
    if exitcode == 0:
        return "it exited without a word"
    number = -exitcode
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"killed by signal {number}"
    oom = ": out of memory?" if number == getattr(signal, "SIGKILL", None) else ""
    return f"killed by signal {number}, {name}{oom}"


_CLAIM_SECONDS = 1.0  # how long taking a batch back waits for a worker beginning one
_PARENT_POLL_SECONDS = 0.25  # elsewhere than Linux, how soon a worker notices its parent died


def _serve(
    tasks: Connection,
    results: Connection,
    inherited: list[Connection],
    shared: tuple[Any, Any, Any, Any],
    make: Callable[..., Callable[[list[Any]], list[Any]]],
    args: tuple[Any, ...],
    *,
    parent: int,
) -> None:
    """A worker process's life: batches in, results out, until told to stop.

    A reader thread takes batches off the pipe as they come and a sender thread sends the
    results, so neither side ever waits on a full pipe while the other does too."""
    import queue
    import threading

    for end in inherited:  # the parent's ends of other workers' pipes, copied by the fork
        end.close()
    become_child(parent)  # signals held while forking (see Pool._start_one)
    work = make(*args)
    inbox: queue.SimpleQueue[tuple[int, list[Any]] | None] = queue.SimpleQueue()
    outbox: queue.SimpleQueue[tuple[int, list[Any] | None] | None] = queue.SimpleQueue()
    threading.Thread(target=_receive, args=(tasks, inbox, parent), daemon=True).start()
    sender = threading.Thread(target=_send_all, args=(results, outbox), daemon=True)
    sender.start()
    running, skip, begun, claim = shared  # see _Slot
    while (task := inbox.get()) is not None:
        with claim:  # the parent sets `skip` and reads `begun` holding it: never both do it
            running.value = begun.value = task[0]
            skipped = skip.value == task[0]
        out = None if skipped else work(task[1])
        running.value = -1
        outbox.put((task[0], out))
    outbox.put(None)
    sender.join()


def _receive(tasks: Connection, inbox: Any, parent: int) -> None:
    try:
        while True:
            while not tasks.poll(_PARENT_POLL_SECONDS):
                if os.getppid() != parent:
                    os._exit(ORPHANED)
            task = tasks.recv()
            inbox.put(task)
            if task is None:
                return
    except (EOFError, OSError):  # the parent closed its end: it is gone, or ending the run
        os._exit(ORPHANED)


def _send_all(results: Connection, outbox: Any) -> None:
    while (item := outbox.get()) is not None:
        try:
            results.send(item)
        except OSError:  # the parent is gone
            os._exit(ORPHANED)


# --------------------------------------------------------------------------------------------
# One pass of work over a few parts, in forked children (case loading, report writing)


def map_in_processes(work: Callable[[_Part], _Out], parts: list[_Part]) -> list[_Out]:
    """`[work(part) for part in parts]`, the first part in this process and each other in a
    forked one (`work` needs no pickling: the children are copies of this process; its
    result is pickled back).

    A part whose process fails in any way (an exception in `work`, a crash, the
    out-of-memory killer) is done again here, so an error is raised from here exactly as
    without the children; results are always in the order of `parts`. Where forking is
    not safe (no fork, or another thread running: see `can_fork`) everything is done
    here. An exception here (or Ctrl-C) kills every child before it is raised."""
    if len(parts) < 2 or not can_fork():
        return [work(part) for part in parts]
    children: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
    try:
        for part in parts[1:]:
            try:
                _fork_part(work, part, children)
            except OSError:  # a process limit, no memory: the rest is done here
                break
        forked = len(children)
        out = [work(parts[0])]
        for i, part in enumerate(parts[1:]):
            if i >= forked:
                out.append(work(part))
                continue
            pid, end = children[0]
            data = _read_all(end)
            with signals_held():  # reaped and forgotten together: its pid is free from now on
                _, status = os.waitpid(pid, 0)
                os.close(end)
                children.pop(0)
            got = _unpickled(data) if os.waitstatus_to_exitcode(status) == 0 else None
            out.append(got[0] if got else work(part))
        return out
    finally:  # an error here (or Ctrl-C): no child outlives the call
        for pid, end in children:
            with suppress(OSError):
                os.close(end)
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with suppress(OSError):
                os.waitpid(pid, 0)


def _fork_part(work: Callable[[_Part], _Out], part: _Part, children: list[tuple[int, int]]) -> None:
    """Fork a child doing `part`, recorded in `children` as (pid, read end of its pipe)."""
    read_end, write_end = os.pipe()
    parent = os.getpid()
    try:
        with signals_held():  # a signal between the fork and recording the child would lose it
            pid = os.fork()
            if pid == 0:
                _child(work, part, read_end, write_end, parent)
            children.append((pid, read_end))
            os.close(write_end)
    except OSError:
        os.close(read_end)
        os.close(write_end)
        raise


def _child(
    work: Callable[[_Part], _Out], part: _Part, read_end: int, write_end: int, parent: int
) -> NoReturn:
    """A forked child: its answer on the pipe, or nothing (the parent then does the part
    itself), and out without the parent's cleanup (atexit, reports, temporary files)."""
    import pickle

    code = 1
    try:
        os.close(read_end)
        become_child(parent)
        data = pickle.dumps(work(part), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        code = 0
    finally:
        os._exit(code)


def _read_all(end: int) -> bytes:
    chunks = []
    with suppress(OSError):
        while block := os.read(end, 1 << 20):
            chunks.append(block)
    return b"".join(chunks)


def _unpickled(data: bytes) -> tuple[Any] | None:
    """A child's result, or None when it sent nothing whole."""
    import pickle

    try:
        return (pickle.loads(data),)
    except Exception:  # empty, or cut short
        return None

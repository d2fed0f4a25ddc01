"""The commands: `run` and `lint` orchestrate loading, evaluation and reporting.

Each returns its exit code; `cli.py` maps errors to exit codes and prints them. When the
process ends right after the command (`python -m validator`, with os._exit), a command leaves
its objects to that end (`keep_to_exit`) rather than freeing or collecting them itself.
"""

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

# The objects of a command that only the end of the process frees: a list when the process
# ends right after the command (`python -m validator` ends with os._exit), else None (the
# library, the tests: the command's objects are freed as it returns). Freeing the objects
# of a 2,000-case run one by one takes 25-45 ms that os._exit does without.
KEPT_TO_EXIT: list[object] | None = None


def ends_after_command() -> bool:
    """Whether the process ends right after the command (then KEPT_TO_EXIT is a list)."""
    return KEPT_TO_EXIT is not None


def keep_to_exit(*objects: object) -> None:
    """Leave `objects` to the end of the process when it ends right after the command."""
    if KEPT_TO_EXIT is not None:
        KEPT_TO_EXIT.extend(objects)

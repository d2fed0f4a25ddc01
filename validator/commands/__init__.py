"""The commands: `run` and `lint` orchestrate loading, evaluation and reporting.

Each returns its exit code; `cli.py` maps errors to exit codes and prints them.
"""

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

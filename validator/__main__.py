"""`python -m validator`: see validator.cli."""

from .cli import main

raise SystemExit(main())

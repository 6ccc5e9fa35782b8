"""`python -m uxhost` is the `uxhost` command."""

from .cli import main

raise SystemExit(main())

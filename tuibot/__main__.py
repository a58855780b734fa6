"""``python -m tuibot``: the same entry point as the ``tuibot`` script."""

from tuibot.cli import main

raise SystemExit(main())

"""tuibot's subcommands: one module each, wired into the CLI by tuibot.cli."""

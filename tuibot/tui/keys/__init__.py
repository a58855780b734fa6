"""Key bindings: ids and their checks, and the command palette's commands."""

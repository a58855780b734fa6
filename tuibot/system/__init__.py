"""What tuibot needs from the machine: folders, secrets, logs, the instance lock."""

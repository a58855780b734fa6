"""The one-shot and headless front ends (the app is ``tuibot.tui``)."""

"""The full-screen Textual app: the only part of tuibot that imports Textual.

The engine stays headless; :mod:`tuibot.tui.bridge` is the one seam where its events
become Textual messages.
"""

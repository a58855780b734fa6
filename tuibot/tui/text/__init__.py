"""How things read on screen, as plain text and state, without widgets.

Request texts, bars and ages, delegation tree lines, chat rows and ``@path`` completion.
"""

"""The app's behaviour, one mixin of ``TuibotApp`` per concern.

Chats, sharing, copying, approval decisions, models, the work panes, scheduled work,
start-up (building the engine), the app's start and quit, server health, the working
indicator, the side pane and looks.
"""

"""MCP servers as tool sources, through the official ``mcp`` client (stdio and HTTP).

``manager`` starts the configured servers in the background and puts their tools into
the one tool registry as ``NAME__tool``; ``connection`` keeps one server connected
(restarts, faults, calls); ``tools`` turns an MCP tool into a ``ToolSpec`` and its
results into text; ``cache`` keeps each server's last tool list so start-up never waits.
The ``mcp`` package is imported only by ``connection``, and only once a server starts.
"""

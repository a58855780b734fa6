"""A small MCP server (the SDK's own MCPServer) whose tools answer with audio.

Run as ``python mcp_audio_server.py`` (stdio). ``sound`` returns a line of text and a WAV
clip as ``AudioContent``; ``static`` returns bytes that claim to be WAV and are text.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Audio
from mcp.types import ToolAnnotations

WAV = (  # a RIFF/WAVE header (8 kHz, mono, 8 bit) and eight samples of silence
    b"RIFF" + (36 + 8).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
    + bytes.fromhex("0100 0100 401f0000 401f0000 0100 0800") + b"data"
    + (8).to_bytes(4, "little") + b"\x80" * 8
)  # fmt: skip

server = MCPServer("sounds")
READ_ONLY = ToolAnnotations(readOnlyHint=True)


@server.tool(annotations=READ_ONLY)
def sound() -> list[str | Audio]:
    """A short voice note, after a line of text."""
    return ["the recording:", Audio(data=WAV, format="wav")]


@server.tool(annotations=READ_ONLY)
def static() -> Audio:
    """Bytes that claim to be WAV and are text."""
    return Audio(data=b"not a sound, just words", format="wav")


if __name__ == "__main__":
    server.run()

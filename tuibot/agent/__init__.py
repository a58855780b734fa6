"""The agent loop: stream an answer, run the tools it asks for, repeat until it answers."""

"""Modal screens: help, grants, confirmations and text prompts."""

"""code-intel: an MCP server that walks coding agents through explore -> verify -> plan -> implement -> review."""

__version__ = "0.1.0"

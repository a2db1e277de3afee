"""Client hooks (Claude Code, Codex): `code-intel hook pre-tool-use` and `code-intel hook session-start`.

They run as short processes on every matching client event, so everything under this package
uses the standard library and the light parts of code-intel only (the write rules, the checkpoint
reader, the lock): no mcp, pydantic, chromadb, torch or tree-sitter. docs/hooks.md says what they do.
"""

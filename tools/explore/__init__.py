"""Exploration adapters (ripgrep, ctags, tree-sitter, globbing) and what is built on them (impact, write rules)."""

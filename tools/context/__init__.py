"""Project rules (CLAUDE.md -> context.yml), document-research resources."""

"""Semantic index: AST chunker, embeddings, Chroma Forest/Map store, incremental sync, hybrid retrieval."""

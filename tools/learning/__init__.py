"""Decision and outcome logs, Map agreements."""

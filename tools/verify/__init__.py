"""Server-run verification: the project's own check commands, run by the server at POST_IMPL_VERIFY."""

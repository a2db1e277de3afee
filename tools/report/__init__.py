"""The session report: what one session did, gathered from its history, checkpoint, decision log and git
(`facts`), drawn as one self-contained HTML page (`page`) and written where `code-intel report` and the
server put it (`output`)."""

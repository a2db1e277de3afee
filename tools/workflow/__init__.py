"""The server-enforced workflow: phases, payloads, contract, tasks, valves, checkpoints. No MCP, no direct I/O to git."""

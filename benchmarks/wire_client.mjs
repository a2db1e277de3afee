// The calls of benchmarks/wire.py through the TypeScript MCP SDK's client, the library Claude Code is built on.
//
//     node benchmarks/wire_client.mjs SDK_FOLDER < plan.json
//
// SDK_FOLDER is an installed @modelcontextprotocol/sdk package (wire.py passes the one under
// .cache/clients/node_modules). The plan on stdin is one JSON object:
//     {"runs": N, "sessions": [{"command": ..., "args": [...], "cwd": ...,
//       "calls": [{"label": ..., "name": tool, "arguments": {...}, "touch": absolute path or null}, ...]}, ...]}
// The first session is code-intel's server; the others are servers that list no tools (wire.py's canned
// servers), run one after the other in this same process. For each session the script spawns the server
// with StdioClientTransport (no env given: the SDK's default environment, as the Python client's),
// connects and lists the tools once. The client then holds a compiled validator for each tool's
// outputSchema and checks every structuredContent against it, as Claude Code's client does; a later
// session is handed the first session's listing after its own, so the same answers meet the same
// validators. It times 2 x N empty round trips (resources/list), and for each call warms up twice, then
// times N calls to client.callTool, touching the file first when the plan says so (a fresh parse). Each
// session ends with its first call checked against a deliberately wrong schema, to show that the
// validation really runs.
// Output, one JSON object on stdout (milliseconds, medians):
//     {"sdk": version, "sessions": [{"ping": ms, "wrong_schema": the error the client raised for the wrong
//      schema, or null if it accepted the answer, "calls": {label: {"e2e": ms, "validated": bool,
//      "text_bytes": n, "matches": n or null, "total_matches": n or null,
//      "structured": the last answer's structuredContent}}}, ...]}
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const sdkFolder = process.argv[2];
if (!sdkFolder) {
  process.stderr.write("usage: node wire_client.mjs SDK_FOLDER < plan.json\n");
  process.exit(2);
}
const load = (file) => import(pathToFileURL(join(sdkFolder, "dist", "esm", file)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const sdkVersion = JSON.parse(readFileSync(join(sdkFolder, "package.json"), "utf8")).version;

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const touch = (path) => {
  if (path) {
    const now = new Date();
    utimesSync(path, now, now);
  }
};
const options = { timeout: 120_000 };

// One server: its figures, and the tools it listed (or was handed).
async function session(spec, handed) {
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, cwd: spec.cwd });
  const client = new Client({ name: "wire-benchmark-ts", version: "0" });
  await client.connect(transport);
  let { tools } = await client.listTools();
  if (handed) {
    tools = handed;
    client.cacheToolMetadata(tools);
  }
  const out = { calls: {} };
  try {
    const pings = [];
    for (let i = 0; i < plan.runs * 2; i++) {
      const started = performance.now();
      await client.listResources();
      pings.push(performance.now() - started);
    }
    out.ping = median(pings);

    for (const call of spec.calls) {
      const params = { name: call.name, arguments: call.arguments };
      for (let i = 0; i < 2; i++) {
        touch(call.touch);
        await client.callTool(params, undefined, options);
      }
      const samples = [];
      let result;
      for (let i = 0; i < plan.runs; i++) {
        touch(call.touch);
        const started = performance.now();
        result = await client.callTool(params, undefined, options);
        samples.push(performance.now() - started);
      }
      if (result.isError) throw new Error(`${call.name} refused: ${result.content?.[0]?.text?.slice(0, 300)}`);
      const text = (result.content ?? []).filter((part) => part.type === "text").map((part) => part.text).join("");
      const answer = result.structuredContent ?? {};
      out.calls[call.label] = {
        e2e: median(samples),
        validated: client.getToolOutputValidator(call.name) !== undefined,
        text_bytes: Buffer.byteLength(text, "utf8"),
        matches: Array.isArray(answer.matches) ? answer.matches.length : null,
        total_matches: answer.total_matches ?? null,
        structured: result.structuredContent ?? null,
      };
    }

    // The first call's tool again, its schema swapped for one its answer cannot meet: callTool must throw.
    const first = spec.calls[0];
    const impossible = { type: "object", required: ["not_in_any_answer"], properties: { not_in_any_answer: { type: "string" } } };
    client.cacheToolMetadata(tools.map((tool) => (tool.name === first.name ? { ...tool, outputSchema: impossible } : tool)));
    touch(first.touch);
    out.wrong_schema = await client.callTool({ name: first.name, arguments: first.arguments }, undefined, options).then(
      () => null,
      (error) => String(error.message ?? error),
    );
  } finally {
    await client.close();
  }
  return { out, tools };
}

const sessions = [];
let listed;
for (const spec of plan.sessions) {
  const { out, tools } = await session(spec, listed);
  listed ??= tools;
  sessions.push(out);
}
process.stdout.write(JSON.stringify({ sdk: sdkVersion, sessions }) + "\n");

// The calls of benchmarks/wire.py through the TypeScript MCP SDK's client, the library Claude Code is built on.
//
//     node benchmarks/wire_client.mjs SDK_FOLDER < plan.json
//
// SDK_FOLDER is an installed @modelcontextprotocol/sdk package (wire.py passes the one under
// .cache/clients/node_modules). The plan on stdin is one JSON object:
//     {"runs": N, "sessions": [{"command": ..., "args": [...], "cwd": ...,
//       "calls": [{"label": ..., "name": tool, "arguments": {...}, "touch": absolute path or null}, ...],
//       "wrong_schema": {"name": tool, "arguments": {...}} or null}, ...]}
// The first session is code-intel's server; the others are wire.py's canned servers, which list our
// server's tools, run one after the other in this same process. For each session the script spawns the
// server with StdioClientTransport (no env given: the SDK's default environment, as the Python client's),
// connects and lists the tools once (listTools). The client then holds a compiled validator for each
// listed tool's outputSchema and checks every structuredContent against it, as Claude Code's client does.
// It makes N untimed empty round trips (resources/list), and for each call warms up twice, then times N calls
// to client.callTool, each after one timed empty round trip, touching the file first when the plan says so (a
// fresh parse). A session with a "wrong_schema" call (a canned server's tool listed with a schema no answer meets) ends with that call,
// which callTool must refuse, to show that the validation really runs. Only the client's public methods
// are used.
// Output, one JSON object on stdout (milliseconds, medians):
//     {"sdk": version, "sessions": [{"ping": ms, "wrong_schema" (only where the plan asks): the error the
//      client raised for that call, or null if it accepted the answer, "calls": {label: {"e2e": ms,
//      "validated": whether the tool's listing gave an outputSchema, "text_bytes": n, "matches": n or null,
//      "total_matches": n or null, "structured": the last answer's structuredContent}}}, ...]}
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

// One server: its figures.
async function session(spec) {
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, cwd: spec.cwd });
  const client = new Client({ name: "wire-benchmark-ts", version: "0" });
  await client.connect(transport);
  // the client compiles a validator for each listed outputSchema; callTool checks structuredContent against it
  const { tools } = await client.listTools();
  const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
  const out = { calls: {} };
  try {
    // A few untimed round trips (a server just started is still doing its start-up upkeep), then one right
    // before each timed call, so the round trip taken off is measured under the same conditions as the calls.
    const pings = [];
    const ping = async () => {
      const started = performance.now();
      await client.listResources();
      pings.push(performance.now() - started);
    };
    for (let i = 0; i < plan.runs; i++) await ping();
    pings.length = 0;

    for (const call of spec.calls) {
      const params = { name: call.name, arguments: call.arguments };
      for (let i = 0; i < 2; i++) {
        touch(call.touch);
        await client.callTool(params, undefined, options);
      }
      const samples = [];
      let result;
      for (let i = 0; i < plan.runs; i++) {
        await ping();
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
        validated: schemas.get(call.name) != null,
        text_bytes: Buffer.byteLength(text, "utf8"),
        matches: Array.isArray(answer.matches) ? answer.matches.length : null,
        total_matches: answer.total_matches ?? null,
        structured: result.structuredContent ?? null,
      };
    }

    out.ping = median(pings);

    // A tool listed with a schema its answer cannot meet: callTool must throw.
    if (spec.wrong_schema) {
      out.wrong_schema = await client.callTool(spec.wrong_schema, undefined, options).then(
        () => null,
        (error) => String(error.message ?? error),
      );
    }
  } finally {
    await client.close();
  }
  return out;
}

const sessions = [];
for (const spec of plan.sessions) sessions.push(await session(spec));
process.stdout.write(JSON.stringify({ sdk: sdkVersion, sessions }) + "\n");

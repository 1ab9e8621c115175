// The Solidity compiler (solc-js) kept loaded for fimreplay's `compiles` metric (replay/compiles.py):
// loading the compiler takes a second or more, a compilation of one file tens of milliseconds.
// Protocol: a first line {"version"}; then one JSON request per stdin line,
// {"name": source unit name, "content": text, "base": folder imports are read from or null},
// answered by one JSON line {"errors": [[type, errorCode, message], ...]} (severity "error" only).
// Only analysis is asked for (an empty outputSelection: parsing, name resolution, type checking,
// no code generation), with the standard JSON interface of the solc-js README.
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const solc = require("solc");

function importer(base) {
  const root = base ? path.resolve(base) : null;
  return (name) => {
    if (root === null) return { error: "File not found" };
    const full = path.resolve(root, name);
    if (!full.startsWith(root + path.sep)) return { error: "File outside the corpus" };
    try {
      return { contents: fs.readFileSync(full, "utf8") };
    } catch (e) {
      return { error: "File not found" };
    }
  };
}

process.stdout.write(JSON.stringify({ version: solc.version() }) + "\n");
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const req = JSON.parse(line);
  const input = { language: "Solidity", sources: { [req.name]: { content: req.content } }, settings: { outputSelection: {} } };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: importer(req.base) }));
  const errors = (out.errors || []).filter((e) => e.severity === "error").map((e) => [e.type, e.errorCode || "", e.message]);
  process.stdout.write(JSON.stringify({ errors }) + "\n");
});

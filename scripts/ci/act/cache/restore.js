"use strict";
const fs = require("fs");
const path = require("path");
const { input, store, folder, output, state } = require("./common.js");

const key = input("key");
const target = input("path");
fs.appendFileSync(path.join(process.env.ACT_STANDIN_STORE, "cache-keys.log"),
  `${process.env.GITHUB_WORKFLOW}/${process.env.GITHUB_JOB} ${key}\n`);
let hit = null;
if (fs.existsSync(folder(key))) {
  hit = key;
} else {
  const prefixes = input("restore-keys").split("\n").map((s) => s.trim()).filter(Boolean);
  const names = fs.readdirSync(store());
  for (const p of prefixes) {
    const safe = p.replace(/[^A-Za-z0-9._-]/g, "_");
    const match = names.filter((n) => n.startsWith(safe))
      .sort((a, b) => fs.statSync(path.join(store(), b)).mtimeMs - fs.statSync(path.join(store(), a)).mtimeMs);
    if (match.length) { hit = match[0]; break; }
  }
}
if (hit) {
  fs.cpSync(path.join(store(), hit.replace(/[^A-Za-z0-9._-]/g, "_")), target, { recursive: true });
  console.log(`cache (act stand-in): restored ${target} from ${hit}`);
} else {
  console.log(`cache (act stand-in): no cache for ${key}`);
}
output("cache-hit", hit === key ? "true" : "false");
state("key", key);
state("hit", hit === key ? "true" : "false");

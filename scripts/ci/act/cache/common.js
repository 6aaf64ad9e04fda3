// Shared by restore.js and save.js: the inputs, the store folder, the key's folder.
"use strict";
const fs = require("fs");
const path = require("path");

function input(name) {
  return (process.env["INPUT_" + name.replace(/ /g, "_").toUpperCase()] || "").trim();
}

function store() {
  const base = process.env.ACT_STANDIN_STORE;
  if (!base) throw new Error("cache (act stand-in): ACT_STANDIN_STORE is not set (scripts/ci/act.sh sets it)");
  const dir = path.join(process.env.ACT_CACHE_STORE || path.join(base, "cache"));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function folder(key) {
  return path.join(store(), key.replace(/[^A-Za-z0-9._-]/g, "_"));
}

function output(name, value) {
  fs.appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function state(name, value) {
  fs.appendFileSync(process.env.GITHUB_STATE, `${name}=${value}\n`);
}

module.exports = { input, store, folder, output, state };

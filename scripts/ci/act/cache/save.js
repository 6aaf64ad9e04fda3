"use strict";
const fs = require("fs");
const { input, folder } = require("./common.js");

const key = process.env.STATE_key;
const target = input("path");
if (process.env.STATE_hit === "true") {
  console.log(`cache (act stand-in): ${key} was restored exactly: not saved again`);
} else if (!fs.existsSync(target)) {
  console.log(`cache (act stand-in): ${target} does not exist: nothing saved`);
} else {
  fs.rmSync(folder(key), { recursive: true, force: true });
  fs.cpSync(target, folder(key), { recursive: true });
  console.log(`cache (act stand-in): saved ${target} as ${key}`);
}

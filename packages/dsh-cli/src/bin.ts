#!/usr/bin/env node
import { main } from "./main.js";

const controller = new AbortController();
process.once("SIGINT", () => controller.abort());
process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});

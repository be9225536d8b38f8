// One `npm start` in a clone, run as a terminal runs it (its own process group): timestamps its
// output into a log, and once it says it is running, presses Ctrl-C (SIGINT to the group) as a
// user would. Prints the seconds to running, the seconds the stop took, the CPU time (GNU time)
// and `git status`, which must stay clean. Used by first-start.sh.
//   node first-start-measure.mjs <clone> <log file>
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";

const [dir, logFile] = process.argv.slice(2);
if (!dir || !logFile) throw new Error("usage: node first-start-measure.mjs <clone> <log file>");
const t0 = process.hrtime.bigint();
const seconds = (from = t0) => (Number(process.hrtime.bigint() - from) / 1e9).toFixed(1);
const child = spawn("/usr/bin/time", ["-f", "cpu: %U s user, %S s sys, %e s wall", "npm", "start"], {
  cwd: dir,
  detached: true,
  stdio: ["ignore", "pipe", "pipe"],
});
let running = null;
let stopAt = null;
// The start's own headings (==>) and the CPU line: where the time went.
const marks = [];
for (const stream of [child.stdout, child.stderr]) {
  let pending = "";
  stream.on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) {
      appendFileSync(logFile, `${seconds()} ${line}\n`);
      const plain = stripVTControlCharacters(line);
      if (/==>|^cpu: /.test(plain)) marks.push(`${seconds()} ${plain}`);
      if (running === null && plain.includes("Spindle is running")) {
        running = seconds();
        // A few seconds up, as a user would look at it, then Ctrl-C.
        setTimeout(() => {
          stopAt = process.hrtime.bigint();
          process.kill(-child.pid, "SIGINT");
        }, 3000);
      }
    }
  });
}
child.on("exit", (code) => {
  const status = execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" }).trim();
  const result = {
    runningAfterSeconds: running,
    stopSeconds: stopAt ? seconds(stopAt) : null,
    exit: code,
    gitStatus: status || "clean",
    marks,
  };
  console.log(JSON.stringify(result, null, 1));
  if (running === null) process.exitCode = 1;
});

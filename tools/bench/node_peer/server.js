// The Node peer of tools/bench/run.py: the same two paths as mixerd, written the usual way in
// Node 20 (the `http` module and the stock socket.io 4 server), so the benchmark can say what
// mixerd costs next to a plain Node implementation of them.
//
//   node server.js PTY_PATH SLIDERS_JSON [PORT]
//
// SLIDERS_JSON is mixerd's `GET /api/sliders` body; it is the starting state, kept as a parsed
// object. `GET /api/sliders` answers JSON.stringify of that state (keep-alive, the same body
// bytes as mixerd as long as the values are the same). Every `SLIDER,<i>,<v>` line read from
// the pty (0-based i; the device end is the benchmark's FakeDevice, as for mixerd) that changes
// slider i+1 sets its value and emits `slider_change` {"index":i+1,"value":v} to every socket.io
// client of the default namespace (io.emit: one encoding, one write per client). Like mixerd it
// publishes changes only.
//
// Listens on 127.0.0.1:PORT, any free port when PORT is 0 or left out (run.py's start-up
// measure picks the port itself, so it can poll it from the exec on, as it does mixerd's); prints
// `port N` once listening; exits at the end of stdin.
"use strict";

const fs = require("fs");
const http = require("http");
const tty = require("tty");
const { Server } = require("socket.io");

if (process.argv.length !== 4 && process.argv.length !== 5) {
  process.stderr.write("usage: node server.js PTY_PATH SLIDERS_JSON [PORT]\n");
  process.exit(2);
}
const [ptyPath, slidersJson, port = "0"] = process.argv.slice(2);
const state = JSON.parse(slidersJson);
const sliders = state.sliders; // sliders[k].index is k + 1

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/api/sliders") {
    const body = JSON.stringify(state);
    res.writeHead(200, {
      "Server": "node-peer",
      "Content-Type": "application/json",
      "Access-Control-Allow-Origin": "*",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  res.writeHead(404, { "Content-Type": "application/json", "Content-Length": 21 });
  res.end('{"error":"not found"}');
});

const io = new Server(server, { serveClient: false });

function onLine(line) {
  const m = /^SLIDER,(\d+),(\d+)$/.exec(line);
  if (!m) return;
  const i = Number(m[1]);
  const value = Number(m[2]);
  if (i >= sliders.length || value > 100 || sliders[i].value === value) return;
  sliders[i].value = value;
  io.emit("slider_change", { index: i + 1, value });
}

// The pty as the floor server and mixerd open it: read-write, not the controlling terminal, raw.
const fd = fs.openSync(ptyPath, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
const pty = new tty.ReadStream(fd);
pty.setRawMode(true);
pty.setEncoding("latin1");
let partial = "";
pty.on("data", (chunk) => {
  const parts = (partial + chunk).split(/[\r\n]/);
  partial = parts.pop();
  for (const line of parts) if (line) onLine(line);
});
pty.on("error", () => {}); // EIO once the device end closes: nothing more to read

server.listen(Number(port), "127.0.0.1", () => {
  process.stdout.write(`port ${server.address().port}\n`);
});

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();

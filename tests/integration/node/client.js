// One socket.io-client 4 connection, driven by the integration tests (tests/integration).
//
//   node client.js URL [--transport polling|websocket|default] [--token T] [--cookie C]
//                      [--origin O] [--insecure 1]
//
// Prints one JSON object per line on stdout for everything that happens:
//   {"type":"connect","id":…,"transport":"polling"}   {"type":"upgrade","transport":"websocket"}
//   {"type":"event","name":"slider_change","args":[{…}]}
//   {"type":"ack","tag":…,"args":[…]}                 {"type":"transport","name":"websocket"}
//   {"type":"connect_error","message":"…"}            {"type":"disconnect","reason":"…"}
// Reads one JSON command per line on stdin:
//   {"cmd":"emit","name":"get_state","args":[]}    {"cmd":"call","name":"get_state","tag":1}
//   (in args, {"$bytes":[1,2,3]} stands for Buffer.from([1,2,3]), at any depth)
//   {"cmd":"transport"}   {"cmd":"disconnect"}   (end of input: disconnect and exit)
// No reconnection: a refused or dropped connection ends in one disconnect/connect_error line.
"use strict";

const readline = require("readline");
const { io } = require("socket.io-client");

function parseArgs(argv) {
  const opts = { url: argv[0], transport: "default" };
  for (let i = 1; i < argv.length; i += 2) opts[argv[i].replace(/^--/, "")] = argv[i + 1];
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const options = { reconnection: false, timeout: 10000 };
if (opts.transport !== "default") options.transports = [opts.transport];
if (opts.token !== undefined) options.auth = { token: opts.token };
// Self-signed test certificates (HTTPS controller).
if (opts.insecure !== undefined) options.rejectUnauthorized = false;
const headers = {};
if (opts.cookie !== undefined) headers.Cookie = opts.cookie;
if (opts.origin !== undefined) headers.Origin = opts.origin;
if (Object.keys(headers).length) options.extraHeaders = headers;

const socket = io(opts.url, options);
const engineName = () => (socket.io.engine ? socket.io.engine.transport.name : null);

// Attached when the engine opens, before the namespace connects, so no upgrade is missed.
socket.io.on("open", () => {
  socket.io.engine.on("upgrade", (t) => print({ type: "upgrade", transport: t.name }));
});
socket.on("connect", () => print({ type: "connect", id: socket.id, transport: engineName() }));
socket.on("connect_error", (err) => print({ type: "connect_error", message: err.message }));
socket.on("disconnect", (reason) => print({ type: "disconnect", reason }));
socket.onAny((name, ...args) => print({ type: "event", name, args }));

// JSON cannot carry bytes: {"$bytes":[…]} becomes a Buffer, which the client sends as a binary
// attachment.
function fromJson(value) {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value.$bytes)) return Buffer.from(value.$bytes);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromJson(v)]));
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const c = JSON.parse(line);
  const args = fromJson(c.args || []);
  if (c.cmd === "emit") {
    socket.emit(c.name, ...args);
  } else if (c.cmd === "call") {
    socket.emit(c.name, ...args, (...acked) => print({ type: "ack", tag: c.tag, args: acked }));
  } else if (c.cmd === "transport") {
    print({ type: "transport", name: engineName() });
  } else if (c.cmd === "disconnect") {
    socket.disconnect();
  }
});
rl.on("close", () => {
  socket.disconnect();
  // Let the close packet go out before the process ends.
  setTimeout(() => process.exit(0), 100);
});

// N socket.io-client websocket connections in one process, for tools/bench/sio_latency.py.
//
//   node sio_clients.js URL N
//
// Prints {"ready":N} once every client has its initial_state, then, for each slider value that
// all N clients have received, {"value":v,"t":[ns,…]}: the CLOCK_MONOTONIC receive time of each
// client (process.hrtime uses the same clock as Python's time.monotonic_ns on Linux).
"use strict";

const path = require("path");
const { io } = require(
  path.join(__dirname, "../../tests/integration/node/node_modules/socket.io-client"));

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
const pending = new Map();
let ready = 0;

for (let i = 0; i < count; i++) {
  const socket = io(url, { transports: ["websocket"], reconnection: false, forceNew: true });
  socket.once("initial_state", () => {
    if (++ready === count) process.stdout.write(JSON.stringify({ ready }) + "\n");
  });
  socket.on("slider_change", ({ value }) => {
    const t = process.hrtime.bigint();
    const times = pending.get(value) || [];
    times.push(t.toString());
    if (times.length === count) {
      pending.delete(value);
      process.stdout.write(JSON.stringify({ value, t: times }) + "\n");
    } else {
      pending.set(value, times);
    }
  });
  socket.on("disconnect", (reason) => {
    process.stderr.write(`client ${i} disconnected: ${reason}\n`);
    process.exit(1);
  });
}
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();

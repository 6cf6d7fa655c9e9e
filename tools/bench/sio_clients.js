// N stock socket.io-client connections in one node process, for tools/bench/run.py.
//
//   node sio_clients.js '{"url":"http://127.0.0.1:PORT","count":100,"transport":"websocket",
//                         "waitEvent":"initial_state","upgradeWaitMs":5000}'
//
// transport "websocket" connects with transports: ["websocket"]; "default" uses the client's
// defaults (long-polling first, then the upgrade), and the clients count as ready once upgraded
// (or after upgradeWaitMs). waitEvent: an event each client must have seen before it counts
// as ready (mixerd sends initial_state; the floor server sends nothing), or null.
//
// Prints {"ready":N,"transports":{...},"connectMs":…} once every client is ready, then answers
// one command per stdin line:
//   clock -> {"clock":"<ns>"}   process.hrtime.bigint(): CLOCK_MONOTONIC on Linux (libuv's
//                               uv_hrtime), the clock of Python's time.monotonic_ns(); run.py
//                               checks that it falls between its own readings around the call.
//   count -> {"count":<slider_change events so far, all clients>}
//   dump  -> {"events":[[index,value,t_ns, index,value,t_ns, …] per client],"transports":{...},
//             "disconnects":[…]} and forgets the events.
// End of stdin: every client disconnects and the process exits.
"use strict";

const path = require("path");
const readline = require("readline");
const { io } = require(
  path.join(__dirname, "../../tests/integration/node/node_modules/socket.io-client"));

const opts = JSON.parse(process.argv[2]);
const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const started = process.hrtime.bigint();

const sockets = [];
const events = [];
const disconnects = [];
let total = 0;
let readyCount = 0;
let announced = false;

function transports() {
  const counts = {};
  for (const s of sockets) {
    const name = s.io.engine && s.connected ? s.io.engine.transport.name : "none";
    counts[name] = (counts[name] || 0) + 1;
  }
  return counts;
}

function announce() {
  if (announced) return;
  announced = true;
  print({ ready: readyCount, transports: transports(),
          connectMs: Number(process.hrtime.bigint() - started) / 1e6 });
}

for (let i = 0; i < opts.count; i++) {
  const options = { reconnection: false, forceNew: true, timeout: 20000 };
  if (opts.transport === "websocket") options.transports = ["websocket"];
  const socket = io(opts.url, options);
  sockets.push(socket);
  const mine = [];
  events.push(mine);
  // Ready needs the namespace connect, the wanted event and, for "default", the upgrade.
  const needs = new Set(["connect"]);
  if (opts.waitEvent) needs.add(opts.waitEvent);
  if (opts.transport === "default") needs.add("upgrade");
  const done = (what) => {
    if (!needs.delete(what) || needs.size) return;
    if (++readyCount === opts.count) announce();
  };
  socket.io.on("open", () => socket.io.engine.on("upgrade", () => done("upgrade")));
  socket.on("connect", () => done("connect"));
  if (opts.waitEvent) socket.once(opts.waitEvent, () => done(opts.waitEvent));
  socket.on("slider_change", (ev) => {
    // Taken first: everything after this line is the benchmark's own bookkeeping.
    const t = process.hrtime.bigint();
    mine.push(ev.index, ev.value, Number(t));
    ++total;
  });
  socket.on("connect_error", (err) => disconnects.push({ client: i, reason: err.message }));
  socket.on("disconnect", (reason) => disconnects.push({ client: i, reason }));
}

// Clients that never upgrade (or never connect) must not hang the run: report what there is.
setTimeout(announce, opts.upgradeWaitMs || 20000);

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const cmd = line.trim();
  if (cmd === "clock") {
    print({ clock: process.hrtime.bigint().toString() });
  } else if (cmd === "count") {
    print({ count: total });
  } else if (cmd === "dump") {
    print({ events, transports: transports(), disconnects });
    for (const e of events) e.length = 0;
    total = 0;
  }
});
rl.on("close", () => {
  for (const s of sockets) s.disconnect();
  // Let the close packets go out before the process ends.
  setTimeout(() => process.exit(0), 200);
});

// Many stock socket.io-client 4 connections in one node process, for the fan-out load test
// (tests/faults/test_fanout_load.py). Uses the socket.io-client installed for the integration
// tests (NODE_PATH=tests/integration/node/node_modules).
//
//   node load_clients.js URL COUNT CAPACITY
//
// Opens COUNT websocket-only connections (each its own engine: forceNew), a few at a time, and
// prints one JSON object per line on stdout:
//   {"type":"ready","clients":N,"connect_s":…}   every client connected and got initial_state
//   {"type":"progress","min":…,"max":…}          answer to {"cmd":"progress"}
//   {"type":"report",…}                          answer to {"cmd":"report",…} (below)
//   {"type":"error","message":…}                 a client failed to connect or was dropped
// The n-th slider_change (from 0) of every client must be the n-th line the test wrote to the pty,
// which is SLIDER,n%4,(n/4)*3%101, i.e. {"index": n%4+1, "value": floor(n/4)*3%101}: each client
// checks that on arrival (order and content) and keeps the arrival time of each one (monotonic
// clock, the one Python's time.monotonic() reads), CAPACITY at most.
//
// {"cmd":"report","sent":S,"send_times":FILE,"windows":[[name,t0,t1],…],"wait_s":W} waits up to W
// seconds for every client to have S events, then answers with per-client losses and mismatches
// and, per window of send time [t0,t1), a latency histogram (buckets of 2 %, see bucketOf) built
// from FILE (S little-endian float64 send times in seconds). Python merges the histograms of all
// processes.
"use strict";

const fs = require("fs");
const readline = require("readline");
const { io } = require("socket.io-client");

const [url, countArg, capacityArg] = process.argv.slice(2);
const count = Number(countArg);
const capacity = Number(capacityArg);
const connectBatch = 25; // at most this many handshakes in flight

const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const nowSeconds = () => Number(process.hrtime.bigint()) / 1e9;

// Latency buckets: bucket b holds latencies in [1.02^b, 1.02^(b+1)) microseconds.
const LOG_BASE = Math.log(1.02);
const bucketOf = (seconds) => Math.max(0, Math.floor(Math.log(Math.max(1, seconds * 1e6)) / LOG_BASE));

class Client {
  constructor(id) {
    this.id = id;
    this.received = 0;
    this.mismatches = 0;
    this.firstMismatch = null;
    this.arrivals = new Float64Array(capacity);
    this.disconnected = null;
    this.socket = io(url, { transports: ["websocket"], forceNew: true, reconnection: false, timeout: 20000 });
    this.socket.on("slider_change", (payload) => this.onSlider(payload));
    this.socket.on("disconnect", (reason) => {
      this.disconnected = reason;
      if (!shuttingDown) print({ type: "error", message: `client ${id} disconnected: ${reason}` });
    });
  }

  onSlider(payload) {
    const n = this.received++;
    if (n < capacity) this.arrivals[n] = nowSeconds();
    const want = { index: (n % 4) + 1, value: (Math.floor(n / 4) * 3) % 101 };
    if (!payload || payload.index !== want.index || payload.value !== want.value) {
      this.mismatches++;
      if (this.firstMismatch === null) this.firstMismatch = { n, got: payload, want };
    }
  }
}

let shuttingDown = false;
const clients = [];

function connectAll() {
  const started = nowSeconds();
  let next = 0;
  let ready = 0;
  return new Promise((resolve) => {
    const startOne = () => {
      if (next >= count) return;
      const c = new Client(next++);
      clients.push(c);
      c.socket.once("initial_state", () => {
        ready++;
        if (ready === count) resolve(nowSeconds() - started);
        else startOne();
      });
      c.socket.once("connect_error", (err) => {
        print({ type: "error", message: `client ${c.id} could not connect: ${err.message}` });
      });
    };
    for (let i = 0; i < Math.min(connectBatch, count); i++) startOne();
  });
}

function progress() {
  let min = Infinity;
  let max = 0;
  for (const c of clients) {
    min = Math.min(min, c.received);
    max = Math.max(max, c.received);
  }
  return { min, max };
}

function histograms(sent, sendTimes, windows) {
  const out = windows.map(([name]) => ({ name, count: 0, max: 0, buckets: {} }));
  const limit = Math.min(sent, capacity);
  // Which window each event's send time falls in (or -1).
  const windowOf = new Int32Array(limit).fill(-1);
  for (let n = 0; n < limit; n++) {
    windows.forEach(([, t0, t1], w) => {
      if (sendTimes[n] >= t0 && sendTimes[n] < t1) windowOf[n] = w;
    });
  }
  for (const c of clients) {
    const got = Math.min(c.received, limit);
    for (let n = 0; n < got; n++) {
      const w = windowOf[n];
      if (w < 0) continue;
      const latency = c.arrivals[n] - sendTimes[n];
      const h = out[w];
      h.count++;
      if (latency > h.max) h.max = latency;
      const b = bucketOf(latency);
      h.buckets[b] = (h.buckets[b] || 0) + 1;
    }
  }
  return out;
}

async function report(cmd) {
  const waitStarted = nowSeconds();
  const deadline = waitStarted + cmd.wait_s;
  while (progress().min < cmd.sent && nowSeconds() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const raw = fs.readFileSync(cmd.send_times);
  const sendTimes = new Float64Array(raw.buffer, raw.byteOffset, raw.length / 8);
  const lost = [];
  const wrong = [];
  const gone = [];
  for (const c of clients) {
    if (c.received < cmd.sent) lost.push({ id: c.id, received: c.received });
    if (c.mismatches) wrong.push({ id: c.id, mismatches: c.mismatches, first: c.firstMismatch });
    if (c.disconnected !== null) gone.push({ id: c.id, reason: c.disconnected });
  }
  print({
    type: "report",
    clients: clients.length,
    sent: cmd.sent,
    received_max: progress().max,
    waited_s: nowSeconds() - waitStarted,
    lost,
    wrong,
    gone,
    histograms: histograms(cmd.sent, sendTimes, cmd.windows),
  });
}

connectAll().then((seconds) => print({ type: "ready", clients: count, connect_s: seconds }));

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const cmd = JSON.parse(line);
  if (cmd.cmd === "progress") print({ type: "progress", ...progress() });
  else if (cmd.cmd === "report") report(cmd);
});
rl.on("close", () => {
  shuttingDown = true;
  for (const c of clients) c.socket.disconnect();
  setTimeout(() => process.exit(0), 200);
});

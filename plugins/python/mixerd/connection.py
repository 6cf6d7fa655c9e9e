"""The plugin's side of the line protocol (protocol/README.md, "Plugins").

One JSON object per line on two byte streams: the host's lines arrive on `reader`, the plugin's
leave on `writer`. A reader thread routes the host's lines: `reply` lines wake the thread that
made that call, everything else (`init`, `hook`) waits in `incoming` for the main thread, which
runs hooks one at a time. Writes from any thread go through one lock, so lines never interleave.
"""
import json
import queue
import threading

# The host kills a plugin that writes a longer line; the SDK refuses to write one instead.
MAX_LINE_BYTES = 1024 * 1024
# How long a method call waits for the host's reply before it raises RuntimeError.
CALL_TIMEOUT_SECONDS = 10.0

# Error kinds a reply may carry, mapped to the exception the caller gets.
ERROR_KINDS = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "KeyError": KeyError,
    "RuntimeError": RuntimeError,
}

# Put into `incoming` when the host closed the plugin's standard input.
END_OF_INPUT = None


class ConnectionClosed(RuntimeError):
    """The host closed the connection (or it broke) before the call was answered."""


class CallTimeout(RuntimeError):
    """The host did not answer a method call in time."""


class _PendingCall:
    __slots__ = ("done", "reply")

    def __init__(self):
        self.done = threading.Event()
        self.reply = None


def encode_line(message):
    """One protocol line (bytes, with its newline) for a JSON-able dict; ValueError when it
    would be longer than the host accepts, TypeError when it is not JSON."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    line = text.encode("utf-8") + b"\n"
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"message of {len(line)} bytes is over the 1 MiB line limit")
    return line


class Connection:
    """Reads the host's lines on a thread of its own and writes the plugin's lines.

    `reader` and `writer` are binary file objects (the runner passes the protocol's descriptors,
    the unit tests pipes). `incoming` holds the host lines for the main thread: dicts, or
    END_OF_INPUT once the host has closed its side.
    """

    def __init__(self, reader, writer, call_timeout=CALL_TIMEOUT_SECONDS, on_bad_line=None):
        self._reader = reader
        self._writer = writer
        self._call_timeout = call_timeout
        self._on_bad_line = on_bad_line or (lambda reason: None)
        self._write_lock = threading.Lock()
        self._calls_lock = threading.Lock()
        self._pending = {}
        self._next_call_id = 1
        self._closed = False
        # The host sends the next hook only after the previous one's hook_done, so at most the
        # init line, one hook and the end of input wait here.
        self.incoming = queue.Queue()
        self._thread = threading.Thread(target=self._read_loop, name="mixerd-reader", daemon=True)

    def start(self):
        self._thread.start()

    # -- writing -------------------------------------------------------------------------------

    def send(self, message):
        """Writes one line; ValueError/TypeError when it cannot be encoded, ConnectionClosed
        when the host is gone."""
        line = encode_line(message)
        with self._write_lock:
            try:
                self._writer.write(line)
                self._writer.flush()
            except (BrokenPipeError, OSError, ValueError) as error:
                raise ConnectionClosed(f"the connection to mixerd is closed ({error})") from None

    def call(self, method, args):
        """Sends a method call and waits for its reply: the result, or the reply's error raised
        as its kind's exception. Safe from any thread, including the hook (main) thread."""
        pending = _PendingCall()
        with self._calls_lock:
            if self._closed:
                raise ConnectionClosed("the connection to mixerd is closed")
            call_id = self._next_call_id
            self._next_call_id += 1
            self._pending[call_id] = pending
        try:
            self.send({"type": "call", "id": call_id, "method": method, "args": args})
            if not pending.done.wait(self._call_timeout):
                raise CallTimeout(
                    f"{method}: no reply from mixerd within {self._call_timeout:g} s")
        finally:
            with self._calls_lock:
                self._pending.pop(call_id, None)
        reply = pending.reply
        if reply is None:
            raise ConnectionClosed(f"{method}: the connection to mixerd closed before the reply")
        error = reply.get("error")
        if error is not None:
            raise _exception_from(method, error)
        return reply.get("result")

    def notify(self, method, args):
        """A call without id: the host answers nothing (log)."""
        self.send({"type": "call", "method": method, "args": args})

    # -- reading -------------------------------------------------------------------------------

    def _read_loop(self):
        try:
            while True:
                line = self._reader.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                if not line.endswith(b"\n") and len(line) > MAX_LINE_BYTES:
                    self._skip_rest_of_line()
                    self._on_bad_line("a line over 1 MiB from mixerd was ignored")
                    continue
                self._route(line)
        except (OSError, ValueError):
            pass
        finally:
            self._close()

    def _skip_rest_of_line(self):
        while True:
            chunk = self._reader.readline(MAX_LINE_BYTES)
            if not chunk or chunk.endswith(b"\n"):
                return

    def _route(self, line):
        try:
            message = json.loads(line)
        except ValueError as error:
            self._on_bad_line(f"a line from mixerd is not JSON ({error})")
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            self._on_bad_line("a line from mixerd is not a JSON object with a type")
            return
        if message["type"] == "reply":
            call_id = message.get("id")
            with self._calls_lock:
                pending = self._pending.get(call_id) if isinstance(call_id, int) else None
            if pending is None:
                # A reply after its call timed out, or for no call at all.
                self._on_bad_line(f"a reply for no waiting call (id {call_id!r}) was ignored")
                return
            pending.reply = message
            pending.done.set()
            return
        self.incoming.put(message)

    def _close(self):
        with self._calls_lock:
            self._closed = True
            waiting = list(self._pending.values())
        for pending in waiting:
            pending.done.set()
        self.incoming.put(END_OF_INPUT)


def _exception_from(method, error):
    if isinstance(error, dict):
        kind = error.get("kind")
        message = error.get("message", "")
    else:
        kind, message = None, error
    exception_type = ERROR_KINDS.get(kind, RuntimeError)
    text = str(message)
    if exception_type is RuntimeError and kind not in (None, "RuntimeError"):
        text = f"{kind}: {text}"
    return exception_type(text)

"""A local HTTP server that records every request, for the http macros' tests (integration and
web)."""
import http.server as http_server
import queue
import threading
import time

import pytest


class Recorder:
    """A local HTTP server that records every request: (monotonic time, method, path, headers,
    body). Paths under /fail are answered 500, everything else 200."""

    def __init__(self):
        self.requests = queue.Queue()
        recorder = self

        class Handler(http_server.BaseHTTPRequestHandler):
            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                recorder.requests.put((time.monotonic(), self.command, self.path,
                                       dict(self.headers), body))
                status = 500 if self.path.startswith("/fail") else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_GET = do_POST = do_PUT = do_DELETE = handle_any

            def log_message(self, *args):
                pass

        self.server = http_server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def next(self, timeout=5):
        try:
            return self.requests.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("the HTTP server saw no request") from None

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder():
    r = Recorder()
    yield r
    r.close()

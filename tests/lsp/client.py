# SPDX-License-Identifier: MIT
"""A minimal LSP client over a pipe for the tests of `rooflint lsp`
(tests/lsp/protocol.py, tests/bench/lsp_bench.py): frames and reads
messages, with a timeout on every read so a hang fails instead of
waiting."""
import json
import os
import select
import subprocess


class Client:
    def __init__(self, rooflint, timeout=10.0):
        self.proc = subprocess.Popen([rooflint, "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.timeout = timeout
        self.buf = b""
        self.next_id = 1

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params=None):
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        self.send(msg)
        return msg["id"]

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def _fill(self):
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], self.timeout)
        if not ready:
            raise TimeoutError("no message from the server in %.0f s" % self.timeout)
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("the server closed its output")
        self.buf += chunk

    def recv(self):
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = int(head.split(b":")[1])
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)

    def wait(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=self.timeout)

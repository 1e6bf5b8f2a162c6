"""A real Nostr relay for the end-to-end scripts: PyPI nostr-relay (in .build/nostr-venv, with
SQLite) on a free loopback port, its database in the caller's temporary folder."""
import os
import socket
import subprocess
import time

# Beside the venv's python, whichever python imports this.
RELAY = os.path.abspath(os.environ.get("NOSTR_RELAY_BIN", ".build/nostr-venv/bin/nostr-relay"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Relay:
    """nostr-relay on a free loopback port, its database in a temporary folder."""

    def __init__(self, root):
        self.port = free_port()
        config = os.path.join(root, "relay.yaml")
        with open(config, "w") as f:
            f.write(f"DEBUG: false\nrelay_name: hawala-test\ngunicorn:\n  bind: 127.0.0.1:{self.port}\n"
                    f"storage:\n  sqlalchemy.url: sqlite+aiosqlite:///{root}/relay.sqlite3\n")
        self.log = open(os.path.join(root, "relay.log"), "w")
        self.process = subprocess.Popen([RELAY, "-c", config, "serve", "--use-uvicorn"], stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"ws://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the relay did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)

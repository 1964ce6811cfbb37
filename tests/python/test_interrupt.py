"""Ctrl-C while a check waits on a dashboard that never answers: a real SIGINT raises
``KeyboardInterrupt`` at once, not when the read ends."""

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import resource_pool as rp
from conftest import ROOT, clean_env

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals"
)

#: When the SIGINT comes, and how long the whole call may take: far below the timeout (and
#: below the dashboard's per-read limit, which ended the wait before the fix).
SEND_AFTER = 0.3
AT_MOST = 2.0


class Blackhole:
    """A TCP server on 127.0.0.1 that accepts connections and never answers."""

    def __init__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.url = "http://127.0.0.1:%d" % self.server.getsockname()[1]
        self.held = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        self.server.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def blackhole():
    server = Blackhole()
    yield server
    server.close()


def _interrupted(call):
    """Runs ``call`` with a real SIGINT sent to this process after ``SEND_AFTER`` seconds;
    returns the seconds until ``KeyboardInterrupt``. The signal never outlives the test: a
    handler of its own raises only while the call runs, and the timer ends before it is
    restored."""
    armed = threading.Event()
    armed.set()

    def handler(signum, frame):
        if armed.is_set():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(SEND_AFTER, os.kill, (os.getpid(), signal.SIGINT))
    try:
        start = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call()
        return time.monotonic() - start
    finally:
        armed.clear()
        timer.cancel()
        timer.join()
        time.sleep(0.05)  # a signal still pending runs the disarmed handler here
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    "check",
    [
        lambda url: rp.check({"p": [8]}, {"actor_rollout": "p"}, ray=url, timeout=30),
        lambda url: rp.verl.check(["trainer.nnodes=1"], ray=url, timeout=30),
    ],
    ids=["check", "verl.check"],
)
def test_ctrl_c_interrupts_a_check_waiting_on_a_dashboard(blackhole, check):
    took = _interrupted(lambda: check(blackhole.url))
    assert SEND_AFTER <= took < AT_MOST, took


def test_a_check_interrupted_does_not_hold_up_the_exit(blackhole):
    # The read goes on in the background after the interrupt; the interpreter exits anyway.
    script = textwrap.dedent(
        """
        import os, signal, sys, threading, time
        import resource_pool as rp
        threading.Timer(%r, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            rp.check({"p": [8]}, {"actor_rollout": "p"}, ray=sys.argv[1], timeout=30)
        except KeyboardInterrupt:
            print("interrupted")
        """
        % SEND_AFTER
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script, blackhole.url],
        cwd=str(ROOT),
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
    )
    took = time.monotonic() - start
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip() == "interrupted"
    # Python's start and the import included.
    assert took < SEND_AFTER + AT_MOST + 1.0, took

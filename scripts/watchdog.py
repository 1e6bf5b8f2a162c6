#!/usr/bin/env python3
"""Runs a test command with a deadline, so a hang fails the run on time and says where.

    watchdog.py --minutes 20 --log .build/test.log -- swift test ...

The command's output is shown line by line (line-buffered through stdbuf) and kept in --log.
Past the deadline: the tests that started and never ended are named, every thread of the test
processes is backtraced with gdb (the whole dump in LOG.hang, the frames that name Hawala's own
code at the end of the output), every process under the command is killed, and the exit is 124.
A failing run ends by repeating its ✘ lines, so they are read without scrolling.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

STARTED = re.compile(r"◇ Test (\S+?)\(.*\) started")
ENDED = re.compile(r"[✔✘] Test (\S+?)\(.*\) (passed|failed|skipped)")


def descendants(root):
    """`root` and every process below it (swift test runs the test bundle in a process group
    of its own, and tests start servers in sessions of their own)."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def test_processes(root):
    """The processes under `root` that run tests (the xctest bundle), else all of them."""
    found, everyone = [], []
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        everyone.append((pid, args))
        if ".xctest" in args:
            found.append((pid, args))
    return found or everyone


def backtraces(root, dump_path):
    """Every thread's stack in the test processes, written whole to `dump_path`; returns the
    frames that name the project's own code."""
    own = []
    with open(dump_path, "w") as dump:
        for pid, args in test_processes(root):
            dump.write(f"=== pid {pid}: {args}\n")
            try:
                out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off",
                                      "-ex", "thread apply all bt 40"], capture_output=True, text=True, timeout=180).stdout
            except (OSError, subprocess.TimeoutExpired) as error:
                out = f"(no backtrace: {error})\n"
            dump.write(out)
            thread = None
            for line in out.splitlines():
                if line.startswith("Thread "):
                    thread = line
                elif any(word in line for word in ("Hawala", "breez", "uniffi", "Deadline")):
                    if thread:
                        own.append(thread)
                        thread = None
                    own.append("  " + line.strip()[:220])
    return own


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, required=True, help="the whole run's deadline")
    parser.add_argument("--log", required=True, help="where the output is kept")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command to run")

    process = subprocess.Popen(["stdbuf", "-oL", "-eL", *command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    running, failures, timed_out = {}, [], threading.Event()

    def expire():
        timed_out.set()
        print(f"\n== no end after {options.minutes:g} minutes; still running:", flush=True)
        for name, since in sorted(dict(running).items(), key=lambda item: item[1]):
            print(f"   {name} (for {time.monotonic() - since:.0f} s)", flush=True)
        own = backtraces(process.pid, options.log + ".hang")
        print(f"== backtraces in {options.log}.hang; the project's own frames:", flush=True)
        for line in own[-80:]:
            print(line, flush=True)
        for pid in descendants(process.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    timer = threading.Timer(options.minutes * 60, expire)
    timer.daemon = True
    timer.start()
    with open(options.log, "w") as log:
        for raw in process.stdout:
            line = raw.decode(errors="replace")
            sys.stdout.write(line)
            sys.stdout.flush()
            log.write(line)
            if m := STARTED.search(line):
                running[m.group(1)] = time.monotonic()
            elif m := ENDED.search(line):
                running.pop(m.group(1), None)
            if "✘" in line or "ERROR: AddressSanitizer" in line:
                failures.append(line.rstrip())
    status = process.wait()
    timer.cancel()
    if timed_out.is_set():
        return 124
    if status != 0:
        print(f"== failed (from {options.log}):")
        for line in failures[-20:]:
            print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())

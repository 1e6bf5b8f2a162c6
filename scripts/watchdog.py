#!/usr/bin/env python3
"""Runs a test command with a deadline, so a hang fails the run on time and says where.

    watchdog.py --minutes 20 --log .build/test.log -- swift test ...

The command's output is shown as it comes and kept in --log. Past the deadline: the tests that
started and never ended (as far as the output read so far says) are named, every thread of the test processes is backtraced with gdb
(the whole dump in LOG.hang, the frames that name Hawala's own code at the end of the output),
every process under the watchdog is killed — those a test left behind included (the watchdog is
their subreaper) — and the exit is 124. A failing run ends by repeating its ✘ lines, so they are
read without scrolling. Ctrl-C stops the whole run.
"""
import argparse
import ctypes
import os
import re
import signal
import subprocess
import sys
import threading
import time

STARTED = re.compile(r"◇ Test (\S+?)\(.*\) started")
ENDED = re.compile(r"[✔✘] Test (\S+?)\(.*\) (passed|failed|skipped)")
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Processes orphaned below us (a server a test started, in a session of its own) become
    our children instead of init's, so they are found and killed with the rest."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def descendants(root):
    """Every process below `root`."""
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
    found, queue = [], list(children.get(root, []))
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def kill_everything_below_us():
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_processes():
    """The processes below us that run tests (the xctest bundle), else all of them."""
    found, everyone = [], []
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        everyone.append((pid, args))
        if ".xctest" in args:
            found.append((pid, args))
    return found or everyone


def backtraces(dump_path):
    """Every thread's stack in the test processes, written whole to `dump_path`; returns the
    frames that name the project's own code (or why there are none)."""
    own = []
    with open(dump_path, "w") as dump:
        for pid, args in test_processes():
            dump.write(f"=== pid {pid}: {args}\n")
            try:
                out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off",
                                      "-ex", "thread apply all bt 40"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     timeout=180).stdout.decode(errors="replace")
            except (OSError, subprocess.TimeoutExpired) as error:
                out = f"(no backtrace: {error})\n"
            dump.write(out)
            if "Thread " not in out:
                own.append(f"pid {pid}: no backtrace ({out.strip().splitlines()[-1:] or 'gdb said nothing'})")
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

    become_subreaper()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    running, failures = {}, []

    def read():
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

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        status = process.wait(timeout=options.minutes * 60)
    except subprocess.TimeoutExpired:
        try:
            # swift test's output comes in blocks: the last tests to end may not be read yet.
            print(f"\n== no end after {options.minutes:g} minutes; started and not ended, as far as the output read says:", flush=True)
            for name, since in sorted(dict(running).items(), key=lambda item: item[1]):
                print(f"   {name} (for {time.monotonic() - since:.0f} s)", flush=True)
            own = backtraces(options.log + ".hang")
            print(f"== backtraces in {options.log}.hang; the project's own frames:", flush=True)
            for line in own[-80:]:
                print(line, flush=True)
        finally:
            kill_everything_below_us()
        return 124
    except KeyboardInterrupt:
        kill_everything_below_us()
        return 130
    finally:
        # What a test left running would hold the output open: the reader is not waited for long.
        reader.join(timeout=10)
        kill_everything_below_us()
    if status != 0:
        print(f"== failed (from {options.log}):")
        for line in failures[-20:]:
            print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Blocking I/O (issue 25): a save to a FIFO with no reader runs with the GIL released (another
Python thread keeps running) and stops on Ctrl-C; and the smaller defects: a save into /proc
names the real problem, and an oversized session file is a ValueError, not MemoryError."""
import os
import subprocess
import sys
import textwrap

import pytest

import alibi_explorer as ax

# Run in a child interpreter: Ctrl-C is a signal to the whole process, and a hang must not hang
# pytest. The child prints what happened; a hang is caught by the timeout and fails the test.
FIFO_CHILD = textwrap.dedent("""
    import os, signal, sys, threading
    import alibi_explorer as ax
    fifo = sys.argv[1]
    os.mkfifo(fifo)
    main = threading.main_thread()
    # The save waits for a reader by retrying a non-blocking open() with a short sleep between
    # tries; while it waits, the main thread sits in one of these calls, not in the futex of a
    # thread waiting for the GIL.
    WAITING_CALLS = {
        "2", "257", "35", "230",  # x86-64: open, openat, nanosleep, clock_nanosleep
        "56", "101", "115",       # arm64: openat, nanosleep, clock_nanosleep
    }
    ticks = 0
    def saving_waits():
        with open(f"/proc/self/task/{main.native_id}/syscall") as f:
            return f.read().split(" ")[0] in WAITING_CALLS
    def other():
        global ticks
        # Runs only while the save has released the GIL: waits until the main thread waits for
        # the FIFO's reader, counting, then sends it Ctrl-C.
        while not saving_waits():
            ticks += 1
        for _ in range(1000):
            ticks += 1
        signal.pthread_kill(main.ident, signal.SIGINT)
    threading.Thread(target=other, daemon=True).start()
    try:
        ax.Session(heads=8).save(fifo)
        print("saved")
    except KeyboardInterrupt:
        print("interrupted", ticks)
""")


def test_fifo_save_releases_the_gil_and_stops_on_ctrl_c(tmp_path):
    r = subprocess.run([sys.executable, "-c", FIFO_CHILD, str(tmp_path / "a_fifo")], capture_output=True,
                       timeout=120, env=os.environ)
    out = r.stdout.decode().split()
    assert out[:1] == ["interrupted"], (r.stdout, r.stderr)
    assert int(out[1]) >= 1000  # the other thread ran while the save waited


def test_fifo_save_writes_once_a_reader_comes(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    ax.Session(heads=4).save(fifo)
    text = reader.communicate(timeout=60)[0].decode()
    assert text == ax.Session(heads=4).to_json()


def test_save_into_proc_says_what_is_wrong():
    with pytest.raises(OSError) as raised:
        ax.Session(heads=8).save("/proc/version")
    message = str(raised.value)
    assert "does not exist" not in message, message
    assert "/proc" in message


def test_session_over_the_size_limit_is_a_value_error(tmp_path):
    path = tmp_path / "big.alibi.json"
    path.write_bytes(b'{"version": 1, "notes": "' + b"x" * (17 << 20) + b'"}')
    with pytest.raises(ValueError, match="16 MiB"):
        ax.Session.load(path)


def test_paths_may_be_path_objects(tmp_path):
    path = tmp_path / "s.alibi.json"
    ax.Session(heads=3).save(path)
    assert ax.Session.load(path) == ax.Session(heads=3)
    with pytest.raises(TypeError):
        ax.Session(heads=3).save(42)

#!/usr/bin/env python3
"""Serve ClickHouse's own HTTP interface from the engine shipped by the npm package `chdb`.

libchdb.so is a full ClickHouse engine whose C entry `query_stable_v2(argc, argv)` takes clickhouse-local
arguments. Given an HTTP port and a query that never ends, it keeps serving HTTP until the process gets
SIGTERM. It must run in its own process: loaded inside Node its HTTP threads fail their stack checks.

usage: launch.py LIBCHDB DATA_DIR HTTP_PORT [LISTEN_HOST]
"""
import ctypes
import os
import signal
import sys


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    lib_path, data_dir, http_port = sys.argv[1], sys.argv[2], sys.argv[3]
    host = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
    os.makedirs(data_dir, exist_ok=True)
    # Python would defer SIGTERM until the C call returns (never); the default action ends the process.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    lib = ctypes.CDLL(lib_path)
    args = [
        "clickhouse",
        "--path=" + data_dir,
        "--http_port=" + http_port,
        "--listen_host=" + host,
        "--multiquery",
        "--query",
        "SYSTEM START LISTEN HTTP; "
        "SELECT sleepEachRow(1) FROM system.numbers SETTINGS max_block_size=1 FORMAT Null",
    ]
    argv = (ctypes.c_char_p * len(args))(*[a.encode() for a in args])
    lib.query_stable_v2.restype = ctypes.c_void_p
    lib.query_stable_v2(len(args), argv)
    # Only reached if the serving query ended, which means the engine failed to start or stopped.
    print("clickhouse engine exited", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

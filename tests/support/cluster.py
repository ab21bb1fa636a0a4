"""A real multi-node Ray cluster on 127.0.0.1, for tests and benchmarks of the ray backend.

Each node is its own `ray start --block` process (a head, then workers joining it), in its own
process group, with its own temporary folder and free ports, so it can run beside other Ray
instances on the machine and is stopped completely: SIGTERM to `ray start` (which stops what it
started), then SIGKILL to whatever is left in its process group.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from plylab.harness.backends.ray import MAX_TEMP_DIR
from tests.support.ports import free_port

READY = "Ray runtime started"


class LoopbackCluster:
    """`with LoopbackCluster(root, nodes=2) as address: ...` -- a head and `nodes - 1` workers."""

    def __init__(self, root: Path, *, nodes: int = 2, cpus_per_node: int = 1, timeout: float = 180.0) -> None:
        root = Path(root).resolve()
        self.scratch = len(str(root)) + len("/node0") > MAX_TEMP_DIR  # Ray's socket paths must stay short
        self.root = Path(tempfile.mkdtemp(prefix="plylab-rc-")) if self.scratch else root
        self.nodes = nodes
        self.cpus = cpus_per_node
        self.timeout = timeout
        self.port = free_port()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[IO[bytes]] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _start_node(self, i: int) -> None:
        temp = self.root / f"node{i}"
        temp.mkdir(parents=True, exist_ok=True)
        ports = {
            "--node-manager-port": free_port(),
            "--object-manager-port": free_port(),
            "--dashboard-agent-listen-port": free_port(),
            "--dashboard-agent-grpc-port": free_port(),
            "--runtime-env-agent-port": free_port(),
            "--metrics-export-port": free_port(),
        }
        args = [
            sys.executable,
            "-m",
            "ray.scripts.scripts",
            "start",
            "--block",
            "--node-ip-address=127.0.0.1",
            f"--num-cpus={self.cpus}",
            f"--temp-dir={temp}",
            "--disable-usage-stats",
        ]
        args += [f"{k}={v}" for k, v in ports.items()]
        if i == 0:
            args += [
                "--head",
                f"--port={self.port}",
                "--include-dashboard=false",
                f"--ray-client-server-port={free_port()}",
            ]
        else:
            args += [f"--address={self.address}"]
        log = open(self.root / f"node{i}.log", "wb")  # noqa: SIM115 - the child keeps writing
        self.logs.append(log)
        # Loopback only, for tests: no token auth, so any local driver can join without a token file.
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
        self.procs.append(
            subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        )
        self._wait_ready(i)

    def _wait_ready(self, i: int) -> None:
        log = self.root / f"node{i}.log"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace")
            if READY in text:
                return
            if self.procs[i].poll() is not None:
                raise RuntimeError(f"ray node {i} exited: {text[-2000:]}")
            time.sleep(0.5)
        raise TimeoutError(f"ray node {i} did not start in {self.timeout:.0f}s")

    def start(self) -> str:
        try:
            for i in range(self.nodes):
                self._start_node(i)
        except BaseException:
            self.stop()
            raise
        return self.address

    def stop(self) -> None:
        for proc in reversed(self.procs):  # workers first, then the head
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # anything it left behind
            except (ProcessLookupError, PermissionError):
                pass
        self.procs.clear()
        for log in self.logs:
            log.close()
        self.logs.clear()
        if self.scratch:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

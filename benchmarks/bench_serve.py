"""Load on ``heuri serve``: concurrent clients asking ``/api/moves`` and ``/api/best`` on
midgame positions for a while; errors, requests per second, median and p90 latency, and
the server's resident memory (RSS) over time.

    .venv/bin/python benchmarks/bench_serve.py                      # starts its own server (es)
    .venv/bin/python benchmarks/bench_serve.py --url http://127.0.0.1:8765 --pid PID --clients 20 --seconds 30

Positions: Spanish self-play boards of ``heuri.bingo.random_board`` (8 to 14 words, a
rack drawn from the rest of the bag; a seed makes them the same each run). Each client
loops: ``moves`` (``top`` 20 rows, the count of all) then ``best`` (top 10) on the next
position; with ``--vary`` (the default) each ``best`` asks a random engine and a random
``k`` (0.5 to 5, two decimals), so that every request may need an evaluator of its own (the
server's evaluator pool is what bounds its memory); ``--no-vary``: the default engine and k.
Targets: median ≤ 100 ms for moves, ≤ 150 ms for best with the default engine; with
``--vary``, p90 of best ≤ 500 ms, server memory ≤ 1 GB after 5 minutes, no error, 20
clients. The server, when started here, is a separate process (uvicorn, one worker) so
that the clients do not share its interpreter; its RSS is read from /proc (Linux).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np


def positions(n: int, seed: int = 5) -> list[str]:
    """``n`` midgame Spanish CGP lines (random legal boards, a rack from the bag)."""
    import heuri
    from heuri.bingo import random_board
    from heuri.board import Board
    from heuri.cgp import CgpRecord, format_cgp

    pack = heuri.load_pack("es")
    spec = pack.spec
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        letters, blanks = random_board(pack, int(rng.integers(8, 15)), rng)
        board = Board(spec, letters, blanks)
        left = spec.distribution() - board.tile_counts()
        bag = np.repeat(np.arange(spec.n_kinds), left)
        if len(bag) < 14:
            continue
        rack = tuple(int(t) for t in rng.choice(bag, spec.rack_size, replace=False))
        out.append(format_cgp(CgpRecord(board, (rack, None), (int(rng.integers(100, 300)),
                                                                int(rng.integers(100, 300))), 0)))
    return out


ENGINES = ("heuri5", "heuri4", "heuri3", "heuri2", "heuri1", "greedy")


async def client(url: str, cgps: list[str], start: int, until: float, lat: dict, errors: list,
                 vary: bool = True) -> None:
    rng = np.random.default_rng(start)
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        i = start
        while time.perf_counter() < until:
            cgp = cgps[i % len(cgps)]
            i += 1
            best = {"lang": "es", "cgp": cgp, "top": 10}
            if vary:
                best.update(engine=str(rng.choice(ENGINES)), k=round(float(rng.uniform(0.5, 5.0)), 2))
            for name, body in (("moves", {"lang": "es", "cgp": cgp, "top": 20}), ("best", best)):
                t = time.perf_counter()
                try:
                    r = await c.post(f"/api/{name}", json=body)
                    ok = r.status_code == 200
                except httpx.HTTPError as e:
                    ok, r = False, e
                dt = time.perf_counter() - t
                if ok:
                    lat[name].append(dt)
                else:
                    errors.append(f"{name}: {getattr(r, 'status_code', r)} {getattr(r, 'text', '')[:200]}")


def rss_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` (MB), from /proc; None where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) process ``pid`` has used, from /proc; None where it
    cannot be read. On a shared machine the server's CPU per answer is steadier than
    its latency."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


async def watch_rss(pid: int, until: float, every: float, out: list) -> None:
    """Append ``(seconds, MB)`` of the server's RSS every ``every`` seconds until ``until``."""
    t0 = time.perf_counter()
    while time.perf_counter() < until:
        mb = rss_mb(pid)
        if mb is not None:
            out.append((time.perf_counter() - t0, mb))
            print(f"  t {out[-1][0]:5.0f} s  server RSS {mb:6.0f} MB", flush=True)
        await asyncio.sleep(every)


def start_server(port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "heuri", "serve", "--lang", "es", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    t0 = time.time()
    while time.time() - t0 < 300:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/info", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(1)
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {proc.stdout.read()}")
    proc.kill()
    raise SystemExit("the server did not answer within 300 s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", help="a running server (default: start one on --port)")
    ap.add_argument("--port", type=int, default=8799)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--pid", type=int, help="the server's process id, for its RSS (with --url)")
    ap.add_argument("--every", type=float, default=15, help="seconds between two RSS readings (default 15)")
    ap.add_argument("--vary", action=argparse.BooleanOptionalAction, default=True,
                    help="a random engine and k for each best (default; --no-vary: the defaults)")
    a = ap.parse_args()
    cgps = positions(a.positions)
    proc = None
    url = a.url
    if url is None:
        proc = start_server(a.port)
        url = f"http://127.0.0.1:{a.port}"
    try:
        # one pass first: every position's answers once (the server's first calls page in the pack)
        with httpx.Client(base_url=url, timeout=60) as c:
            for cgp in cgps[:10]:
                c.post("/api/best", json={"lang": "es", "cgp": cgp})
        lat: dict = {"moves": [], "best": []}
        errors: list = []
        rss: list = []
        pid = proc.pid if proc is not None else a.pid
        if pid:
            print(f"server RSS before the load: {rss_mb(pid):.0f} MB")
        cpu0 = cpu_s(pid) if pid else None
        until = time.perf_counter() + a.seconds

        async def run():
            jobs = [client(url, cgps, k * 7, until, lat, errors, a.vary) for k in range(a.clients)]
            if pid:
                jobs.append(watch_rss(pid, until, a.every, rss))
            await asyncio.gather(*jobs)

        t0 = time.perf_counter()
        asyncio.run(run())
        wall = time.perf_counter() - t0
        cpu1 = cpu_s(pid) if pid else None
        if pid:
            end = rss_mb(pid)
            if end is not None:
                rss.append((wall, end))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    n = sum(len(v) for v in lat.values())
    print(f"{a.clients} clients, {wall:.1f} s, {len(cgps)} Spanish midgame positions, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{n} answers ({n / wall:.1f} a second), {len(errors)} errors; best: "
          f"{'a random engine and k each' if a.vary else 'the default engine and k'}")
    if cpu0 is not None and cpu1 is not None and n:
        print(f"server CPU: {cpu1 - cpu0:.1f} s, {(cpu1 - cpu0) / n * 1000:.1f} ms an answer "
              f"({(cpu1 - cpu0) / wall:.2f} cores busy on average)")
    if rss:
        print(f"server RSS: {rss[0][1]:.0f} MB at the start, {max(m for _, m in rss):.0f} MB at most, "
              f"{rss[-1][1]:.0f} MB after {rss[-1][0]:.0f} s (target: ≤ 1024 MB after 5 minutes)")
    for name, target in (("moves", "median ≤ 100 ms"),
                         ("best", "p90 ≤ 500 ms" if a.vary else "median ≤ 150 ms")):
        v = sorted(lat[name])
        if not v:
            print(f"{name}: no answers")
            continue
        med = statistics.median(v) * 1000
        p90 = v[int(0.9 * (len(v) - 1))] * 1000
        print(f"{name:>5}: {len(v)} answers, median {med:.0f} ms, p90 {p90:.0f} ms, max {v[-1] * 1000:.0f} ms "
              f"(target: {target})")
    for e in errors[:5]:
        print("error:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
    sys.exit(main())

#!/usr/bin/env bash
# Times `grep -c reconcileID`, `reconscope stats`, `reconscope analyze` and
# `reconscope analyze --json` on the same file, interleaved runs, and prints
# for each the best and median time, the median CPU time (user + system,
# from wait4) and the peak memory (max RSS), then the ratios (`stats` to
# grep, the analyses to `stats`), the peaks against the file's size, the
# medians of the steps that `--timings` names for `stats` and
# `analyze --json`, and the load average before and after.
#   scripts/ratio.sh [FILE] [RUNS]   (default: a generated 256 MiB kamaji log, 10 runs)
set -euo pipefail
source "$(dirname "$0")/common.sh"
file="${1:-target/gen256.log}"
runs="${2:-10}"
cargo build --release --quiet --bin reconscope
if [[ ! -f "$file" ]]; then
    cargo run --release --quiet --example gen_kamaji_log -- "$file" 256
fi
python3 - "$file" "$runs" <<'PY'
import os, subprocess, sys, tempfile, time, statistics
f, runs = sys.argv[1], int(sys.argv[2])
size = os.path.getsize(f)
bin = "target/release/reconscope"
cmds = {
    "grep -c": ["grep", "-c", "reconcileID", f],
    "stats": [bin, "stats", "--timings", f],
    "analyze": [bin, "analyze", f],
    "analyze --json": [bin, "analyze", "--json", "--timings", f],
}
load_before = os.getloadavg()
t = {c: [] for c in cmds}
cpu = {c: [] for c in cmds}
steps = {c: {} for c in cmds}
rss = {c: 0 for c in cmds}
for _ in range(runs):
    for c, args in cmds.items():
        s = time.perf_counter()
        # (GNU grep stops at its first match when its output is /dev/null.)
        out = tempfile.TemporaryFile() if args[0] == "grep" else subprocess.DEVNULL
        p = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE)
        err = p.stderr.read().decode()
        _, status, usage = os.wait4(p.pid, 0)
        t[c].append(time.perf_counter() - s)
        assert os.waitstatus_to_exitcode(status) == 0, c
        cpu[c].append(usage.ru_utime + usage.ru_stime)
        rss[c] = max(rss[c], usage.ru_maxrss * 1024)
        # `reconscope: timings: read and parse 0.212 s, analysis 0.157 s, ... (in all ...)`
        for line in err.splitlines():
            if line.startswith("reconscope: timings: "):
                for part in line[len("reconscope: timings: "):].split(" (")[0].split(", "):
                    name, secs, _ = part.rsplit(" ", 2)
                    steps[c].setdefault(name, []).append(float(secs))
load_after = os.getloadavg()
print(f"input {size / 2**20:.0f} MiB, {runs} runs each")
for c, v in t.items():
    print(f"{c:15} best {min(v):.2f} s  median {statistics.median(v):.2f} s  cpu {statistics.median(cpu[c]):.2f} s  peak {rss[c] / 2**20:.0f} MiB ({rss[c] / size:.2f}x the input)")
def ratio(a, b):
    print(f"{a}/{b}: best {min(t[a])/min(t[b]):.2f}x  median {statistics.median(t[a])/statistics.median(t[b]):.2f}x")
ratio("stats", "grep -c")
for c in ("analyze", "analyze --json"):
    ratio(c, "stats")
print(f"stats: {size / 1e6 / statistics.median(t['stats']):.0f} MB/s median, {size / 1e6 / min(t['stats']):.0f} MB/s best")
for c in ("stats", "analyze --json"):
    print(f"{c} steps (--timings, medians): " + ", ".join(f"{n} {statistics.median(v):.3f} s" for n, v in steps[c].items()))
print("load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in load_before) + "; after: " + ", ".join(f"{x:.2f}" for x in load_after))
PY

# Shared by scripts/*.sh (sourced, not run). Puts the repository root in the
# working directory and the tools the build uses first on PATH.

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

# Tools from `cargo install` (trunk, wasm-bindgen) live in ~/.cargo/bin, and
# wasm-opt comes from the npm package binaryen installed in tests/browser
# (Debian's binaryen is too old to read current rustc output).
export PATH="$ROOT/tests/browser/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Versions that are known to work together here (see the TOOLCHAIN notes).
TRUNK_VERSION=0.21.14
# cargo-fuzz for fuzz/ (about 40 s to install on 2 cores).
CARGO_FUZZ_VERSION=0.13.2

# A progress line: `==> [12s] message` (seconds since the script started).
say() { printf '==> [%3ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The wasm-bindgen version pinned in Cargo.lock; the CLI must match it exactly.
wasm_bindgen_version() {
    awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/^version = "|"$/, ""); print; exit }' Cargo.lock
}

# Prints a free TCP port on 127.0.0.1 (the kernel picks it).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# True when something already listens on 127.0.0.1:$1.
port_in_use() {
    python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
s.settimeout(0.5)
sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)
PY
}

# Waits up to ~10 s until http://127.0.0.1:$1/ answers.
wait_for_http() {
    python3 - "$1" <<'PY'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/"
for _ in range(100):
    try:
        urllib.request.urlopen(url, timeout=1).read()
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(f"no answer from {url}")
PY
}

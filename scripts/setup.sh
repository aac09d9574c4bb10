#!/usr/bin/env bash
# Installs whatever the build and the tests need and is missing, and skips
# what is already there (a few seconds when everything is installed).
# Only package registries are used: crates.io, npm and Debian.
#
#   scripts/setup.sh               everything (what `make test` needs)
#   scripts/setup.sh --no-browser  skip Chromium (what `make serve` needs)
#
# Non-interactive, for CI (runs as root there).
set -euo pipefail
source "$(dirname "$0")/common.sh"

with_browser=1
case "${1:-}" in
    --no-browser) with_browser=0 ;;
    "") ;;
    *) die "usage: scripts/setup.sh [--no-browser]" ;;
esac

# cargo install without --locked, as a fallback, for crates whose lock file
# names a dependency version missing from the registry.
cargo_install() {
    local crate=$1 version=$2
    say "installing $crate $version with cargo install (takes minutes, once)"
    if ! cargo install "$crate" --version "$version" --locked; then
        say "cargo install --locked failed; retrying without --locked"
        cargo install "$crate" --version "$version"
    fi
}

say "setup: checking tools"

# 1. The Rust target for the browser build.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding rustup target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

# 2. Every crate for every target, so later builds can run with --offline.
#    This also writes Cargo.lock if there is none yet.
if [[ -f Cargo.lock ]]; then
    cargo fetch --locked --quiet
else
    cargo fetch --quiet
fi
# (The fuzz targets are a workspace of their own, with their own lock.)
cargo fetch --locked --quiet --manifest-path fuzz/Cargo.toml

# 3. trunk, the wasm app builder.
if [[ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]]; then
    cargo_install trunk "$TRUNK_VERSION"
fi

# 4. wasm-bindgen CLI at exactly the version in Cargo.lock; with any other
#    version trunk would try to download one from the internet, and fail.
wb_version=$(wasm_bindgen_version)
[[ -n "$wb_version" ]] || die "wasm-bindgen is missing from Cargo.lock"
if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $wb_version" ]]; then
    cargo_install wasm-bindgen-cli "$wb_version"
fi

# 5. Node.js for the browser tests and wasm-opt (normally preinstalled).
if ! command -v npm >/dev/null; then
    say "installing nodejs and npm from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi

# 6. npm packages: playwright-core (drives Chromium) and binaryen (wasm-opt).
#    Never `npx playwright install`: it downloads a browser from elsewhere.
stamp=tests/browser/node_modules/.package-lock.json
if [[ ! -f "$stamp" || tests/browser/package-lock.json -nt "$stamp" ]]; then
    say "installing npm packages in tests/browser (npm ci)"
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi

# 7. Chromium and its driver from Debian, for the browser tests only.
if [[ $with_browser == 1 && ! -x /usr/bin/chromium ]]; then
    say "installing chromium and chromium-driver from Debian (about a minute)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
fi

# 8. A font for the CLI's --png (and its tests): the SVG asks for DejaVu Sans.
if [[ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]]; then
    say "installing fonts-dejavu-core from Debian (for --png)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core
fi

# 9. cargo-fuzz, for the fuzz smoke run of `make test` (scripts/fuzz.sh).
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo_install cargo-fuzz "$CARGO_FUZZ_VERSION"
fi

say "setup: ready ($(trunk --version), $(wasm-bindgen --version), wasm-opt $(wasm-opt --version | awk '{print $3}'))"

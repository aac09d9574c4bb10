#!/usr/bin/env bash
# `make serve`: builds the web app into dist/ and serves it on
# http://127.0.0.1:8080/ (PORT=... to change). Ctrl-C stops it.
#
# This serves exactly what `make test` tests, with a plain static server:
# `trunk serve` would add its own CSP header and an inline auto-reload
# script, which the page's strict CSP rejects.
set -euo pipefail
source "$(dirname "$0")/common.sh"

PORT=${PORT:-8080}

bash scripts/setup.sh --no-browser

if port_in_use "$PORT"; then
    die "port $PORT on 127.0.0.1 is already in use; stop that server or run: make serve PORT=8081"
fi

say "building dist/ (trunk build --release)"
trunk build --release --offline --locked

say "serving dist/ at http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist

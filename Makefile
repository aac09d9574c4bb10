# reconscope: two commands do everything.
#   make serve   build the web app and serve it on http://127.0.0.1:8080/
#   make test    native tests, clippy (native + wasm), cargo fmt --check, trunk build, browser tests
# Both first run scripts/setup.sh, which installs whatever is missing (rustup
# target, trunk, wasm-bindgen-cli, npm packages, Chromium) and takes seconds
# when everything is already installed.

SHELL := /bin/bash
PORT ?= 8080

.PHONY: serve test setup build clean

serve:
	PORT=$(PORT) bash scripts/serve.sh

test:
	bash scripts/test.sh

# Install the tools only.
setup:
	bash scripts/setup.sh

# Build dist/ without serving it.
build:
	bash scripts/setup.sh --no-browser
	source scripts/common.sh && trunk build --release --offline --locked

clean:
	cargo clean
	rm -rf dist tests/browser/screenshots

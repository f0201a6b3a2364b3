#!/usr/bin/env bash
# Install what the browser tests need, only where it is missing:
#   - Debian's chromium (/usr/bin/chromium), with apt-get (needs root, as on CI);
#   - Playwright for Python into the venv, pinned in requirements-e2e.txt.
# Playwright's own browser download (`playwright install`) is never used.
# Usage: scripts/e2e_setup.sh [VENV_BIN]   (default: .venv/bin)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-.venv/bin}"

if [ ! -x /usr/bin/chromium ]; then
    echo "e2e setup: installing Debian's chromium"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi

want="$(grep -E '^playwright==' requirements-e2e.txt | cut -d= -f3)"
have="$("$BIN/python" -c 'from importlib.metadata import version; print(version("playwright"))' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
    echo "e2e setup: installing playwright $want into $BIN"
    "$BIN/python" -m pip install --quiet -r requirements-e2e.txt
fi

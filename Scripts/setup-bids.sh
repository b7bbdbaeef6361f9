#!/usr/bin/env bash
# Installs the tools the Eye-Tracking-BIDS tests check exports with, none of them ours: the BIDS
# schema validator (PyPI's bids-validator-deno, which brings the deno runtime as a wheel) and the
# pybids reader, into a Python virtual environment at .build-bids/venv (ignored by git).
# Idempotent and quick when they are installed (the test suite runs it every time). When they
# cannot be installed it says so and exits 0: the BIDS tests then skip, naming this script.
set -uo pipefail
cd "$(dirname "$0")/.."
venv=".build-bids/venv"
requirements="bids-validator-deno==3.0.2 pybids==0.22.0"
stamp="$venv/installed.txt"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$requirements" ] && [ -x "$venv/bin/bids-validator-deno" ]; then
  exit 0
fi
echo "gazerec setup: installing the BIDS validator and pybids into $venv" >&2
rm -f "$stamp"
if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2; } \
   || ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $requirements >&2; then
  echo "gazerec setup: could not install $requirements; the BIDS validation tests will skip" >&2
  exit 0
fi
echo "$requirements" > "$stamp"
echo "gazerec setup: installed $requirements in $venv" >&2

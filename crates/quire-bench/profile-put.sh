#!/usr/bin/env bash
# Profiles the writing phase of `quire-bench put` only (docs/PERFORMANCE.md):
#   crates/quire-bench/profile-put.sh BINARY OUT.data SECONDS [put options…]
# Runs `BINARY put …`, waits for it to say "writing" on stderr, then attaches
# `perf record` to it for SECONDS. PERF_OPTS overrides the recording options
# (default `-F 999 -g`; `-F 299 --call-graph dwarf,32768` for Rust call stacks).
set -euo pipefail
bin=$1; out=$2; secs=$3; shift 3
err=$(mktemp)
"$bin" put "$@" 2>"$err" &
pid=$!
until grep -q "writing" "$err" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; exit 1; }
  sleep 0.02
done
# shellcheck disable=SC2086
perf record ${PERF_OPTS:--F 999 -g} -p "$pid" -o "$out" -- sleep "$secs" 2>/dev/null
wait "$pid"
rm -f "$err"

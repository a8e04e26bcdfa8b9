#!/usr/bin/env python3
"""Checks that the fuzz workspace builds its dependencies as the main workspace does: the same
versions (fuzz/Cargo.lock against Cargo.lock) and the same features (the pins in
fuzz/Cargo.toml), so that `cargo build --manifest-path fuzz/Cargo.toml` in the main target
directory reuses what `cargo test --workspace` built. Prints each difference and exits 1 when
there is one; windows-only crates are not built here and are left out.

    python3 fuzz/features.py
"""

import json
import pathlib
import subprocess
import sys
import tomllib

REPO = pathlib.Path(__file__).resolve().parent.parent
# Fuzzing's own crates, which the main workspace has no use for.
OWN = {"afl", "arbitrary", "libfuzzer-sys", "quire-fuzz", "xdg"}
NOT_BUILT_HERE = ("windows",)


def host():
    out = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    return next(l.split(": ", 1)[1] for l in out.splitlines() if l.startswith("host: "))


def resolved(manifest):
    # Only this machine's target: features that a dependency turns on for another target
    # (wasm's `js`, Windows' APIs) are not built here, and the resolver leaves them off.
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--manifest-path", str(manifest),
         "--filter-platform", host()],
        check=True, capture_output=True, text=True,
    ).stdout
    nodes = json.loads(out)["resolve"]["nodes"]
    return {n["id"]: sorted(n["features"]) for n in nodes}


def locked(lock):
    packages = tomllib.loads(lock.read_text())["package"]
    return {(p["name"], p["version"]) for p in packages}


def main():
    problems = []
    root_lock = locked(REPO / "Cargo.lock")
    for name, version in sorted(locked(REPO / "fuzz" / "Cargo.lock") - root_lock):
        if name not in OWN:
            problems.append(f"{name} {version}: not the version of the root Cargo.lock")
    main_features = resolved(REPO / "Cargo.toml")
    for package, features in sorted(resolved(REPO / "fuzz" / "Cargo.toml").items()):
        short = package.rsplit("#", 1)[-1]
        if short.startswith(NOT_BUILT_HERE) or package not in main_features:
            continue
        if main_features[package] != features:
            problems.append(f"{short}: features {features}, the main workspace's {main_features[package]}")
    for problem in problems:
        print(problem)
    if problems:
        print("fuzz/: copy Cargo.lock to fuzz/Cargo.lock and adjust the feature pins of fuzz/Cargo.toml")
        sys.exit(1)
    print("fuzz/: the dependencies' versions and features are the main workspace's")


if __name__ == "__main__":
    main()

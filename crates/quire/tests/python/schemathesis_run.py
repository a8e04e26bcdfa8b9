"""Schemathesis (PyPI) over quire's whole OpenAPI document, against the real binary (issue 25,
part 4): the examples, coverage, fuzzing and stateful phases, once without authentication and
once with `[auth] type = "apikey"` and the key sent. The check is `not_a_server_error`: a 5xx
is a failure unless the operation declares that status (the spec's 501/503 of a subsystem
that is off or not built), so the per-operation expected statuses are written from the
document itself. After each run the server must still answer and must not have panicked.

Left out of the run: `GET /events` (a stream that never ends) and `POST /api/spaces` (its
root is by design any folder of the machine; its own tests cover it).

Usage: schemathesis_run.py --quire BIN [--seconds N] [--workdir DIR]
Exit status 0 when both runs found no unexpected server error.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

KEY = "schemathesis-key-1"
EXCLUDED = ["events", "space_add"]


def start(quire, root):
    """`quire serve` on a free port; its base host URL and its process (log kept)."""
    process = subprocess.Popen(
        [quire, "serve", "--root", root, "--port", "0", "--mcp-port", "0", "--no-mcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "QUIRE_LOG": "info"},
    )
    log = []
    found = threading.Event()
    host = {}

    def read():
        for line in process.stderr:
            log.append(line)
            match = re.search(r"serving .*?(http://\S+)", line)
            if match and not found.is_set():
                host["url"] = match.group(1).removesuffix("/api/quire")
                found.set()

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(60):
        process.kill()
        sys.exit("the server did not print its address:\n" + "".join(log))
    return host["url"], process, log


def fetch(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status, answer.read()


def config_for(document, path):
    """A schemathesis configuration: each operation expects the 5xx statuses it declares."""
    lines = []
    for item in document["paths"].values():
        for operation in item.values():
            declared = sorted(s for s in operation.get("responses", {}) if s.startswith("5"))
            if not declared:
                continue
            statuses = ", ".join(f'"{s}"' for s in ["2xx", "3xx", "4xx", *declared])
            lines += [
                "[[operations]]",
                f'include-operation-id = "{operation["operationId"]}"',
                f"checks.not_a_server_error.expected-statuses = [{statuses}]",
                "",
            ]
    with open(path, "w") as out:
        out.write("\n".join(lines))


def run(quire, workdir, name, seconds, auth):
    root = os.path.join(workdir, name)
    os.makedirs(os.path.join(root, "notes"))
    with open(os.path.join(root, "notes", "alpha.md"), "w") as page:
        page.write("---\nstatus: open\ntags: [a]\n---\n# Alpha\n\nSee [[beta]].\n")
    with open(os.path.join(root, "notes", "beta.md"), "w") as page:
        page.write("# Beta\n\nBack to [[alpha]].\n")
    subprocess.run([quire, "init", root], check=True, capture_output=True)
    headers = {}
    if auth:
        # The whole configuration: `quire init`'s template has an `[auth]` table already.
        with open(os.path.join(root, ".quire", "config.toml"), "w") as config:
            config.write(f'[auth]\ntype = "apikey"\napi_key = "{KEY}"\n')
        headers = {"Authorization": f"Bearer {KEY}"}
    host, process, log = start(quire, root)
    try:
        _, body = fetch(f"{host}/api/openapi.json", headers)
        document = json.loads(body)
        config = os.path.join(workdir, f"{name}.toml")
        config_for(document, config)
        command = [
            "schemathesis",
            "--config-file", config,
            "run", f"{host}/api/openapi.json",
            "--phases", "examples,coverage,fuzzing,stateful",
            "--checks", "not_a_server_error",
            "--max-time", str(seconds),
            "--request-timeout", "30",
            "--workers", "1",
            "--seed", "25",
            "--no-color",
        ]
        for operation_id in EXCLUDED:
            command += ["--exclude-operation-id", operation_id]
        for header, value in headers.items():
            command += ["--header", f"{header}: {value}"]
        print(f"== {name}: {' '.join(command)}", flush=True)
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        output = result.stdout + result.stderr
        summary = output[output.rfind("SUMMARY") - 40:] if "SUMMARY" in output else output[-4000:]
        print(summary, flush=True)
        print(f"== {name}: {time.monotonic() - started:.0f} s, exit {result.returncode}", flush=True)
        problems = []
        if result.returncode != 0:
            failures = output[: output.find("SUMMARY")] if "SUMMARY" in output else output
            problems.append(f"schemathesis found failures:\n{failures[-20000:]}")
        status, _ = fetch(f"{host}/healthz")
        if status != 200:
            problems.append(f"the server stopped answering ({status})")
        if any("panicked" in line for line in log):
            problems.append("the server panicked:\n" + "".join(log[-200:]))
        return problems
    finally:
        process.kill()
        process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quire", required=True)
    parser.add_argument("--seconds", type=int, default=90, help="budget of each of the two runs")
    parser.add_argument("--workdir")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="quire-schemathesis-")
    problems = []
    for name, auth in (("open", False), ("keyed", True)):
        problems += [f"[{name}] {p}" for p in run(args.quire, workdir, name, args.seconds, auth)]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""MCP with the official Python SDK (`mcp` on PyPI) against the real quire binary.

Run by crates/quire/tests/mcp_sdk.rs, which seeds the roots, starts the servers and passes
their addresses. What a real client sees is checked against the MCP 2025-11-25 specification:

* every tool is listed with valid input and output JSON Schemas;
* a representative call of each area answers structured content that validates against the
  tool's `outputSchema`, and a text content that carries the result itself (the JSON of the
  structured content, or the file a read returns, or every path the result names), so a host
  that shows the model only text loses nothing; an error's text is its message;
* the same over streamable HTTP (`quire serve`), stdio (`quire mcp`) and the stdio relay to a
  server holding the root; a relay the server refuses answers `initialize` with an error
  naming QUIRE_API_KEY; a resource URI with a broken escape is an error, not a crash.

Exits 1 listing every problem found. Works with the SDK's 1.x (>= 1.20) and 2.x lines.
"""

import argparse
import json
import sys

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # 2.x, and late 1.x
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # 1.20 …
    from mcp.client.streamable_http import streamablehttp_client as http_client
try:
    from mcp import MCPError as SdkError
except ImportError:
    from mcp.shared.exceptions import McpError as SdkError

# Tools still declared by hand in crates/quire-mcp/src/tools/ (not yet generated from the
# operation table): their text is a summary and they declare no outputSchema. Remove a tool
# here once its area is converted; a tool listed here that passes fails the run, so this list
# cannot go stale.
PENDING: set = set()

OK, ERROR = "ok", "error"
DRAFT = "$draft"  # replaced by the id quire_draft_create answered

CANVAS = {
    "nodes": [
        {"id": "n1", "type": "file", "file": "notes/alpha.md", "x": 0, "y": 0, "width": 400,
         "height": 200},
        {"id": "n2", "type": "text", "text": "Why", "x": 500, "y": 0, "width": 200,
         "height": 80},
    ],
    "edges": [{"id": "e1", "fromNode": "n2", "toNode": "n1"}],
}

# (tool, arguments, outcome), in order: later calls use what earlier ones wrote.
CASES = [
    ("quire_write", {"path": "sdk/one.md", "content": "# One\n\nSee [[alpha]].\n"}, OK),
    ("quire_read", {"path": "sdk/one.md"}, OK),
    ("quire_read", {"path": "notes/alpha.md", "metadata_only": True}, OK),
    ("quire_read", {"path": "nowhere.md"}, ERROR),
    ("quire_append", {"path": "sdk/one.md", "content": "more"}, OK),
    ("quire_bulk_write", {"files": [{"path": "sdk/two.md", "content": "# Two\n"},
                                    {"path": "sdk/three.md", "content": "# Three\n"}]}, OK),
    ("quire_write", {"path": "../escape.md", "content": "x"}, ERROR),
    ("quire_tree", {}, OK),
    ("quire_tree", {"path": "sdk"}, OK),
    ("quire_versions", {"path": "notes/alpha.md"}, OK),
    ("quire_changes", {"limit": 5}, OK),
    ("quire_timeline", {"limit": 5}, OK),
    ("quire_feed", {"limit": 5}, OK),
    ("quire_claim", {"path": "notes/beta.md"}, OK),
    ("quire_claims_list", {}, OK),
    ("quire_release", {"path": "notes/beta.md"}, OK),
    ("quire_search", {"q": "alpha"}, OK),
    ("quire_search", {"q": "(unclosed"}, ERROR),
    ("quire_query", {"q": 'TABLE status FROM "notes"'}, OK),
    ("quire_query_meta", {"where": 'status = "open"'}, OK),
    ("quire_aggregate", {"group": "status"}, OK),
    ("quire_backlinks", {"path": "notes/alpha.md"}, OK),
    ("quire_graph_analytics", {}, OK),
    ("quire_graph_centrality", {"sample": 5}, OK),
    ("quire_graph_communities", {}, OK),
    ("quire_graph_path", {"from": "notes/alpha.md", "to": "notes/beta.md"}, OK),
    ("quire_graph_walk", {"path": "notes/alpha.md"}, OK),
    ("quire_peek", {"path": "notes/alpha.md"}, OK),
    ("quire_section", {"path": "notes/alpha.md", "heading": "Part"}, OK),
    ("quire_lint", {"content": "[[missing page]]"}, OK),
    ("quire_context", {}, OK),
    ("quire_analytics", {}, OK),
    ("quire_health_check", {"path": "notes/alpha.md"}, OK),
    ("quire_eligible", {"limit": 5}, OK),
    ("quire_velocity", {"period": "7d"}, OK),
    ("quire_memory_report", {}, OK),
    ("quire_eval", {"queries": [{"question": "alpha", "expected_paths": ["notes/alpha.md"]}]},
     OK),
    ("quire_views_save", {"name": "open", "view": {"query": 'TABLE status FROM "notes"'}}, OK),
    ("quire_views_list", {}, OK),
    ("quire_views_get", {"name": "open"}, OK),
    ("quire_views_execute", {"name": "open"}, OK),
    ("quire_views_delete", {"name": "open"}, OK),
    ("quire_draft_create", {}, OK),
    ("quire_draft_list", {}, OK),
    ("quire_draft_write", {"id": DRAFT, "path": "sdk/draft.md", "content": "# Draft\n"}, OK),
    ("quire_draft_read", {"id": DRAFT, "path": "sdk/draft.md"}, OK),
    ("quire_draft_diff", {"id": DRAFT}, OK),
    ("quire_draft_discard", {"id": DRAFT}, OK),
    ("quire_workflow_save",
     {"name": "flow", "workflow": {"states": [{"name": "todo"}, {"name": "done"}]}}, OK),
    ("quire_workflow_list", {}, OK),
    ("quire_workflow_get", {"name": "flow"}, OK),
    ("quire_workflow_board", {"name": "flow"}, OK),
    ("quire_canvas_write", {"path": "maps/plan.canvas.json", "canvas": CANVAS}, OK),
    ("quire_canvas_list", {}, OK),
    ("quire_canvas_read", {"path": "maps/plan.canvas.json"}, OK),
    ("quire_refactor_plan",
     {"manifest": {"moves": [{"from": "sdk/two.md", "to": "sdk/archive/two.md"}]}}, OK),
    ("quire_rename", {"from": "sdk/three.md", "to": "sdk/four.md"}, OK),
    ("quire_delete", {"path": "sdk/four.md"}, OK),
    ("quire_delete", {"path": "sdk/four.md"}, ERROR),
]


def wire(model):
    """A result or tool as it travels (camelCase keys), whatever the SDK's field names."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def strings_at(value, key):
    """Every string under `key` anywhere in `value`."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, str):
                yield v
            else:
                yield from strings_at(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from strings_at(v, key)


def carries(text, structured):
    """Whether `text` gives a reader of text alone the result `structured`."""
    try:
        if json.loads(text) == structured:
            return True
    except ValueError:
        pass
    if isinstance(structured, dict) and isinstance(structured.get("content"), str):
        return structured["content"] in text  # a read: the text is the file
    paths = list(strings_at(structured, "path"))
    return bool(paths) and all(p in text for p in paths)


def schema_problem(schema):
    """Why `schema` is not a JSON Schema an MCP client can use, or None."""
    try:
        validator = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
        validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        return f"invalid JSON Schema: {e.message}"
    if schema.get("type") != "object":
        return f"type is {schema.get('type')!r}, not 'object'"
    return None


def validation_problem(instance, schema):
    validator_class = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(instance))
    if error is None:
        return None
    return f"{error.message} at {'/'.join(map(str, error.absolute_path)) or 'the top'}"


class Run:
    """Problems found, by transport."""

    def __init__(self):
        self.problems = []
        self.pending_seen = {}  # tool -> whether every call of it passed

    def problem(self, where, message):
        self.problems.append(f"[{where}] {message}")


async def search_ready(session):
    """Search and DQL answer 503 until the first index pass ended."""
    for _ in range(200):
        result = wire(await session.call_tool("quire_search", {"q": "alpha"}))
        if not result.get("isError"):
            return
        await anyio.sleep(0.1)
    raise RuntimeError("search never became ready")


async def check_tools(session, where, run):
    """Lists every tool and calls the representative set, checking each answer."""
    tools = {t["name"]: t for t in (wire(t) for t in (await session.list_tools()).tools)}
    if len(tools) < 40:
        run.problem(where, f"only {len(tools)} tools listed")
    for name, tool in tools.items():
        problem = schema_problem(tool.get("inputSchema", {}))
        if problem:
            run.problem(where, f"{name}: inputSchema: {problem}")
        if "outputSchema" in tool:
            problem = schema_problem(tool["outputSchema"])
            if problem:
                run.problem(where, f"{name}: outputSchema: {problem}")
    await search_ready(session)
    draft = None
    called = set()
    for name, args, outcome in CASES:
        if name not in tools:
            run.problem(where, f"{name} is not listed")
            continue
        args = {k: (draft if v == DRAFT else v) for k, v in args.items()}
        called.add(name)
        result = wire(await session.call_tool(name, args))
        failed = bool(result.get("isError"))
        label = f"{name} {json.dumps(args)[:80]}"
        if failed != (outcome == ERROR):
            run.problem(where, f"{label}: expected {outcome}, got {result}")
            continue
        structured = result.get("structuredContent")
        texts = [c["text"] for c in result.get("content", []) if c.get("type") == "text"]
        if structured is None or not texts:
            run.problem(where, f"{label}: no structured content or no text: {result}")
            continue
        if failed:
            if not any(structured.get("error", "\0") in t for t in texts):
                run.problem(where, f"{label}: the error's text is not its message: {result}")
            continue
        if name == "quire_draft_create":
            draft = structured["id"]
        ok = check_success(where, label, tools[name], structured, texts, run, name in PENDING)
        if name in PENDING:
            run.pending_seen[name] = run.pending_seen.get(name, True) and ok
    unlisted = sorted(set(tools) - called)
    print(f"[{where}] {len(tools)} tools listed, {len(called)} called; not called: "
          f"{', '.join(unlisted)}")


def check_success(where, label, tool, structured, texts, run, pending):
    """The checks of a successful answer; problems of a pending tool are only counted."""
    found = []
    if not any(carries(t, structured) for t in texts):
        found.append(f"its text does not carry the result: {texts[0][:120]!r}")
    schema = tool.get("outputSchema")
    if schema is None:
        found.append("answers structured content but declares no outputSchema")
    else:
        problem = validation_problem(structured, schema)
        if problem:
            found.append(f"structured content does not validate against outputSchema: {problem}")
    if not pending:
        for problem in found:
            run.problem(where, f"{label}: {problem}")
    return not found


async def over_http(url, run):
    async with http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            init = wire(await session.initialize())
            if init.get("serverInfo", {}).get("name") != "quire":
                run.problem("http", f"initialize answered {init}")
            await check_tools(session, "http", run)
            await check_resources(session, "http", run)


def stdio_params(quire, root, env=None):
    return StdioServerParameters(command=quire, args=["mcp", "--root", root],
                                 env={"QUIRE_LOG": "error", **(env or {})})


async def over_stdio(quire, root, run):
    async with stdio_client(stdio_params(quire, root)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await check_tools(session, "stdio", run)
            await check_resources(session, "stdio", run)


async def check_resources(session, where, run):
    """A URI with a broken escape is an error answer; the session goes on."""
    for uri in ["quire://file/%aé.md", "quire://file/%C3.md"]:
        try:
            await session.read_resource(uri)
            run.problem(where, f"reading {uri} succeeded")
        except SdkError as e:
            if e.error.code != -32002:  # MCP's "resource not found"
                run.problem(where, f"reading {uri} answered {e.error.code}: {e}")
        except Exception as e:  # a 1.x SDK refusing the URI itself is no server problem
            print(f"[{where}] the SDK did not send {uri}: {e!r}")
    read = wire(await session.read_resource("quire://file/notes/alpha.md"))
    if "# Alpha" not in read["contents"][0].get("text", ""):
        run.problem(where, f"the session did not go on: {read}")


async def over_relay(quire, root, run):
    """`quire mcp` on a root a server holds relays to it."""
    async with stdio_client(stdio_params(quire, root)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = wire(await session.call_tool("quire_read", {"path": "notes/alpha.md"}))
            structured = result.get("structuredContent", {})
            if structured.get("path") != "notes/alpha.md" or not carries(
                    result["content"][0]["text"], structured):
                run.problem("relay", f"quire_read through the relay answered {result}")


def leaves(error):
    """The exceptions inside (nested) exception groups."""
    inner = getattr(error, "exceptions", None)
    if inner is None:
        return [error]
    return [leaf for e in inner for leaf in leaves(e)]


async def relay_refused(quire, root, run):
    """A relay to a server wanting a key, none set: `initialize` is answered with an error
    that names QUIRE_API_KEY and `quire token create`."""
    message = None
    try:
        with anyio.fail_after(60):
            async with stdio_client(stdio_params(quire, root)) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
    except SdkError as e:
        message = str(e)
    except BaseException as e:  # anyio wraps what its task groups raised, maybe twice
        found = [x for x in leaves(e) if isinstance(x, SdkError)]
        if not found:
            run.problem("relay-refused", f"initialize failed without an MCP error: {e!r}")
            return
        message = str(found[0])
    if message is None:
        run.problem("relay-refused", "initialize succeeded without a key")
    elif "QUIRE_API_KEY" not in message or "quire token create" not in message:
        run.problem("relay-refused", f"the error does not say what to set: {message}")
    else:
        print(f"[relay-refused] {message}")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quire", required=True, help="the quire binary")
    parser.add_argument("--http", required=True, help="the MCP endpoint of a quire serve")
    parser.add_argument("--served-root", required=True, help="the root that server holds")
    parser.add_argument("--stdio-root", required=True, help="a root nobody holds")
    parser.add_argument("--keyed-root", required=True,
                        help="a root held by a server that wants a key")
    args = parser.parse_args()
    run = Run()
    await over_http(args.http, run)
    await over_stdio(args.quire, args.stdio_root, run)
    await over_relay(args.quire, args.served_root, run)
    await relay_refused(args.quire, args.keyed_root, run)
    for name, passed in sorted(run.pending_seen.items()):
        if passed:
            run.problem("pending", f"{name} passes every check now: remove it from PENDING")
    waiting = sorted(name for name, passed in run.pending_seen.items() if not passed)
    print(f"[pending] {len(waiting)} tools not generated from the operation table yet, whose "
          f"text or outputSchema is still missing: {', '.join(waiting)}")
    if run.problems:
        print(f"{len(run.problems)} problem(s):")
        for problem in run.problems:
            print(f"  {problem}")
        sys.exit(1)
    print("every check passed")


if __name__ == "__main__":
    anyio.run(main)

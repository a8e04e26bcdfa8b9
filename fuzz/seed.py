#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/seed-*) from the
repository's own fixtures and tests: restructuring fixture pages and manifests, the
frontmatter corpus shapes, render goldens, the queries and expressions of quire-query's
tests, plus hand-written hostile shapes. Run it from anywhere; it replaces every seed-*
file. Minimised corpora (min-*) that fuzzing runs add stay as they are.

    python3 fuzz/seed.py
"""

import ast
import hashlib
import json
import pathlib
import re

FUZZ = pathlib.Path(__file__).resolve().parent
REPO = FUZZ.parent
CORPUS = FUZZ / "corpus"


def rust_strings(path, pattern):
    """String literals matching `pattern` (a regex whose group 1 is a Rust "..." literal)."""
    text = path.read_text()
    out = []
    for m in re.finditer(pattern, text):
        literal = m.group(1)
        try:
            # Rust and Python escapes agree on what these tests use (\n, \t, \", \\, \u{..} aside).
            literal = re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda u: "\\U%08x" % int(u.group(1), 16), literal)
            out.append(ast.literal_eval(literal))
        except (ValueError, SyntaxError):
            continue
    return out


def write(target, items, limit=200_000):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("seed-*"):
        old.unlink()
    seen = set()
    total = 0
    for item in items:
        data = item if isinstance(item, bytes) else item.encode()
        if data in seen or len(data) > 16_384 or total + len(data) > limit:
            continue
        seen.add(data)
        total += len(data)
        name = hashlib.sha1(data).hexdigest()[:16]
        (folder / f"seed-{name}").write_bytes(data)
    print(f"{target}: {len(seen)} seeds, {total} bytes")


VAULT = REPO / "crates/quire-restructure/tests/fixtures/vault"
pages = [p.read_text() for p in sorted(VAULT.rglob("*.md"))]
goldens = [p.read_text() for p in sorted((REPO / "crates/quire-render/tests/golden").glob("*.md"))]
shapes = rust_strings(
    REPO / "crates/quire-restructure/tests/frontmatter_corpus.rs",
    r'\(\s*"[a-z]+",\s*("(?:[^"\\]|\\.)*"),?\s*\)',
)

HOSTILE_PAGES = [
    "[[a]] [[a|b]] [[a#h|c]] ![[img.png]] [[#Heading]] [[a\\|b]]",
    "[t](a%20b.md) [t](<a b.md>) [t](a.md \"title\") ![i](x.png) [t](a(b).md) [t](a\\(.md)",
    "[ref]: notes/a.md \"t\"\n[x][ref]\n",
    "```\n[[not a link]]\n```\n`[[code]]` $[[math]]$ %%[[comment]]%%\n<!-- [[html]] -->",
    "---\ntitle: x\nup: \"[[Parent]]\"\ntags: [a, b]\n---\n# H\n\ntext ^block\n\n## H2 #tag\n",
    "---\n---\n", "---\n...\n", "---\r\ntitle: crlf\r\n---\r\nbody\r\n",
    "# ü\n## ü\n### 日本語\nSetext\n===\nTwo\n---\n",
    "[[" * 50 + "]]" * 50, "[a](" * 200, "![" * 100, "`" * 300, "$$" * 50,
    "[t](C:x.md) [t](note:draft.md) [t](%3A.md) [t](a%3Ab.md)",
    "[t](%F0%9F%98%80.md) [t](%C3) [t](%ZZ) [t](%)",
    "\u2028[[x]]\u2029\ufeff[[y]]\u0085",
]
write("syntax_parse", pages + goldens + shapes + HOSTILE_PAGES)

YAML_SHAPES = [
    "---\ntitle: Hello\ntags: [a, \"b c\", 'd']\nn: 1\nf: 1.5\nd: 2024-01-05\n---\n",
    "---\naliases:\n  - One\n  - \"Two: x\"\n# c\nempty:\n---\n",
    "---\na: 007\nb: 0x1F\nc: .inf\nd: -.5\ne: 1e3\nf: +5\ng: -0\n---\n",
    "---\nt: true\nf: False\nn: ~\nNull: 1\ntrue: 2\n---\n",
    "---\nup: \"[[Projects]]\" # c\nx: C# and #1\n---\n",
    "---\nk: a\u00a0b\nl: a\u2028b\nm: \ufeffx\n---\n",
    "---\na: 1\na: 2\n---\n", "---\n\t a: 1\n---\n", "---\na:\tb\n---\n",
    "---\n" + "[" * 130 + "\n---\n", "---\n# " + "[" * 200 + "\n---\n",
    "---\n" + "k" * 1100 + ": x\n---\n",
    "---\nx: [a, [b]]\ny: {a: 1}\n---\n", "---\n- a\n- b\n---\n", "---\nplain\n---\n",
]
write("frontmatter", shapes + YAML_SHAPES + [p for p in pages if p.startswith("---")])

EDITS = [
    '#!{"set": {"title": "New", "tags": ["a", "b c"]}}\n' + shapes[0] if shapes else "",
    '#!{"unset": ["status"]}\n' + (shapes[2] if len(shapes) > 2 else ""),
    '#!{"set": {"status": "done"}}\n' + (shapes[3] if len(shapes) > 3 else ""),
    '#!{"set": {"x": "a\\u2028b", "y": {"k": [1, null]}}}\n---\ny: 1\n---\nbody',
    '#!{"set": {"new": true}}\nno frontmatter here\n',
]
write("frontmatter_edit", shapes + YAML_SHAPES + EDITS)

manifests = [p.read_text() for p in sorted((REPO / "crates/quire-restructure/tests/fixtures/manifests").glob("*.yaml"))]
MANIFESTS_JSON = [
    json.dumps({"moves": [{"from": "notes/a.md", "to": "archive/"}]}),
    json.dumps({"merges": [{"from": "notes/dup.md", "into": "archive/dup.md"}]}),
    json.dumps({"edits": [{"select": {"glob": "notes/*.md"}, "set": {"status": "done"}, "move_to": "done/{{ slug(title) }}.md"}]}),
    json.dumps({"moves": [{"from_regex": "notes/(.*)\\.md", "to": "n/$1.md"}], "now": "2024-01-02T03:04:05Z"}),
    json.dumps({"split": {"page": "notes/big.md", "level": 2}}),
    json.dumps({"rename_tags": [{"from": "a", "to": "b/c"}]}),
    json.dumps({"moves": [{"from": "../etc/passwd", "to": "x.md"}, {"from": "notes/", "to": "/abs/"}]}),
]
write("manifest", manifests + MANIFESTS_JSON)

query_tests = list((REPO / "crates/quire-query/tests").glob("*.rs")) + list((REPO / "crates/quire-query/src").rglob("*.rs"))
queries = []
exprs = []
for path in query_tests:
    for s in rust_strings(path, r'("(?:[^"\\\n]|\\.)*")'):
        if re.match(r"(?i)\s*(table|list|count|distinct)\b", s):
            queries.append(s)
        elif 2 <= len(s) <= 200 and re.search(r"[=<>+*()\[\].]", s):
            exprs.append(s)
QUERIES = [
    "TABLE WITHOUT ID file.name AS \"Name\", status FROM \"notes\" and #a WHERE n > 1 SORT file.mtime DESC LIMIT 5",
    "LIST FROM [[a]] or outgoing([[b]]) and -#c",
    "TABLE rows.file.name GROUP BY status AS s",
    "TABLE x FLATTEN file.tags AS x WHERE x != null",
    "DISTINCT file.tags", "COUNT FROM (\"a\" or (\"b\" and -(-#c)))",
    "TABLE (without) + 1", "LIST regexmatch(\"(a+)+$\", title)",
    "TABLE replace(replace(replace(\"aa\", \"a\", \"aaaaaaaa\"), \"a\", \"aaaaaaaa\"), \"a\", \"aaaaaaaa\")",
    "TABLE " + "(" * 120 + "1" + ")" * 120, "LIST FROM " + "(" * 120 + "#a" + ")" * 120,
    "TABLE x FLATTEN [1,2,3,4,5,6,7,8,9,10] AS a FLATTEN [1,2,3,4,5,6,7,8,9,10] AS b FLATTEN [1,2,3,4,5,6,7,8,9,10] AS c",
]
write("dql", queries + QUERIES)
EXPRS = [
    "not a = b and c or d", "!a = b", "-x - -1", "a - (b - c)", "x not in [1, 2,]", "[ [1], [[a]] ]",
    "fm[\"review-by\"].x", "(a).b", "lower(x).y", "1.x", "date(\"2024-01-02\") + dur(\"3 days\")",
    "date(now(), \"2006-01-02\")", "round(1.23456, 2)", "min(1, null, 3)", "string([1, [2]])",
    "replace(replace(\"aa\", \"a\", \"aaaa\"), \"a\", \"aaaa\")", "'{{' + title + '}}'",
    "{{title}}/{{ slug(fm.status) }}-{{date.year}}.md", "split(title, \"\")", "join(split(\"a,b\", \",\"), 1)",
    "length(" * 100 + "x" + ")" * 100, "1" + " + 1" * 150, "[[a] ]]", "in = and",
]
write("expr", exprs + EXPRS)

CANVASES = [
    (VAULT / "whiteboard.canvas.json").read_text(),
    json.dumps({"nodes": [{"id": "a", "type": "file", "file": "notes/a.md", "subpath": "#Heading", "x": 0, "y": 0, "width": 400, "height": 240},
                          {"id": "b", "type": "text", "text": "# hi", "x": 500, "y": 0, "width": 100, "height": 50, "color": "1", "background": "x.png"}],
                "edges": [{"id": "e", "fromNode": "a", "toNode": "b", "fromSide": "right", "toEnd": "arrow", "label": "l"}], "meta": {"v": 1}}),
    json.dumps({"nodes": [{"id": "n1", "type": "file", "x": 1, "y": 2, "data": {"file": "people/alice.md"}},
                          {"id": "n2", "type": "link", "x": 3, "y": 4, "data": {"url": "https://example.org"}}], "edges": []}),
    json.dumps({"operations": [{"op": "add_node", "node": {"id": "c", "type": "group", "x": 0, "y": 0, "width": 10, "height": 10, "label": "g"}},
                               {"op": "update_node", "id": "a", "node": {"color": None}}, {"op": "remove_edge", "id": "e"}]}),
    '{"nodes":[{"id":"a","type":"file","file":"caf\\u00e9 \\"q\\".md","x":0,"y":0,"width":1,"height":1}],"edges":[]}',
    '{"nodes":[{"file":"a.md","file":"b.md","data":{"file":"c.md"}}]}',
    '{"nodes":[' + "[" * 200 + "]" * 200 + "]}", '{"nodes":[{"file":"unterminated',
    '{"nodes":[{"id":"x","type":"text","text":"t","x":9223372036854775807,"y":-9223372036854775808,"width":1e3,"height":0}],"edges":[]}',
]
write("canvas", CANVASES)

PATHS = [
    "notes/a.md\n../x.md", "notes\n./sub/b.md", "\n/index.md", "a/b/c\n../../../../etc/passwd",
    "notes/a.md\n%2e%2e/%2e%2e/x", "x\n..\\..\\windows", "/etc/passwd\n.git/config", ".quire/state/x\n.",
    "notes/Cafe\u0301.md\nCafé", "notes//a.md\na/./b", "\u212b\n\uff0e\uff0e/x", "a\x00b\nc",
    "notes/a.md\n[[a]]", "x y/z (1).md\nz%20%281%29.md", "%C3%A9%2F%2E%2E\n%FF%FE", "a.md#frag\n^blk",
]
write("paths", PATHS)


def frame(body):
    raw = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(raw) + raw


init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": "file:///kb"}})
did_open = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///kb/a.md", "languageId": "markdown", "version": 1, "text": "[[b]] é😀"}}})
FRAMES = [
    frame(init) + frame(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}})) + frame(did_open),
    frame("{\"broken") + frame(json.dumps({"jsonrpc": "2.0", "id": 7, "what": 1})) + b"X-Nothing: 1\r\n\r\n" + b"Content-Length: many\r\n\r\n" + frame(init),
    frame(json.dumps({"jsonrpc": "2.0", "method": "exit"})) + frame(init),
    b"Content-Length: 50\r\n\r\n{\"jsonrpc\"", b"Content-Length: 18446744073709551616\r\n\r\n{}",
    b"content-length:2\n\n{}", b"\r\n\r\n\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{} ",
    frame(json.dumps({"jsonrpc": "2.0", "id": "s", "result": None})) + frame(b"\xff\xfe"),
]
write("lsp_frames", FRAMES)
write("lsp_positions", [
    "a\nüé𝄞x\n\nend", "\r\n\r\n", "😀😀😀\n" * 5, "file:///nonexistent/quire-fuzz/kb/a%20b/%C3%BC.md\nfile:///nonexistent/quire-fuzz/kb/../x.md",
    "file://localhost/nonexistent/quire-fuzz/kb/notes/\nfile:///nonexistent/quire-fuzz/kb/%2e%2e/%2e%2e/etc/passwd",
    "\u2028line\u2029sep\ufeff", "x" * 3000,
])

MCP = [
    json.dumps({"path": "notes/a.md"}), json.dumps({"path": "../x"}), json.dumps({"path": None}), "null", "[]", "\"s\"",
    json.dumps({"path": "a.md", "content": "x", "if_match": "W/\"x\"", "unknown": 1}), json.dumps({"files": [{"path": "a.md", "content": "b"}]}),
    json.dumps({"limit": -1, "offset": 1e999}) if False else '{"limit": -1, "offset": 1e400}', '{"depth": 18446744073709551616}',
]
write("mcp_args", MCP)

rename = lambda a, b: {"kind": "rename", "oldUri": a, "newUri": b}
EDITS_LSP = [
    {"documentChanges": [rename("file://ROOT/notes/a.md", "file://ROOT/archive/a.md")]},
    {"documentChanges": [rename("file://ROOT/notes/", "file://ROOT/n/"), {"kind": "create", "uri": "file://ROOT/new.md"}]},
    {"documentChanges": [rename("file://ROOT/notes/a%20b.md", "file://ROOT/x%2Fy.md"), {"textDocument": {"uri": "file://ROOT/a.md", "version": 3}, "edits": []}]},
    {"documentChanges": [rename("file://ROOT/notes/a.md", "file://ROOT/../outside.md")]},
    {"documentChanges": [rename("file://ROOT/notes/a.md", "file:///etc/passwd")]},
    {"documentChanges": [rename("file://ROOT/notes/*.md", "file://ROOT/$1.md"), {"something": "else"}], "changes": {"file://ROOT/c.md": []}, "changeAnnotations": {}},
    {"documentChanges": [rename("file://localhostROOT/people/alice.md", "file://ROOT/people/%C3%A9.md")]},
    {"documentChanges": [rename("file://ROOT/notes/a.md", "file://ROOT/notes/a.md?q#f")]},
    {"documentChanges": [rename("file://ROOT/projects", "file://ROOT/projects2")]},
    {"documentChanges": [{"kind": "rename", "oldUri": "file://ROOT/a.md"}]},
]
write("workspace_edit", [json.dumps(e) for e in EDITS_LSP])

lines = lambda *ls: "".join(json.dumps(l) + "\n" for l in ls)
SCRIPT = [
    "\x03" + lines({"call": {"fn": "read", "path": "a.md"}}, {"call": {"fn": "query", "dql": "LIST"}}, {"done": {"manifest": {"moves": [{"from": "a.md", "to": "b/"}]}, "output": "x"}}),
    "\x02" + lines({"failed": {"error": "boom"}}),
    "\x01" + lines({"ok": "# A\n"}, {"error": "no such file"}, {"script": "def main(): return {}"}),
    "\x00" + lines({"call": {"fn": "files", "glob": "**"}}),
    "\x03" + lines({"call": {"fn": "read", "path": "a.md", "extra": 1}}, {"done": {"manifest": [], "output": ""}}) + "tail",
]
write("script_lines", SCRIPT)

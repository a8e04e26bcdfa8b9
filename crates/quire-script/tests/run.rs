//! Scripts run against a host that answers from memory: what they return, print and read,
//! and what they are refused.

use quire_api::script::{MAX_HOST_CALLS, MAX_READ_BYTES};
use quire_script::{run, run_with, Host, HostCall, Limits, Position, ScriptError};
use serde_json::{json, Value};

/// A knowledge base of a few pages; records every call.
#[derive(Default)]
struct Pages {
    calls: Vec<HostCall>,
}

impl Host for Pages {
    fn call(&mut self, call: &HostCall) -> Result<Value, String> {
        self.calls.push(call.clone());
        match call {
            HostCall::Query { dql } if dql.starts_with("LIST") => Ok(json!({
                "mode": "list",
                "headers": ["File"],
                "rows": [["inbox/a.md"], ["inbox/b.md"]],
            })),
            HostCall::Query { dql } => Err(format!("cannot parse the query {dql:?}")),
            HostCall::Files { glob } if glob == "**" => {
                Ok(json!(["inbox/a.md", "inbox/b.md", "notes/c.md"]))
            }
            HostCall::Files { .. } => Ok(json!(["notes/c.md"])),
            HostCall::Read { path } if path == "inbox/a.md" => Ok(json!("# A\nSee [[c]].\n")),
            HostCall::Read { path } => Err(format!("no such file: {path}")),
            HostCall::Frontmatter { .. } => Ok(json!({"status": "done", "tags": ["x"]})),
            HostCall::Links { .. } => Ok(json!([
                {"target": "c", "path": "notes/c.md"},
                {"target": "nowhere", "path": null},
            ])),
        }
    }
}

fn ok(source: &str) -> (Value, String, Vec<HostCall>) {
    let mut host = Pages::default();
    let out = run(source, &mut host).unwrap_or_else(|e| panic!("{e}"));
    (out.manifest, out.output, host.calls)
}

fn err(source: &str) -> ScriptError {
    let mut host = Pages::default();
    match run(source, &mut host) {
        Ok(out) => panic!("the script ran: {:?}", out.manifest),
        Err(e) => e,
    }
}

#[test]
fn the_manifest_is_what_main_returns() {
    let (manifest, _, _) = ok(r#"
def main():
    return {"moves": [{"from": "a.md", "to": "b.md"}]}
"#);
    assert_eq!(manifest, json!({"moves": [{"from": "a.md", "to": "b.md"}]}));
}

#[test]
fn the_manifest_is_the_global_manifest_without_main() {
    let (manifest, _, _) = ok(r#"
moves = []
for p in ["a.md", "b.md"]:
    moves.append({"from": p, "to": "archive/"})
manifest = {"moves": moves}
"#);
    assert_eq!(
        manifest,
        json!({"moves": [{"from": "a.md", "to": "archive/"}, {"from": "b.md", "to": "archive/"}]})
    );
}

#[test]
fn a_script_without_a_manifest_says_how_to_give_one() {
    let e = err("x = 1\n");
    assert_eq!(e, ScriptError::NoManifest);
    assert!(e.to_string().contains("main()"), "{e}");
}

#[test]
fn query_returns_rows_as_dicts_by_header() {
    let (manifest, _, calls) = ok(r#"
def main():
    pages = [row["File"] for row in query('LIST FROM "inbox"')]
    return {"moves": [{"from": p, "to": "done/"} for p in pages]}
"#);
    assert_eq!(
        calls,
        vec![HostCall::Query {
            dql: "LIST FROM \"inbox\"".into()
        }]
    );
    assert_eq!(
        manifest["moves"][1],
        json!({"from": "inbox/b.md", "to": "done/"})
    );
}

#[test]
fn files_defaults_to_every_file_and_passes_a_glob() {
    let (manifest, _, calls) = ok(r#"
manifest = {"every": files(), "some": files("notes/*.md")}
"#);
    assert_eq!(manifest["every"].as_array().unwrap().len(), 3);
    assert_eq!(manifest["some"], json!(["notes/c.md"]));
    assert_eq!(
        calls,
        vec![
            HostCall::Files { glob: "**".into() },
            HostCall::Files {
                glob: "notes/*.md".into()
            }
        ]
    );
}

#[test]
fn read_frontmatter_and_links_answer_from_the_host() {
    let (manifest, _, _) = ok(r#"
fm = frontmatter("inbox/a.md")
manifest = {
    "first_line": read("inbox/a.md").splitlines()[0],
    "status": fm["status"],
    "tags": fm["tags"],
    "resolved": [l["path"] for l in links("inbox/a.md") if l["path"] != None],
    "broken": [l["target"] for l in links("inbox/a.md") if l["path"] == None],
}
"#);
    assert_eq!(manifest["first_line"], "# A");
    assert_eq!(manifest["status"], "done");
    assert_eq!(manifest["tags"], json!(["x"]));
    assert_eq!(manifest["resolved"], json!(["notes/c.md"]));
    assert_eq!(manifest["broken"], json!(["nowhere"]));
}

#[test]
fn slug_is_the_manifests_slug() {
    let text = "Über Straße: 2024 — Notes!";
    let (manifest, _, _) = ok(&format!("manifest = {{\"s\": slug({text:?})}}\n"));
    assert_eq!(manifest["s"], json!(quire_query::slug(text)));
}

#[test]
fn json_encode_and_decode_round_trip() {
    let (manifest, _, _) = ok(r#"
data = {"moves": [{"from": "a.md", "to": "b.md"}], "n": 3, "ok": True, "none": None}
text = json.encode(data)
manifest = {"same": json.decode(text) == data, "text": text}
"#);
    assert_eq!(manifest["same"], json!(true));
    let decoded: Value = serde_json::from_str(manifest["text"].as_str().unwrap()).unwrap();
    assert_eq!(decoded["n"], json!(3));
}

#[test]
fn print_is_captured_one_line_per_call() {
    let (_, output, _) = ok(r#"
print("moving", 2, "pages")
print(f"done")
manifest = {"moves": []}
"#);
    assert_eq!(output, "moving 2 pages\ndone\n");
}

#[test]
fn a_host_error_fails_the_script_at_the_call() {
    let e = err(r#"
def main():
    text = read("missing.md")
    return {}
"#);
    let ScriptError::Runtime { at, message } = &e else {
        panic!("{e:?}")
    };
    assert!(
        message.contains("read(\"missing.md\") failed: no such file"),
        "{message}"
    );
    assert_eq!(at.map(|p| p.line), Some(3), "{e}");
}

#[test]
fn while_loops_are_refused_with_their_position() {
    let e = err("def main():\n    while True:\n        pass\n");
    let ScriptError::Syntax { at, message } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*at, Position { line: 2, column: 5 });
    assert!(message.contains("`while`"), "{message}");
    assert!(e.to_string().contains("no `while` loops"), "{e}");
}

#[test]
fn recursion_is_refused_before_the_script_runs() {
    let e = err(r#"
print("never printed")
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)
manifest = {"n": fact(5)}
"#);
    let ScriptError::Recursion { at, message } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(message, "`fact` calls itself");
    assert_eq!(at.map(|p| p.line), Some(4));
    assert!(e.to_string().starts_with("recursion is not allowed"), "{e}");
}

#[test]
fn mutual_recursion_and_recursive_lambdas_are_refused() {
    let e = err(r#"
def even(n):
    return True if n == 0 else odd(n - 1)
def odd(n):
    return False if n == 0 else even(n - 1)
manifest = {"e": even(4)}
"#);
    assert!(
        e.to_string()
            .contains("`even` → `odd` → `even` call each other"),
        "{e}"
    );
    let e = err("f = lambda n: f(n - 1)\nmanifest = {}\n");
    assert!(e.to_string().contains("`f` calls itself"), "{e}");
}

#[test]
fn recursion_through_a_value_stops_at_the_call_depth() {
    let e = err(r#"
def apply(g, n):
    return g(g, n)
manifest = {"x": apply(apply, 1)}
"#);
    let ScriptError::Recursion { message, .. } = &e else {
        panic!("{e:?}")
    };
    assert!(message.contains("nested more than 64 deep"), "{message}");
}

#[test]
fn helpers_and_shadowing_names_are_not_recursion() {
    let (manifest, _, _) = ok(r#"
def target(path):
    return "archive/" + path
def moves(files):
    # `files` is the parameter here, not the function.
    return [{"from": p, "to": target(p)} for p in files]
def main():
    moves_list = moves(files("notes/*.md"))
    return {"moves": moves_list}
"#);
    assert_eq!(
        manifest,
        json!({"moves": [{"from": "notes/c.md", "to": "archive/notes/c.md"}]})
    );
}

#[test]
fn syntax_errors_name_line_and_column() {
    let e = err("manifest = {\n  \"moves\": [\n}\n");
    let ScriptError::Syntax { at, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(at.line, 3, "{e}");
    assert!(
        e.to_string()
            .starts_with("the script has a syntax error at line 3"),
        "{e}"
    );
}

#[test]
fn there_is_no_way_to_write_or_open_a_file() {
    for call in ["write(\"a.md\", \"x\")", "open(\"a.md\")"] {
        let e = err(&format!("def main():\n    {call}\n    return {{}}\n"));
        let text = e.to_string();
        assert!(
            text.contains("scripts cannot write or open files"),
            "{text}"
        );
        assert_eq!(e.position().map(|p| p.line), Some(2), "{text}");
    }
}

#[test]
fn load_is_not_available() {
    let e = err("load(\"other.star\", \"x\")\nmanifest = {}\n");
    assert!(matches!(e, ScriptError::Syntax { .. }), "{e:?}");
}

#[test]
fn a_manifest_of_functions_is_not_data() {
    let e = err("def f():\n    return 1\nmanifest = {\"f\": f}\n");
    assert!(matches!(e, ScriptError::NotData(_)), "{e:?}");
}

/// A host whose every file is `size` bytes.
struct Big {
    size: usize,
}

impl Host for Big {
    fn call(&mut self, _: &HostCall) -> Result<Value, String> {
        Ok(Value::String("x".repeat(self.size)))
    }
}

#[test]
fn reads_are_bounded_in_bytes() {
    let mut host = Big { size: 1 << 20 };
    let e = run(
        "def main():\n    for i in range(100):\n        read(\"a.md\")\n    return {}\n",
        &mut host,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains(&format!("read more than {} MB", MAX_READ_BYTES >> 20)),
        "{text}"
    );
}

#[test]
fn reads_are_bounded_in_number() {
    let mut host = Big { size: 1 };
    let source = format!(
        "def main():\n    for i in range({}):\n        read(\"a.md\")\n    return {{}}\n",
        MAX_HOST_CALLS + 1
    );
    let text = run(&source, &mut host).unwrap_err().to_string();
    assert!(
        text.contains(&format!("more than {MAX_HOST_CALLS} reads")),
        "{text}"
    );
}

#[test]
fn the_starlark_heap_stops_at_the_memory_limit() {
    let mut host = Pages::default();
    let limits = Limits {
        memory_bytes: 16 << 20,
        ..Limits::default()
    };
    let e = run_with(
        "def main():\n    xs = []\n    for i in range(10000000):\n        xs.append([i, str(i)])\n    return {}\n",
        &mut host,
        &limits,
    )
    .unwrap_err();
    assert_eq!(
        e,
        ScriptError::Memory {
            limit_bytes: 16 << 20
        }
    );
    assert_eq!(e.to_string(), "the script exceeded the 16 MB memory limit");
}

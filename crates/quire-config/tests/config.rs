//! Behaviour of `Config` as the server sees it: defaults, full files, warnings, errors,
//! `${VAR}` expansion and `QUIRE_*` overrides.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration as StdDuration;

use quire_config::{
    default_config_toml, ApprovalLimit, AuthType, ByteSize, CommitBatching, Config, ConfigError,
    EmbedderProvider, KeyScope, S3Scope, SearchEngine, Transition, VectorStoreProvider,
    VersioningStrategy, Visibility,
};

fn no_env(_: &str) -> Option<String> {
    None
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn parse(text: &str) -> Config {
    let loaded = Config::from_toml_str(text, &no_env).unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.config
}

fn parse_error(text: &str) -> ConfigError {
    Config::from_toml_str(text, &no_env).expect_err("config was accepted")
}

#[test]
fn defaults_match_the_spec() {
    let config = Config::default();
    assert_eq!(config.server.host, "127.0.0.1");
    assert_eq!(config.server.port, 3333);
    assert!(config.server.public_url.is_none());
    assert_eq!(config.server.rate_limit.requests_per_minute, 0);
    assert!(!config.server.rate_limit.is_enabled());
    assert_eq!(config.server.rate_limit.burst_size, 50);
    assert_eq!(
        config.server.header_read_timeout.as_std(),
        std::time::Duration::from_secs(20)
    );
    assert_eq!(config.server.max_event_streams, 1_000);
    assert_eq!(config.space.visibility, Visibility::Private);
    assert_eq!(config.auth.kind, AuthType::None);
    assert_eq!(config.search.engine, SearchEngine::Sqlite);
    assert!(!config.search.vector.enabled);
    assert_eq!(config.search.vector.worker_count, 5);
    assert_eq!(config.search.vector.chunking.size, 512);
    assert_eq!(config.search.vector.chunking.overlap, 64);
    assert_eq!(
        config.search.vector.store.provider,
        VectorStoreProvider::SqliteVec
    );
    assert_eq!(config.versioning.strategy, VersioningStrategy::Git);
    assert!(config.versioning.async_commit);
    assert_eq!(config.versioning.batch_window_ms, 200);
    assert_eq!(config.versioning.batch_max_size, 50);
    assert_eq!(config.versioning.max_commit_lag_ms, 2_000);
    assert_eq!(
        config.versioning.max_commit_lag(),
        StdDuration::from_secs(2)
    );
    assert_eq!(config.versioning.max_pending, 2_000);
    assert_eq!(config.versioning.max_versions, 100);
    assert_eq!(config.assets.max_file_size, ByteSize::mib(10));
    assert!(config
        .assets
        .allowed_types
        .contains(&"application/pdf".to_owned()));
    assert!(!config.ui.theme_locked);
    assert!(config.backup.rebase_before_push);
    assert_eq!(
        config.janitor.interval.as_std(),
        StdDuration::from_secs(3600)
    );
    assert_eq!(config.janitor.stale_days, 30);
    assert_eq!(config.dataview.max_scan_rows, 10_000);
    assert_eq!(
        config.dataview.query_timeout.as_std(),
        StdDuration::from_secs(5)
    );
    assert_eq!(config.dataview.max_auto_indexes, 20);
    assert_eq!(config.drafts.max_active, 10);
    assert_eq!(
        config.drafts.auto_discard.as_std(),
        StdDuration::from_secs(720 * 3600)
    );
    assert!(!config.workflow.enforce_transitions);
    assert!(config.workflow.transitions.is_empty());
    assert!(!config.audit.enabled);
    assert!(!config.webhooks.enabled);
    assert_eq!(config.webhooks.max_workers, 4);
    assert_eq!(config.webhooks.max_retries, 3);
    assert!(!config.schema.enforce);
    assert!(config.claims.enabled);
    assert_eq!(
        config.claims.default_lease.as_std(),
        StdDuration::from_secs(30 * 60)
    );
    assert_eq!(config.protocols.nfs.port, 2049);
    assert_eq!(config.protocols.s3.port, 3334);
    assert_eq!(config.protocols.webdav.port, 3335);
    assert_eq!(config.protocols.mcp.port, 8181);
    assert!(
        config.protocols.mcp.enabled,
        "MCP over HTTP is served by default"
    );
    assert!(!config.protocols.webdav.enabled);
    assert_eq!(config.refactor.approval_files_limit(), Some(50));
    assert_eq!(config.refactor.approval_links_limit(), Some(200));
    assert!(config.spaces.is_empty());
}

#[test]
fn empty_text_means_defaults() {
    assert_eq!(parse(""), Config::default());
}

const FULL_EXAMPLE: &str = r#"
[server]
host = "127.0.0.1"
port = 8080
cors_origins = ["https://a.example"]
public_url = "https://kb.example.com/"

[server.cors]
allowed_origins = ["https://b.example", "https://a.example"]
allowed_methods = ["GET"]
allow_credentials = true
max_age = 60

[server.rate_limit]
requests_per_minute = 120
burst_size = 10

[space]
visibility = "unlisted"

[auth]
type = "perspace"
[[auth.api_keys]]
key = "k1"
space = "main"
actor = "bot"
scope = "read"
[[auth.api_keys]]
key = "k2"
space = "work"

[search]
engine = "grep"
async_index = true
index_window_ms = 50
index_batch_max = 10

[search.vector]
enabled = true
worker_count = 2
[search.vector.chunking]
size = 256
overlap = 32
[search.vector.embedder]
provider = "ollama"
model = "nomic-embed-text"
api_key = "sk"
url = "http://localhost:11434"
dimensions = 768
timeout = "10s"
[search.vector.store]
provider = "qdrant"
url = "http://localhost:6333"
collection = "kb"

[versioning]
strategy = "cow"
async_commit = false
batch_window_ms = 10
batch_max_size = 5
max_commit_lag_ms = 750
max_pending = 300
max_versions = 7

[assets]
max_file_size = "512KB"
allowed_types = ["image/png"]

[ui]
theme_locked = true

[backup]
remote = "git@example.com:kb.git"
interval = "15m"
branch = "backup"
rebase_before_push = false

[janitor]
interval = "2h"
stale_days = 90
startup_scan = true

[analytics]
stale_days = 14
track_views = true

[dataview]
max_scan_rows = 500
query_timeout = "1.5s"
max_auto_indexes = 3
[dataview.computed_fields]
is_draft = 'fm.status = "draft"'
[dataview.custom_fields]
priority = "number"

[memory]
episodes_path_prefix = "agents/episodes/"

[drafts]
enabled = false
max_active = 2
auto_discard = "48h"

[workflow]
enforce_transitions = true
transitions = ["todo->doing", " doing -> done "]

[audit]
enabled = true

[webhooks]
enabled = true
max_workers = 8
max_retries = 0

[schema]
enforce = true

[claims]
enabled = false
default_lease = "1h"

[protocols.nfs]
enabled = true
port = 12049
[protocols.webdav]
enabled = true

[refactor]
approval_files = -1
approval_links = 25
protect = ["journal/**", "*.lock.md"]
scope = "notes/"

[[spaces]]
name = "work"
root = "/srv/work"
[[spaces]]
name = "home"
root = "home-kb"
"#;

#[test]
fn full_example_with_every_section_parses() {
    let config = parse(FULL_EXAMPLE);

    assert_eq!(config.server.host, "127.0.0.1");
    assert_eq!(config.server.port, 8080);
    assert_eq!(config.server.base_url(), "https://kb.example.com");
    assert_eq!(
        config.server.cors_allowed_origins(),
        ["https://a.example", "https://b.example"]
    );
    assert!(config.server.cors.allow_credentials);
    assert_eq!(config.server.cors.max_age, 60);
    assert!(config.server.rate_limit.is_enabled());
    assert_eq!(config.server.rate_limit.burst_size, 10);
    assert_eq!(config.space.visibility, Visibility::Unlisted);

    assert_eq!(config.auth.kind, AuthType::Perspace);
    assert_eq!(config.auth.api_keys.len(), 2);
    assert_eq!(config.auth.api_keys[0].key.as_ref().unwrap().expose(), "k1");
    assert_eq!(config.auth.api_keys[0].scope, KeyScope::Read);
    assert_eq!(config.auth.api_keys[0].actor.as_deref(), Some("bot"));
    assert_eq!(config.auth.api_keys[1].scope, KeyScope::Admin);
    assert_eq!(config.auth.api_keys[1].space.as_deref(), Some("work"));

    assert_eq!(config.search.engine, SearchEngine::Grep);
    assert!(config.search.async_index);
    let vector = &config.search.vector;
    assert!(vector.enabled);
    assert_eq!(vector.chunking.size, 256);
    assert_eq!(vector.embedder.provider, EmbedderProvider::Ollama);
    assert_eq!(vector.embedder.dimensions, Some(768));
    assert_eq!(vector.embedder.api_key.as_ref().unwrap().expose(), "sk");
    assert_eq!(vector.embedder.timeout.as_std(), StdDuration::from_secs(10));
    assert_eq!(vector.store.provider, VectorStoreProvider::Qdrant);
    assert_eq!(vector.store.collection.as_deref(), Some("kb"));

    assert_eq!(config.versioning.strategy, VersioningStrategy::Cow);
    assert_eq!(
        config.versioning.commit_batching(),
        CommitBatching::PerWrite
    );
    assert_eq!(config.versioning.max_commit_lag_ms, 750);
    assert_eq!(config.versioning.max_pending, 300);
    assert_eq!(config.versioning.max_versions, 7);
    assert_eq!(config.assets.max_file_size.bytes(), 512 * 1024);
    assert!(config.ui.theme_locked);
    assert_eq!(
        config.backup.remote.as_deref(),
        Some("git@example.com:kb.git")
    );
    assert_eq!(config.backup.interval.as_std(), StdDuration::from_secs(900));
    assert!(!config.backup.rebase_before_push);
    assert!(config.janitor.startup_scan);
    assert_eq!(config.analytics.stale_days, 14);
    assert_eq!(
        config.dataview.query_timeout.as_std(),
        StdDuration::from_millis(1500)
    );
    assert_eq!(
        config.dataview.computed_fields["is_draft"],
        r#"fm.status = "draft""#
    );
    assert_eq!(config.dataview.custom_fields["priority"], "number");
    assert_eq!(config.memory.episodes_path_prefix, "agents/episodes/");
    assert!(!config.drafts.enabled);
    assert_eq!(
        config.workflow.transitions,
        [
            Transition {
                from: "todo".into(),
                to: "doing".into()
            },
            Transition {
                from: "doing".into(),
                to: "done".into()
            },
        ]
    );
    assert!(config.workflow.allows_globally("todo", "doing"));
    assert!(!config.workflow.allows_globally("todo", "done"));
    assert!(config.audit.enabled);
    assert_eq!(config.webhooks.max_workers, 8);
    assert_eq!(config.webhooks.max_retries, 0);
    assert!(config.schema.enforce);
    assert!(!config.claims.enabled);
    assert_eq!(
        config.claims.default_lease.as_std(),
        StdDuration::from_secs(3600)
    );
    assert!(config.protocols.nfs.enabled);
    assert_eq!(config.protocols.nfs.port, 12049);
    assert!(config.protocols.webdav.enabled);
    assert_eq!(
        config.protocols.webdav.port, 3335,
        "unset port keeps its default"
    );
    assert!(!config.protocols.s3.enabled);
    assert_eq!(config.refactor.approval_files, ApprovalLimit::Off);
    assert_eq!(config.refactor.approval_files_limit(), None);
    assert_eq!(config.refactor.approval_links_limit(), Some(25));
    assert_eq!(config.refactor.protect, ["journal/**", "*.lock.md"]);
    assert_eq!(config.refactor.scope.as_deref(), Some("notes/"));
    assert_eq!(config.spaces.len(), 2);
    assert_eq!(config.spaces[1].root, PathBuf::from("home-kb"));
}

#[test]
fn unknown_keys_are_warnings_naming_their_dotted_path() {
    let cases = [
        ("[server]\nbogus = 1\n", "server.bogus"),
        (
            "[server.rate_limit]\nburst = 1\n",
            "server.rate_limit.burst",
        ),
        ("[nonsense]\nx = 1\n", "nonsense"),
        ("top = true\n", "top"),
        (
            "[[auth.api_keys]]\nkey = \"k\"\nscopes = [\"read\"]\n",
            "auth.api_keys[0].scopes",
        ),
    ];
    for (text, key) in cases {
        let loaded = Config::from_toml_str(text, &no_env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.warnings.len(), 1, "{text}: {:?}", loaded.warnings);
        assert!(
            loaded.warnings[0].contains(&format!("`{key}`")),
            "{text}: {:?}",
            loaded.warnings
        );
    }
}

#[test]
fn unknown_key_leaves_known_keys_read() {
    let loaded = Config::from_toml_str("[server]\nbogus = 1\nport = 4000\n", &no_env).unwrap();
    assert_eq!(loaded.config.server.port, 4000);
}

#[test]
fn variables_expand_in_string_values() {
    let env = env_of(&[
        ("KB_HOST", "10.0.0.5"),
        ("TOKEN", "s3cret"),
        ("LEASE", "2h"),
    ]);
    let text = r#"
[server]
host = "${KB_HOST}"
cors_origins = ["https://${KB_HOST}:8443"]
[auth]
type = "apikey"
api_key = "${TOKEN}"
[claims]
default_lease = "${LEASE}"
[dataview.custom_fields]
owner = "${TOKEN}-field"
"#;
    let loaded = Config::from_toml_str(text, &env).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let config = loaded.config;
    assert_eq!(config.server.host, "10.0.0.5");
    assert_eq!(config.server.cors_origins, ["https://10.0.0.5:8443"]);
    assert_eq!(config.auth.api_key.unwrap().expose(), "s3cret");
    assert_eq!(
        config.claims.default_lease.as_std(),
        StdDuration::from_secs(7200)
    );
    assert_eq!(config.dataview.custom_fields["owner"], "s3cret-field");
}

#[test]
fn variables_expand_in_keyword_values() {
    let env = env_of(&[("MODE", "none")]);
    let loaded = Config::from_toml_str("[versioning]\nstrategy = \"${MODE}\"\n", &env).unwrap();
    assert_eq!(loaded.config.versioning.strategy, VersioningStrategy::None);
}

#[test]
fn unset_variable_becomes_empty_with_a_warning_naming_key_and_variable() {
    let loaded = Config::from_toml_str("[backup]\nbranch = \"kb-${SUFFIX}\"\n", &no_env).unwrap();
    assert_eq!(loaded.config.backup.branch, "kb-");
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0].contains("SUFFIX"),
        "{:?}",
        loaded.warnings
    );
    assert!(
        loaded.warnings[0].contains("backup.branch"),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn unset_variable_in_optional_value_means_absent() {
    let loaded = Config::from_toml_str("[backup]\nremote = \"${REMOTE}\"\n", &no_env).unwrap();
    assert_eq!(loaded.config.backup.remote, None);
    assert_eq!(loaded.warnings.len(), 1);
}

#[test]
fn escaped_dollar_brace_stays_literal() {
    let env = env_of(&[("HOME", "/home/q")]);
    let loaded =
        Config::from_toml_str("[memory]\nepisodes_path_prefix = \"$${HOME}/x\"\n", &env).unwrap();
    assert_eq!(loaded.config.memory.episodes_path_prefix, "${HOME}/x");
    assert!(loaded.warnings.is_empty());
}

#[test]
fn keys_are_never_expanded() {
    let env = env_of(&[("K", "priority")]);
    let loaded =
        Config::from_toml_str("[dataview.custom_fields]\n\"${K}\" = \"number\"\n", &env).unwrap();
    assert!(loaded.config.dataview.custom_fields.contains_key("${K}"));
}

#[test]
fn unknown_key_with_unset_variable_warns_only_once() {
    let loaded = Config::from_toml_str("[server]\nbogus = \"${NOPE}\"\n", &no_env).unwrap();
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(loaded.warnings[0].contains("server.bogus"));
}

#[test]
fn type_errors_name_the_key_and_line() {
    let cases = [
        ("[server]\nport = \"abc\"\n", "server.port", 2),
        (
            "\n\n[server]\nhost = \"h\"\nport = 70000\n",
            "server.port",
            5,
        ),
        (
            "[versioning]\nstrategy = \"svn\"\n",
            "versioning.strategy",
            2,
        ),
        ("[auth]\ntype = \"magic\"\n", "auth.type", 2),
        (
            "[assets]\nmax_file_size = \"huge\"\n",
            "assets.max_file_size",
            2,
        ),
        (
            "[drafts]\nauto_discard = \"30 days\"\n",
            "drafts.auto_discard",
            2,
        ),
        (
            "[claims]\ndefault_lease = \"30s\"\n",
            "claims.default_lease",
            2,
        ),
        (
            "[claims]\ndefault_lease = \"48h\"\n",
            "claims.default_lease",
            2,
        ),
        (
            "[refactor]\napproval_files = -2\n",
            "refactor.approval_files",
            2,
        ),
        (
            "[workflow]\ntransitions = [\"a->b\", \"c\"]\n",
            "workflow.transitions[1]",
            2,
        ),
        ("[ui]\ntheme_locked = \"yes\"\n", "ui.theme_locked", 2),
        (
            "[[auth.api_keys]]\nkey = \"k\"\nscope = \"root\"\n",
            "auth.api_keys[0].scope",
            3,
        ),
        ("[[spaces]]\nname = 5\nroot = \"r\"\n", "spaces[0].name", 2),
        (
            "[search.vector.embedder]\nprovider = \"skynet\"\n",
            "search.vector.embedder.provider",
            2,
        ),
    ];
    for (text, key, line) in cases {
        let error = parse_error(text);
        assert_eq!(error.key(), Some(key), "{text}: {error}");
        assert_eq!(error.line(), Some(line), "{text}: {error}");
        let shown = error.to_string();
        assert!(shown.contains(key), "{shown}");
        assert!(shown.contains(&format!("line {line}")), "{shown}");
    }
}

#[test]
fn type_error_message_says_what_was_expected() {
    let error = parse_error("[versioning]\nstrategy = \"svn\"\n").to_string();
    assert!(
        error.contains("svn") && error.contains("git, cow or none"),
        "{error}"
    );
}

#[test]
fn syntax_errors_name_the_line() {
    let error = parse_error("[server]\nport = = 3\n");
    assert_eq!(error.line(), Some(2), "{error}");
    assert!(
        matches!(error, ConfigError::Parse { key: None, .. }),
        "{error}"
    );
    assert!(!error.to_string().contains('\n'), "{error}");
}

#[test]
fn missing_required_entry_field_is_an_error() {
    let error = parse_error("[[spaces]]\nname = \"work\"\n");
    assert!(error.to_string().contains("root"), "{error}");
}

#[test]
fn inconsistent_values_are_errors_naming_the_key() {
    let cases = [
        ("[auth]\ntype = \"apikey\"\n", "auth.api_key"),
        (
            "[auth]\ntype = \"apikey\"\napi_key = \"${UNSET}\"\n",
            "auth.api_key",
        ),
        ("[auth]\ntype = \"perspace\"\n", "auth.api_keys"),
        (
            "[auth]\ntype = \"perspace\"\n[[auth.api_keys]]\nkey = \"k\"\n",
            "auth.api_keys[0].space",
        ),
        (
            "[auth]\ntype = \"oidc\"\nissuer = \"https://id\"\n",
            "auth.client_id",
        ),
        ("[[auth.api_keys]]\nkey = \"\"\n", "auth.api_keys[0].key"),
        (
            "[[spaces]]\nname = \"a\"\nroot = \"x\"\n[[spaces]]\nname = \"a\"\nroot = \"y\"\n",
            "spaces[1].name",
        ),
        (
            "[search.vector.chunking]\nsize = 64\noverlap = 64\n",
            "search.vector.chunking.overlap",
        ),
        ("[webhooks]\nmax_workers = 0\n", "webhooks.max_workers"),
        ("[server]\nhost = \"${UNSET}\"\n", "server.host"),
        (
            "[versioning]\nmax_commit_lag_ms = 0\n",
            "versioning.max_commit_lag_ms",
        ),
        ("[versioning]\nmax_pending = 0\n", "versioning.max_pending"),
        (
            "[versioning]\nbatch_window_ms = 5000\n",
            "versioning.max_commit_lag_ms",
        ),
        (
            "[versioning]\nbatch_max_size = 5000\n",
            "versioning.max_pending",
        ),
        (
            "[server]\npublic_url = \"kb.example.com\"\n",
            "server.public_url",
        ),
        ("[server]\npublic_url = \"https://\"\n", "server.public_url"),
        (
            "[server]\npublic_url = \"https://kb.example.com/?a=b\"\n",
            "server.public_url",
        ),
        ("[backup]\ninterval = \"0s\"\n", "backup.interval"),
        ("[backup]\nbranch = \"\"\n", "backup.branch"),
    ];
    for (text, key) in cases {
        let error = parse_error(text);
        assert_eq!(error.key(), Some(key), "{text}: {error}");
    }
}

#[test]
fn approval_limits_follow_zero_default_minus_one_off() {
    let cases = [
        ("", Some(50), Some(200)),
        (
            "approval_files = 0\napproval_links = 0",
            Some(50),
            Some(200),
        ),
        ("approval_files = -1\napproval_links = -1", None, None),
        (
            "approval_files = 3\napproval_links = 1000",
            Some(3),
            Some(1000),
        ),
    ];
    for (body, files, links) in cases {
        let config = parse(&format!("[refactor]\n{body}\n"));
        assert_eq!(config.refactor.approval_files_limit(), files, "{body}");
        assert_eq!(config.refactor.approval_links_limit(), links, "{body}");
    }
}

#[test]
fn commit_batching_follows_async_commit_and_window() {
    let cases = [
        (
            "",
            CommitBatching::Batched {
                window: StdDuration::from_millis(200),
                max_size: 50,
            },
        ),
        ("async_commit = false", CommitBatching::PerWrite),
        ("batch_window_ms = 0", CommitBatching::PerWrite),
        ("batch_max_size = 1", CommitBatching::PerWrite),
    ];
    for (body, expected) in cases {
        let config = parse(&format!("[versioning]\n{body}\n"));
        assert_eq!(config.versioning.commit_batching(), expected, "{body}");
    }
}

#[test]
fn commit_lag_bounds_must_cover_a_batch_only_when_batching() {
    let error = parse_error("[versioning]\nbatch_window_ms = 3000\nmax_commit_lag_ms = 2999\n");
    let shown = error.to_string();
    assert!(
        shown.contains("2999") && shown.contains("batch_window_ms"),
        "{shown}"
    );
    let error = parse_error("[versioning]\nbatch_max_size = 100\nmax_pending = 99\n");
    assert!(error.to_string().contains("batch_max_size"), "{error}");
    // Equal bounds are fine; without batching the window and size do not matter.
    let config = parse(
        "[versioning]\nbatch_window_ms = 3000\nmax_commit_lag_ms = 3000\n\
         batch_max_size = 100\nmax_pending = 100\n",
    );
    assert_eq!(config.versioning.max_pending, 100);
    let config = parse("[versioning]\nasync_commit = false\nbatch_window_ms = 9000\n");
    assert_eq!(
        config.versioning.commit_batching(),
        CommitBatching::PerWrite
    );
}

#[test]
fn claim_leases_are_clamped_to_one_minute_through_a_day() {
    let claims = Config::default().claims;
    let cases = [
        (None, 30 * 60),
        (Some(5), 60),
        (Some(600), 600),
        (Some(3 * 24 * 3600), 24 * 3600),
    ];
    for (requested, expected) in cases {
        let requested = requested.map(quire_config::Duration::from_secs);
        assert_eq!(claims.lease(requested).as_std().as_secs(), expected);
    }
}

#[test]
fn env_overrides_replace_file_values() {
    let mut config = parse("[server]\nhost = \"127.0.0.1\"\nport = 4000\n");
    let env = env_of(&[
        ("QUIRE_HOST", "::1"),
        ("QUIRE_PORT", "5000"),
        ("QUIRE_VERSIONING", "cow"),
        ("QUIRE_AUTH_TYPE", "apikey"),
        ("QUIRE_API_KEY", "k"),
    ]);
    config.apply_env_overrides(&env).unwrap();
    assert_eq!(config.server.host, "::1");
    assert_eq!(config.server.port, 5000);
    assert_eq!(config.versioning.strategy, VersioningStrategy::Cow);
    assert_eq!(config.auth.kind, AuthType::Apikey);
    assert_eq!(config.auth.api_key.unwrap().expose(), "k");
}

#[test]
fn env_overrides_absent_or_blank_change_nothing() {
    let mut config = Config::default();
    config
        .apply_env_overrides(&env_of(&[("QUIRE_PORT", ""), ("QUIRE_HOST", "  ")]))
        .unwrap();
    assert_eq!(config, Config::default());
}

#[test]
fn env_api_key_alone_turns_on_apikey_auth() {
    let mut config = Config::default();
    config
        .apply_env_overrides(&env_of(&[("QUIRE_API_KEY", "k")]))
        .unwrap();
    assert_eq!(config.auth.kind, AuthType::Apikey);
}

#[test]
fn env_api_key_keeps_an_explicit_auth_type() {
    let mut config = Config::default();
    let result = config.apply_env_overrides(&env_of(&[
        ("QUIRE_API_KEY", "k"),
        ("QUIRE_AUTH_TYPE", "none"),
    ]));
    assert!(result.is_ok());
    assert_eq!(config.auth.kind, AuthType::None);
}

#[test]
fn bad_env_override_is_an_error_naming_the_variable() {
    let cases = [
        ("QUIRE_PORT", "http"),
        ("QUIRE_PORT", "70000"),
        ("QUIRE_VERSIONING", "svn"),
        ("QUIRE_AUTH_TYPE", "magic"),
    ];
    for (var, value) in cases {
        let mut config = Config::default();
        let error = config
            .apply_env_overrides(&env_of(&[(var, value)]))
            .expect_err(var);
        assert!(
            matches!(&error, ConfigError::EnvOverride { var: named, .. } if *named == var),
            "{error}"
        );
        assert!(error.to_string().contains(var), "{error}");
        assert!(error.to_string().contains(value), "{error}");
    }
}

#[test]
fn env_override_to_incomplete_auth_is_refused() {
    let mut config = Config::default();
    let error = config
        .apply_env_overrides(&env_of(&[("QUIRE_AUTH_TYPE", "oidc")]))
        .unwrap_err();
    assert_eq!(error.key(), Some("auth.issuer"));
}

#[test]
fn every_override_variable_is_listed() {
    assert_eq!(
        quire_config::ENV_OVERRIDES,
        [
            "QUIRE_HOST",
            "QUIRE_PORT",
            "QUIRE_VERSIONING",
            "QUIRE_AUTH_TYPE",
            "QUIRE_API_KEY"
        ]
    );
}

#[test]
fn default_config_toml_parses_to_defaults_without_warnings() {
    assert_eq!(parse(default_config_toml()), Config::default());
}

/// Uncommenting every `# key = value` line must change nothing: the shown values are the
/// real defaults and every shown key is known.
#[test]
fn default_config_toml_comments_show_the_real_defaults() {
    let mut uncommented_lines = 0;
    let text: String = default_config_toml()
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(rest) if is_setting(rest) => {
                uncommented_lines += 1;
                format!("{rest}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    assert!(
        uncommented_lines > 45,
        "only {uncommented_lines} settings shown"
    );
    assert_eq!(parse(&text), Config::default());
}

fn is_setting(line: &str) -> bool {
    line.split_once(" = ").is_some_and(|(key, _)| {
        !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    })
}

#[test]
fn default_config_toml_has_every_section() {
    let text = default_config_toml();
    let sections = [
        "[server]",
        "[server.cors]",
        "[server.rate_limit]",
        "[space]",
        "[auth]",
        "[[auth.api_keys]]",
        "[search]",
        "[versioning]",
        "[assets]",
        "[ui]",
        "[backup]",
        "[janitor]",
        "[analytics]",
        "[dataview]",
        "[memory]",
        "[drafts]",
        "[workflow]",
        "[audit]",
        "[webhooks]",
        "[schema]",
        "[claims]",
        "[protocols.mcp]",
        "[refactor]",
        "[[spaces]]",
    ];
    for section in sections {
        assert!(text.contains(section), "{section} missing");
    }
}

#[test]
fn load_reads_the_file_under_dot_quire() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join(".quire")).unwrap();
    std::fs::write(
        root.path().join(".quire/config.toml"),
        "[server]\nport = 4444\nextra = 1\nhost = \"${H}\"\n",
    )
    .unwrap();
    let loaded = Config::load_with_env(root.path(), &env_of(&[("H", "h.local")])).unwrap();
    assert_eq!(loaded.config.server.port, 4444);
    assert_eq!(loaded.config.server.host, "h.local");
    assert_eq!(loaded.warnings.len(), 1);
}

#[test]
fn load_without_a_file_gives_defaults_and_no_warning() {
    let root = tempfile::tempdir().unwrap();
    let loaded = Config::load(root.path()).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.warnings.is_empty());
}

#[test]
fn load_error_names_the_file() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join(".quire")).unwrap();
    std::fs::write(
        root.path().join(".quire/config.toml"),
        "[server]\nport = \"x\"\n",
    )
    .unwrap();
    let error = Config::load(root.path()).unwrap_err();
    assert!(error.to_string().contains("config.toml"), "{error}");
    assert_eq!(error.key(), Some("server.port"));
    assert_eq!(error.line(), Some(2));
}

#[test]
fn debug_output_hides_credentials() {
    let config = parse("[auth]\ntype = \"apikey\"\napi_key = \"hunter2\"\n");
    assert!(!format!("{config:?}").contains("hunter2"));
}

#[test]
fn s3_keys_parse_with_their_defaults_and_expand_their_secrets() {
    let env = env_of(&[("READER_SECRET", "r-secret"), ("WRITER_SECRET", "w-secret")]);
    let text = r#"
[protocols.s3]
enabled = true
access_key = "main"
secret_key = "${WRITER_SECRET}"
actor = "backup"
[[protocols.s3.keys]]
access_key = "reader"
secret_key = "${READER_SECRET}"
actor = "dashboards"
scope = "read"
space = "team"
[[protocols.s3.keys]]
access_key = "writer"
secret_key = "plain"
"#;
    let loaded = Config::from_toml_str(text, &env).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let s3 = loaded.config.protocols.s3;
    assert_eq!(s3.keys.len(), 2);
    let reader = &s3.keys[0];
    assert_eq!(reader.secret_key.as_ref().unwrap().expose(), "r-secret");
    assert_eq!(reader.scope, S3Scope::Read);
    assert_eq!(reader.space.as_deref(), Some("team"));
    // Defaults of an entry: actor "s3", scope write, every space.
    let writer = &s3.keys[1];
    assert_eq!(writer.actor, "s3");
    assert_eq!(writer.scope, S3Scope::Write);
    assert_eq!(writer.space, None);
    // The secrets never show in Debug.
    assert!(!format!("{s3:?}").contains("r-secret"));

    let principals = s3.principals(&["default", "team"]).unwrap();
    let seen: Vec<_> = principals
        .iter()
        .map(|p| {
            (
                p.access_key.as_str(),
                p.secret_key.expose(),
                p.actor.as_str(),
                p.scope,
                p.space.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("main", "w-secret", "backup", S3Scope::Write, None),
            (
                "reader",
                "r-secret",
                "dashboards",
                S3Scope::Read,
                Some("team")
            ),
            ("writer", "plain", "s3", S3Scope::Write, None),
        ]
    );
}

#[test]
fn s3_keys_alone_are_enough_and_the_single_key_alone_still_is() {
    let keys_only = parse(
        "[protocols.s3]\nenabled = true\n[[protocols.s3.keys]]\naccess_key = \"a\"\nsecret_key = \"s\"\n",
    );
    let principals = keys_only.protocols.s3.principals(&["default"]).unwrap();
    assert_eq!(principals.len(), 1);
    assert_eq!(principals[0].actor, "s3");
    let single =
        parse("[protocols.s3]\naccess_key = \"a\"\nsecret_key = \"s\"\nscope = \"read\"\n");
    let principals = single.protocols.s3.principals(&["default"]).unwrap();
    assert_eq!(principals.len(), 1);
    assert_eq!(principals[0].scope, S3Scope::Read);
}

#[test]
fn bad_s3_keys_are_refused_naming_the_key() {
    let refused = |text: &str| {
        // An unset variable is a warning of the parse; the refusal is `principals`'.
        let loaded = Config::from_toml_str(text, &no_env).unwrap();
        loaded
            .config
            .protocols
            .s3
            .principals(&["default", "team"])
            .expect_err(text)
    };
    let key = |body: &str| format!("[protocols.s3]\n[[protocols.s3.keys]]\n{body}\n");
    // The same access key twice, across the single key and an entry too.
    let err = refused(&format!(
        "{}[[protocols.s3.keys]]\naccess_key = \"dup\"\nsecret_key = \"t\"\n",
        key("access_key = \"dup\"\nsecret_key = \"s\"")
    ));
    assert!(
        err.contains("protocols.s3.keys[1]") && err.contains("\"dup\"") && err.contains("twice"),
        "{err}"
    );
    let err = refused(
        "[protocols.s3]\naccess_key = \"dup\"\nsecret_key = \"s\"\n\
         [[protocols.s3.keys]]\naccess_key = \"dup\"\nsecret_key = \"t\"\n",
    );
    assert!(err.contains("(also protocols.s3)"), "{err}");
    // An empty secret, written so or from an unset variable.
    for secret in ["\"\"", "\"${NO_SUCH_SECRET}\""] {
        let err = refused(&key(&format!("access_key = \"k\"\nsecret_key = {secret}")));
        assert!(
            err.contains("protocols.s3.keys[0] (access key \"k\")")
                && err.contains("secret_key is empty"),
            "{err}"
        );
    }
    let err = refused(&key("access_key = \"k\""));
    assert!(err.contains("secret_key is empty"), "{err}");
    // A space no configured space is named.
    let err = refused(&key(
        "access_key = \"k\"\nsecret_key = \"s\"\nspace = \"nope\"",
    ));
    assert!(
        err.contains("(access key \"k\")") && err.contains("\"nope\"") && err.contains("team"),
        "{err}"
    );
    // No access key, an empty actor, no key at all.
    let err = refused(&key("secret_key = \"s\""));
    assert!(err.contains("protocols.s3.keys[0].access_key"), "{err}");
    let err = refused(&key("access_key = \"k\"\nsecret_key = \"s\"\nactor = \"\""));
    assert!(err.contains("actor is empty"), "{err}");
    let err = refused("[protocols.s3]\nsecret_key = \"s\"\n");
    assert!(err.contains("protocols.s3.access_key"), "{err}");
    let err = refused("[protocols.s3]\nenabled = true\n");
    assert!(
        err.contains("protocols.s3.access_key") && err.contains("[[protocols.s3.keys]]"),
        "{err}"
    );
    // A bad scope is an error of the file itself.
    let err = parse_error(&key(
        "access_key = \"k\"\nsecret_key = \"s\"\nscope = \"admin\"",
    ));
    assert!(err.to_string().contains("scope"), "{err}");
}

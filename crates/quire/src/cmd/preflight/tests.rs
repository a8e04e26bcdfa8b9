//! Every key of the configuration is acted on or refused: the table below lists each key of
//! the schema with its evidence, and the tests check the table against the schema (a key
//! added later without an entry fails), the evidence against the code, and the template of
//! `quire init` against the refusals.

use std::path::Path;

use super::*;

fn parse(text: &str) -> Config {
    let loaded = Config::from_toml_str(text, &|_| None).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(loaded.warnings.is_empty(), "{text}: {:?}", loaded.warnings);
    loaded.config
}

/// How a key is shown to change what quire does.
struct Acted {
    key: &'static str,
    /// The section the key is written in, and whatever else the key needs to matter (a
    /// backup's interval needs a remote); the sample without its last line.
    context: &'static str,
    /// The key set to something other than its default.
    line: &'static str,
    /// The key reaches the settings every space is opened with: checked here, the sample
    /// opens the spaces with other settings than the context alone.
    space: bool,
    /// A test that sets the key (its body names it, or `mentions`) and asserts what it
    /// changes: `(file from the workspace root, test function, mentions)`.
    test: Option<(&'static str, &'static str, &'static str)>,
}

const fn acted(key: &'static str, context: &'static str, line: &'static str) -> Acted {
    Acted {
        key,
        context,
        line,
        space: false,
        test: None,
    }
}

impl Acted {
    const fn space(self) -> Acted {
        Acted {
            space: true,
            ..self
        }
    }

    const fn test(self, file: &'static str, name: &'static str) -> Acted {
        self.test_mentioning(file, name, "")
    }

    const fn test_mentioning(
        self,
        file: &'static str,
        name: &'static str,
        mentions: &'static str,
    ) -> Acted {
        Acted {
            test: Some((file, name, mentions)),
            ..self
        }
    }

    fn sample(&self) -> String {
        format!("{}{}\n", self.context, self.line)
    }
}

const SETTINGS: &str = "crates/quire/tests/settings.rs";
const SERVE: &str = "crates/quire/tests/serve.rs";
const BACKUP: &str = "crates/quire/tests/backup.rs";
const JANITOR: &str = "crates/quire/tests/janitor.rs";
const HTTP_INSIGHT: &str = "crates/quire-http/tests/insight.rs";
const HTTP_ADMIN: &str = "crates/quire-http/tests/admin.rs";
const HTTP_DRAFTS: &str = "crates/quire-http/tests/drafts.rs";
const HTTP_FIND: &str = "crates/quire-http/tests/find.rs";
const HTTP_WORKFLOWS: &str = "crates/quire-http/tests/workflows.rs";
const HTTP_OIDC: &str = "crates/quire-http/tests/oidc.rs";
const STORE_BATCHING: &str = "crates/quire-store/tests/batching.rs";
const EXHAUSTION: &str = "crates/quire/tests/exhaustion.rs";
const S3: &str = "crates/quire/tests/s3.rs";
const S3_CLIENTS: &str = "boto3_and_the_aws_cli_reach_every_space_as_a_bucket";
const S3_START: &str = "s3_refuses_to_start_on_a_taken_port_or_without_a_key";
const S3_KEYS: &str = "[protocols.s3]\naccess_key = \"a\"\nsecret_key = \"s\"\n";
const NFS: &str = "crates/quire/tests/nfs.rs";
const NFS_CLIENTS: &str = "libnfs_clients_list_read_and_copy_in_and_out";
const NFS_START: &str = "nfs_refuses_to_start_on_a_taken_port_or_an_open_host";
const WEBDAV: &str = "crates/quire/tests/webdav.rs";
const FUSE: &str = "crates/quire/tests/fuse.rs";
const FUSE_SERVE: &str = "quire_serve_mounts_with_protocols_fuse_and_unmounts_when_it_stops";
const HTTP_VECTORS: &str = "crates/quire-http/tests/vectors.rs";
const VECTOR_ON: &str = "[search.vector]\nenabled = true\n";
const VECTOR_HTTP: &str =
    "[search.vector]\nenabled = true\n[search.vector.embedder]\nprovider = \"http\"\n";
const BACKUP_REMOTE: &str = "[backup]\nremote = \"/srv/backup/kb.git\"\n";
const HTTP_STORES: &str = "crates/quire-http/tests/vector_stores.rs";
const QDRANT_TEST: &str = "qdrant_keeps_one_point_per_chunk_over_its_rest_api";
const VECTOR_QDRANT: &str =
    "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"qdrant\"\n";
const VECTOR_PGVECTOR: &str =
    "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"pgvector\"\n";

/// Every key this build acts on, with its evidence.
fn acted_keys() -> Vec<Acted> {
    vec![
        acted("server.host", "[server]\n", "host = \"127.0.0.2\"").test(
            SETTINGS,
            "the_addresses_to_listen_on_come_from_the_configuration",
        ),
        acted("server.port", "[server]\n", "port = 4000").test(
            SETTINGS,
            "the_addresses_to_listen_on_come_from_the_configuration",
        ),
        acted(
            "server.header_read_timeout",
            "[server]\n",
            "header_read_timeout = \"2s\"",
        )
        .test(
            EXHAUSTION,
            "headers_sent_a_byte_a_second_are_cut_off_at_the_header_timeout",
        ),
        acted(
            "server.max_event_streams",
            "[server]\n",
            "max_event_streams = 10",
        )
        .test(
            EXHAUSTION,
            "thousands_of_idle_event_streams_are_capped_with_503_and_reads_go_on",
        ),
        acted(
            "server.cors_origins",
            "[server]\n",
            "cors_origins = [\"https://a.example\"]",
        )
        .test(SERVE, "cors_answers_preflight_for_configured_origins_only"),
        acted(
            "server.public_url",
            "[server]\n",
            "public_url = \"https://kb.example.com\"",
        )
        .space()
        .test(
            SETTINGS,
            "share_links_published_pages_and_feeds_use_the_public_url",
        ),
        acted(
            "server.cors.allowed_origins",
            "[server.cors]\n",
            "allowed_origins = [\"https://a.example\"]",
        )
        .test(SETTINGS, "cors_settings_shape_the_preflight_answer"),
        acted(
            "server.cors.allowed_methods",
            "[server.cors]\n",
            "allowed_methods = [\"GET\"]",
        )
        .test(SETTINGS, "cors_settings_shape_the_preflight_answer"),
        acted(
            "server.cors.allow_credentials",
            "[server.cors]\n",
            "allow_credentials = true",
        )
        .test(SETTINGS, "cors_settings_shape_the_preflight_answer"),
        acted("server.cors.max_age", "[server.cors]\n", "max_age = 60")
            .test(SETTINGS, "cors_settings_shape_the_preflight_answer"),
        acted(
            "server.rate_limit.requests_per_minute",
            "[server.rate_limit]\n",
            "requests_per_minute = 60",
        )
        .test(
            HTTP_ADMIN,
            "the_rate_limit_is_a_bucket_per_token_or_address_and_spares_the_probes",
        ),
        acted(
            "server.rate_limit.burst_size",
            "[server.rate_limit]\n",
            "burst_size = 3",
        )
        .test(
            HTTP_ADMIN,
            "the_rate_limit_is_a_bucket_per_token_or_address_and_spares_the_probes",
        ),
        acted("space.visibility", "[space]\n", "visibility = \"public\"").test(
            HTTP_ADMIN,
            "public_pages_are_served_only_when_the_space_and_the_page_say_so",
        ),
        acted(
            "auth.type",
            "[auth]\napi_key = \"k\"\n",
            "type = \"apikey\"",
        )
        .test(
            SERVE,
            "apikey_auth_is_enforced_and_the_key_never_reaches_the_log",
        ),
        acted("auth.api_key", "[auth]\n", "api_key = \"k\"").test(
            SERVE,
            "apikey_auth_is_enforced_and_the_key_never_reaches_the_log",
        ),
        acted("auth.api_keys", "", "[[auth.api_keys]]\nkey = \"k\"").test(
            SERVE,
            "a_perspace_key_for_an_unknown_space_refuses_to_start",
        ),
        acted(
            "auth.issuer",
            "[auth]\n",
            "issuer = \"https://id.example.com\"",
        )
        .test(
            SERVE,
            "oidc_with_an_unreachable_issuer_refuses_to_start_naming_the_setting",
        ),
        acted("auth.client_id", "[auth]\n", "client_id = \"quire\"").test(
            HTTP_OIDC,
            "the_actor_claim_scope_and_audience_come_from_the_configuration",
        ),
        acted("auth.actor_claim", "[auth]\n", "actor_claim = \"email\"").test(
            HTTP_OIDC,
            "the_actor_claim_scope_and_audience_come_from_the_configuration",
        ),
        acted("auth.oidc_scope", "[auth]\n", "oidc_scope = \"read\"").test(
            HTTP_OIDC,
            "the_actor_claim_scope_and_audience_come_from_the_configuration",
        ),
        acted("search.engine", "[search]\n", "engine = \"grep\"")
            .space()
            .test(HTTP_FIND, "grep_engine_answers_the_same_queries"),
        acted("search.async_index", "[search]\n", "async_index = true").space(),
        acted(
            "search.index_window_ms",
            "[search]\n",
            "index_window_ms = 50",
        )
        .space(),
        acted(
            "search.index_batch_max",
            "[search]\n",
            "index_batch_max = 5",
        )
        .space(),
        acted(
            "versioning.strategy",
            "[versioning]\n",
            "strategy = \"none\"",
        )
        .space()
        .test(
            SETTINGS,
            "the_versioning_strategy_comes_from_the_configuration",
        ),
        acted(
            "versioning.async_commit",
            "[versioning]\n",
            "async_commit = false",
        )
        .space()
        .test(
            "crates/quire/tests/kill_loop.rs",
            "sigkill_during_writes_with_synchronous_commits_always_restarts_clean",
        ),
        acted(
            "versioning.batch_window_ms",
            "[versioning]\n",
            "batch_window_ms = 100",
        )
        .space(),
        acted(
            "versioning.batch_max_size",
            "[versioning]\n",
            "batch_max_size = 10",
        )
        .space(),
        acted(
            "versioning.max_commit_lag_ms",
            "[versioning]\n",
            "max_commit_lag_ms = 1000",
        )
        .space()
        .test_mentioning(
            STORE_BATCHING,
            "record_waits_while_an_uncommitted_write_is_older_than_max_commit_lag",
            "max_commit_lag",
        ),
        acted(
            "versioning.max_pending",
            "[versioning]\n",
            "max_pending = 100",
        )
        .space()
        .test(
            STORE_BATCHING,
            "record_waits_while_more_than_max_pending_files_are_uncommitted",
        ),
        acted(
            "versioning.max_versions",
            "[versioning]\n",
            "max_versions = 3",
        )
        .space()
        .test(
            "crates/quire-store/tests/cow.rs",
            "cow_prunes_beyond_max_versions_and_deletes_unreferenced_snapshots",
        ),
        acted(
            "assets.max_file_size",
            "[assets]\n",
            "max_file_size = \"1KB\"",
        )
        .space()
        .test(
            "crates/quire-http/tests/files.rs",
            "assets_refuse_wrong_types_missing_fields_and_large_files",
        ),
        acted(
            "assets.allowed_types",
            "[assets]\n",
            "allowed_types = [\"image/png\"]",
        )
        .space()
        .test(
            "crates/quire-http/tests/files.rs",
            "assets_refuse_wrong_types_missing_fields_and_large_files",
        ),
        acted("ui.theme_locked", "[ui]\n", "theme_locked = true").test(
            "crates/quire-http/tests/collab.rs",
            "the_theme_is_validated_stored_and_locked_by_configuration",
        ),
        acted(
            "backup.remote",
            "[backup]\n",
            "remote = \"/srv/backup/kb.git\"",
        )
        .space()
        .test(
            BACKUP,
            "the_history_is_pushed_to_the_remote_and_the_status_says_when",
        ),
        acted("backup.interval", BACKUP_REMOTE, "interval = \"5m\"")
            .space()
            .test(
                BACKUP,
                "the_history_is_pushed_to_the_remote_and_the_status_says_when",
            ),
        acted("backup.branch", BACKUP_REMOTE, "branch = \"kb\"")
            .space()
            .test_mentioning(
                BACKUP,
                "the_history_is_pushed_to_the_remote_and_the_status_says_when",
                "branch",
            ),
        acted(
            "backup.rebase_before_push",
            BACKUP_REMOTE,
            "rebase_before_push = false",
        )
        .space()
        .test(
            BACKUP,
            "without_rebase_a_remote_that_moved_ahead_is_an_error_and_keeps_its_commits",
        ),
        acted("janitor.stale_days", "[janitor]\n", "stale_days = 7").space(),
        acted("janitor.interval", "[janitor]\n", "interval = \"5m\"")
            .space()
            .test_mentioning(
                JANITOR,
                "the_scheduled_scan_runs_at_start_and_every_interval",
                "interval",
            ),
        acted("janitor.startup_scan", "[janitor]\n", "startup_scan = true")
            .space()
            .test_mentioning(
                JANITOR,
                "the_scheduled_scan_runs_at_start_and_every_interval",
                "startup_scan",
            ),
        acted(
            "analytics.track_views",
            "[analytics]\n",
            "track_views = true",
        )
        .space()
        .test_mentioning(
            HTTP_INSIGHT,
            "page_views_are_counted_when_tracking_is_on",
            "track_views",
        ),
        acted("analytics.stale_days", "[analytics]\n", "stale_days = 7")
            .space()
            .test(
                SETTINGS,
                "the_dashboard_counts_pages_untouched_for_analytics_stale_days",
            ),
        acted(
            "dataview.max_scan_rows",
            "[dataview]\n",
            "max_scan_rows = 10",
        )
        .space(),
        acted(
            "dataview.query_timeout",
            "[dataview]\n",
            "query_timeout = \"1s\"",
        )
        .space(),
        acted(
            "dataview.computed_fields",
            "[dataview.computed_fields]\n",
            "age = \"1 + 1\"",
        )
        .space()
        .test(
            HTTP_FIND,
            "computed_fields_from_the_configuration_are_fields_of_every_query",
        ),
        acted(
            "memory.episodes_path_prefix",
            "[memory]\n",
            "episodes_path_prefix = \"log/\"",
        )
        .space(),
        acted("drafts.enabled", "[drafts]\n", "enabled = false")
            .space()
            .test(
                HTTP_DRAFTS,
                "drafts_need_git_versioning_and_can_be_disabled",
            ),
        acted("drafts.max_active", "[drafts]\n", "max_active = 2")
            .space()
            .test(HTTP_DRAFTS, "at_most_max_active_drafts_are_open"),
        acted("drafts.auto_discard", "[drafts]\n", "auto_discard = \"1h\"")
            .space()
            .test(
                HTTP_DRAFTS,
                "drafts_untouched_for_auto_discard_are_discarded",
            ),
        acted(
            "workflow.enforce_transitions",
            "[workflow]\n",
            "enforce_transitions = true",
        )
        .space()
        .test(HTTP_WORKFLOWS, "enforced_transitions_refuse_unlisted_moves"),
        acted(
            "workflow.transitions",
            "[workflow]\n",
            "transitions = [\"todo->done\"]",
        )
        .space()
        .test(HTTP_WORKFLOWS, "enforced_transitions_refuse_unlisted_moves"),
        acted("audit.enabled", "[audit]\n", "enabled = true").test_mentioning(
            HTTP_ADMIN,
            "changes_and_refusals_are_audited_without_the_token",
            "audit",
        ),
        // `configure` writes `[webhooks] enabled = true`, `max_workers = 2`.
        acted("webhooks.enabled", "[webhooks]\n", "enabled = true").test_mentioning(
            "crates/quire/tests/webhooks.rs",
            "a_delivery_to_a_receiver_that_was_down_survives_a_restart",
            "configure(&root)",
        ),
        acted("webhooks.max_workers", "[webhooks]\n", "max_workers = 2").test_mentioning(
            "crates/quire/tests/webhooks.rs",
            "a_delivery_to_a_receiver_that_was_down_survives_a_restart",
            "configure(&root)",
        ),
        acted("webhooks.max_retries", "[webhooks]\n", "max_retries = 1").test(
            "crates/quire-webhooks/tests/delivery.rs",
            "after_the_last_retry_a_delivery_is_kept_as_failed",
        ),
        acted("schema.enforce", "[schema]\n", "enforce = true")
            .space()
            .test(
                HTTP_DRAFTS,
                "a_merge_that_violates_a_schema_is_refused_and_the_draft_kept",
            ),
        acted("claims.enabled", "[claims]\n", "enabled = false")
            .space()
            .test_mentioning(
                "crates/quire-http/tests/claims.rs",
                "every_claim_route_answers_503_without_a_claim_store",
                "claims",
            ),
        acted(
            "claims.default_lease",
            "[claims]\n",
            "default_lease = \"2h\"",
        )
        .space()
        .test(
            SETTINGS,
            "a_claim_without_a_lease_gets_the_configured_default_lease",
        ),
        acted(
            "protocols.mcp.enabled",
            "[protocols.mcp]\n",
            "enabled = false",
        )
        .test(
            SETTINGS,
            "the_addresses_to_listen_on_come_from_the_configuration",
        ),
        acted("protocols.mcp.port", "[protocols.mcp]\n", "port = 9191").test(
            SETTINGS,
            "the_addresses_to_listen_on_come_from_the_configuration",
        ),
        acted(
            "protocols.webdav.enabled",
            "[protocols.webdav]\n",
            "enabled = true",
        )
        // `seeded` writes `[protocols.webdav] enabled = true` for every WebDAV test.
        .test_mentioning(
            WEBDAV,
            "litmus_passes_basic_copymove_props_locks_and_http_with_an_api_key",
            "seeded",
        ),
        acted(
            "protocols.webdav.port",
            "[protocols.webdav]\n",
            "port = 8080",
        )
        .test(
            WEBDAV,
            "readyz_reports_webdav_and_a_taken_port_stops_the_start",
        ),
        acted(
            "protocols.fuse.mountpoint",
            "[protocols.fuse]\n",
            "mountpoint = \"/mnt/kb\"",
        )
        .test(FUSE, FUSE_SERVE),
        acted(
            "protocols.fuse.actor",
            "[protocols.fuse]\n",
            "actor = \"mounted\"",
        )
        .test(FUSE, FUSE_SERVE),
        acted("protocols.s3.enabled", S3_KEYS, "enabled = true").test(S3, S3_CLIENTS),
        acted("protocols.s3.port", S3_KEYS, "port = 9000").test(S3, S3_START),
        acted(
            "protocols.s3.access_key",
            "[protocols.s3]\n",
            "access_key = \"a\"",
        )
        .test(S3, S3_CLIENTS),
        acted(
            "protocols.s3.secret_key",
            "[protocols.s3]\n",
            "secret_key = \"s\"",
        )
        .test(S3, S3_CLIENTS),
        acted(
            "protocols.s3.actor",
            "[protocols.s3]\n",
            "actor = \"backup\"",
        )
        .test(S3, S3_CLIENTS),
        acted("protocols.s3.scope", "[protocols.s3]\n", "scope = \"read\"")
            .test(S3, "a_read_scoped_s3_key_reads_but_never_writes"),
        acted(
            "protocols.s3.region",
            "[protocols.s3]\n",
            "region = \"eu-west-1\"",
        )
        .test(S3, S3_CLIENTS),
        acted(
            "protocols.s3.keys",
            "",
            "[[protocols.s3.keys]]\naccess_key = \"a\"\nsecret_key = \"s\"",
        )
        .test(
            S3,
            "each_s3_key_is_a_principal_with_its_actor_scope_and_space",
        ),
        acted(
            "protocols.nfs.enabled",
            "[protocols.nfs]\n",
            "enabled = true",
        )
        // `seeded` writes `[protocols.nfs] enabled = true` for every NFS test.
        .test_mentioning(NFS, NFS_CLIENTS, "seeded"),
        acted("protocols.nfs.port", "[protocols.nfs]\n", "port = 2050").test(NFS, NFS_START),
        acted(
            "protocols.nfs.actor",
            "[protocols.nfs]\n",
            "actor = \"scripts\"",
        )
        .test(
            NFS,
            "a_rename_over_nfs_rewrites_links_exactly_as_post_rename",
        ),
        acted(
            "protocols.nfs.read_only",
            "[protocols.nfs]\n",
            "read_only = true",
        )
        .test(NFS, "a_read_only_nfs_export_refuses_writes"),
        acted(
            "protocols.nfs.allow_remote",
            "[protocols.nfs]\n",
            "allow_remote = true",
        )
        .test(NFS, NFS_START),
        acted(
            "refactor.approval_files",
            "[refactor]\n",
            "approval_files = 5",
        )
        .space()
        .test(
            "crates/quire-http/tests/apply.rs",
            "agents_over_the_limits_need_approval_that_is_used_once",
        ),
        acted(
            "refactor.approval_links",
            "[refactor]\n",
            "approval_links = 5",
        )
        .space(),
        acted(
            "refactor.protect",
            "[refactor]\n",
            "protect = [\"archive/**\"]",
        )
        .space(),
        acted("refactor.scope", "[refactor]\n", "scope = \"notes/\"").space(),
        acted(
            "search.vector.enabled",
            "[search.vector]\n",
            "enabled = true",
        )
        .space()
        .test(
            HTTP_VECTORS,
            "vector_search_finds_pages_by_meaning_and_fuses_with_bm25",
        ),
        acted("search.vector.worker_count", VECTOR_ON, "worker_count = 2").space(),
        acted(
            "search.vector.chunking.size",
            "[search.vector]\nenabled = true\n[search.vector.chunking]\n",
            "size = 256",
        )
        .space(),
        acted(
            "search.vector.chunking.overlap",
            "[search.vector]\nenabled = true\n[search.vector.chunking]\n",
            "overlap = 8",
        )
        .space(),
        acted(
            "search.vector.embedder.provider",
            "[search.vector]\nenabled = true\n[search.vector.embedder]\n",
            "provider = \"ollama\"",
        )
        .space(),
        acted("search.vector.embedder.model", VECTOR_HTTP, "model = \"m\"").space(),
        acted(
            "search.vector.embedder.api_key",
            VECTOR_HTTP,
            "api_key = \"k\"",
        )
        .space(),
        acted(
            "search.vector.embedder.url",
            VECTOR_HTTP,
            "url = \"http://localhost:1\"",
        )
        .space(),
        acted(
            "search.vector.embedder.dimensions",
            VECTOR_HTTP,
            "dimensions = 8",
        )
        .space(),
        acted(
            "search.vector.embedder.timeout",
            VECTOR_HTTP,
            "timeout = \"5s\"",
        )
        .space(),
        acted(
            "search.vector.store.provider",
            "[search.vector]\nenabled = true\n[search.vector.store]\n",
            "provider = \"qdrant\"",
        )
        .space()
        .test(HTTP_STORES, QDRANT_TEST),
        acted(
            "search.vector.store.url",
            VECTOR_QDRANT,
            "url = \"http://localhost:6333\"",
        )
        .space()
        .test(HTTP_STORES, QDRANT_TEST),
        acted(
            "search.vector.store.api_key",
            VECTOR_QDRANT,
            "api_key = \"k\"",
        )
        .space()
        .test(HTTP_STORES, QDRANT_TEST),
        acted(
            "search.vector.store.collection",
            VECTOR_QDRANT,
            "collection = \"kb\"",
        )
        .space()
        .test(HTTP_STORES, QDRANT_TEST),
        acted(
            "search.vector.store.dsn",
            VECTOR_PGVECTOR,
            "dsn = \"postgres://u:p@127.0.0.1:5432/kb\"",
        )
        .space()
        .test(
            HTTP_STORES,
            "pgvector_keeps_chunks_in_postgres_and_ranks_them_by_cosine",
        ),
        acted("spaces", "", "[[spaces]]\nname = \"team\"\nroot = \"team\"")
            .space()
            .test(
                "crates/quire/tests/spaces.rs",
                "a_space_named_after_the_served_root_is_the_default_space_under_that_name",
            ),
    ]
}

/// A sample of every refused key, set to something other than its default.
const REFUSED: &[(&str, &str)] = &[
    (
        "dataview.max_auto_indexes",
        "[dataview]\nmax_auto_indexes = 5\n",
    ),
    (
        "dataview.custom_fields",
        "[dataview.custom_fields]\npriority = \"number\"\n",
    ),
];

/// Every key of the configuration's schema, dotted: the leaves of the default configuration
/// written as JSON (a map or a list is one key: its entries are the user's).
fn schema_keys() -> Vec<String> {
    fn walk(prefix: &str, value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) if !map.is_empty() => {
                for (key, value) in map {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    walk(&path, value, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    let mut out = Vec::new();
    walk(
        "",
        &serde_json::to_value(Config::default()).unwrap(),
        &mut out,
    );
    out.sort();
    out
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("the crate lies in crates/ of the workspace")
}

/// The body of test function `name` in `file`, if it has one.
fn test_body(file: &str, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(workspace().join(file)).ok()?;
    let start = text.find(&format!("fn {name}("))?;
    let rest = &text[start..];
    let end = rest.find("\n}\n").unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

#[test]
fn every_key_of_the_schema_is_acted_on_or_refused_and_no_other() {
    let acted: Vec<&str> = acted_keys().iter().map(|a| a.key).collect();
    let refused: Vec<&str> = UNBUILT.iter().map(|u| u.key).collect();
    let keys = schema_keys();
    for key in &keys {
        let listed =
            acted.contains(&key.as_str()) as usize + refused.contains(&key.as_str()) as usize;
        assert_eq!(
            listed, 1,
            "{key}: every key is either acted on (with evidence in acted_keys) or refused \
             (UNBUILT), exactly once"
        );
    }
    for key in acted.iter().chain(&refused) {
        assert!(
            keys.iter().any(|k| k == key),
            "{key} is no key of the schema"
        );
    }
}

#[test]
fn every_acted_key_has_evidence_that_holds() {
    let root = Path::new("/srv/kb");
    let default = serde_json::to_value(Config::default()).unwrap();
    let mut problems = Vec::new();
    for entry in acted_keys() {
        let key = entry.key;
        let mut fail = |problem: String| problems.push(format!("{key}: {problem}"));
        if !entry.space && entry.test.is_none() {
            fail("no evidence that it is acted on".into());
        }
        let sample = parse(&entry.sample());
        let written = serde_json::to_value(&sample).unwrap();
        if at(&written, key) == at(&default, key) {
            fail("the sample leaves it at its default".into());
        }
        if let Err(e) = check(root, &sample) {
            fail(format!("the sample is refused: {}", e.message));
        }
        if entry.space {
            let context = parse(entry.context);
            let settings = |config: &Config| {
                format!("{:?}", quire_service::settings_from_config(root, config))
            };
            if settings(&sample) == settings(&context) {
                fail("the spaces open with the same settings whatever it says".into());
            }
        }
        if let Some((file, name, mentions)) = entry.test {
            let word = if mentions.is_empty() {
                key.rsplit('.').next().unwrap()
            } else {
                mentions
            };
            match test_body(file, name) {
                None => fail(format!("no test {name} in {file}")),
                Some(body) if !body.contains(word) => {
                    fail(format!("the test {name} in {file} does not set {word}"))
                }
                Some(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_refused_key_stops_the_start_naming_it_and_what_builds_it() {
    let sampled: Vec<&str> = REFUSED.iter().map(|(k, _)| *k).collect();
    let refused: Vec<&str> = UNBUILT.iter().map(|u| u.key).collect();
    assert_eq!(
        sampled, refused,
        "one sample per refused key, in the same order"
    );
    for (key, sample) in REFUSED {
        let err = check(Path::new("/srv/kb"), &parse(sample))
            .expect_err(key)
            .message;
        assert!(err.starts_with("refusing to start"), "{err}");
        assert!(err.contains(&format!("{key}: ")), "{key}: {err}");
        assert!(
            err.contains("builds it") || err.contains("no plan builds it"),
            "{key}: {err}"
        );
    }
}

#[test]
fn the_init_template_shows_only_settings_that_work() {
    let refused: Vec<&str> = UNBUILT.iter().map(|u| u.key).collect();
    let mut section = String::new();
    for line in quire_config::default_config_toml().lines() {
        let text = line.trim_start_matches('#').trim();
        if let Some(name) = text
            .strip_prefix("[[")
            .and_then(|t| t.strip_suffix("]]"))
            .or_else(|| text.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        {
            section = name.to_string();
            continue;
        }
        let Some((key, _)) = text.split_once(" = ") else {
            continue;
        };
        if !key.chars().all(|c| c.is_ascii_lowercase() || c == '_') || key.is_empty() {
            continue;
        }
        let dotted = format!("{section}.{key}");
        assert!(
            !refused.contains(&dotted.as_str()) && !refused.contains(&section.as_str()),
            "the template shows {dotted}, which is not built"
        );
    }
}

#[test]
fn defaults_start() {
    assert!(check(Path::new("/srv/kb"), &Config::default()).is_ok());
}

#[test]
fn a_backup_remote_must_be_local_and_versioned_by_git() {
    let root = Path::new("/srv/kb");
    let err = check(
        root,
        &parse("[backup]\nremote = \"git@example.com:kb.git\"\n"),
    )
    .expect_err("ssh")
    .message;
    assert!(
        err.contains("backup.remote") && err.contains("local"),
        "{err}"
    );
    let err = check(
        root,
        &parse("[backup]\nremote = \"/srv/b.git\"\n[versioning]\nstrategy = \"cow\"\n"),
    )
    .expect_err("cow")
    .message;
    assert!(err.contains("versioning.strategy is cow"), "{err}");
    let err = check(
        root,
        &parse("[backup]\nremote = \"/srv/b.git\"\nbranch = \"a..b\"\n"),
    )
    .expect_err("branch")
    .message;
    assert!(err.contains("backup.branch"), "{err}");
    assert!(check(root, &parse("[backup]\nremote = \"file:///srv/b.git\"\n")).is_ok());
}

#[test]
fn every_problem_is_named_at_once() {
    let err = check(
        Path::new("/srv/kb"),
        &parse(
            "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"milvus\"\n\
             [protocols.s3]\nenabled = true\n",
        ),
    )
    .expect_err("two unbuilt settings")
    .message;
    assert!(
        err.contains("search.vector.store.provider") && err.contains("protocols.s3.enabled"),
        "{err}"
    );
}

#[test]
fn stores_not_built_stop_the_start_with_vector_search_on() {
    for provider in ["pinecone", "weaviate", "milvus"] {
        let on = format!(
            "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"{provider}\"\n"
        );
        let err = check(Path::new("/srv/kb"), &parse(&on))
            .expect_err(provider)
            .message;
        assert!(
            err.contains("search.vector.store.provider") && err.contains("not built"),
            "{err}"
        );
        // Off, the store is never opened: nothing to refuse.
        let off = on.replace("enabled = true", "enabled = false");
        assert!(check(Path::new("/srv/kb"), &parse(&off)).is_ok());
    }
}

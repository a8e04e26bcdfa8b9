//! The commented `.quire/config.toml` that `quire init` writes.

/// The config file `quire init` writes: every setting this version acts on, its default
/// shown as a commented `# key = value` line (uncommenting one changes nothing until it is
/// edited), and indented examples for keys without a default. Settings that are not built
/// yet (vector search) are left out: `quire serve` refuses them. It parses to `Config::default()` with no warnings.
pub fn default_config_toml() -> &'static str {
    DEFAULT_CONFIG_TOML
}

const DEFAULT_CONFIG_TOML: &str = r#"# quire configuration.
#
# Every setting is shown with its default value, commented out: uncomment a line and edit it
# to change that setting. Keys this version does not know are reported as warnings at start;
# settings it knows but does not carry out yet (not shown here) stop the server.
# String values may read environment variables as ${NAME}; write $${ for a literal ${.
# The environment variables QUIRE_HOST, QUIRE_PORT, QUIRE_VERSIONING, QUIRE_AUTH_TYPE and
# QUIRE_API_KEY override this file.

[server]
# Address and port of the HTTP server. The default answers this machine only; "0.0.0.0"
# listens on every interface (switch [auth] on first: see below).
# host = "127.0.0.1"
# port = 3333
# Browser origins allowed to call the API (added to [server.cors] allowed_origins).
# cors_origins = []
# The address users reach the server at when it sits behind a proxy: share links, published
# pages and the feeds hand out links under it. For example:
#   public_url = "https://kb.example.com"
# Time a client has to send a request's line and headers before its connection is closed
# (slow clients holding connections open); "0" waits forever.
# header_read_timeout = "20s"
# Most event streams (GET /events) open at once; one more is answered 503.
# max_event_streams = 1000

[server.cors]
# Cross-origin access for browser clients; "*" allows every origin.
# allowed_origins = []
# allowed_methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
# allow_credentials = false
# Seconds a browser may cache the answer to a preflight request.
# max_age = 600

[server.rate_limit]
# Requests per minute per API key (per client address when anonymous); 0 turns limiting off.
# Health, readiness and metrics routes are never limited.
# requests_per_minute = 0
# burst_size = 50

[space]
# Who may browse this knowledge base: private (everything needs authentication),
# unlisted (reachable by URL, not listed) or public (pages with `visibility: public`
# frontmatter are readable without authentication).
# visibility = "private"

[auth]
# none, apikey (one key in api_key), perspace (one key per space in [[auth.api_keys]])
# or oidc (JWTs from issuer for client_id). Clients send `Authorization: Bearer <key>`.
# type = "none"
# For type = "apikey", for example:
#   api_key = "${QUIRE_KEY}"
# For type = "oidc", for example:
#   issuer = "https://login.example.com"   # discovery must be reachable at start
#   client_id = "quire"                    # the tokens' audience
#   actor_claim = "sub"                    # the claim naming the author of writes
#   oidc_scope = "write"                   # read, write or admin for signed-in people
# Per-space and scoped keys, for example (`quire token create --scope read|write|admin`
# adds entries holding only an `id` and an Argon2 `key_hash`; SIGHUP reloads them):
#   [[auth.api_keys]]
#   key = "${WORK_KEY}"
#   space = "work"
#   actor = "ci-bot"
#   scope = "write"           # read, write or admin (the default)

[search]
# Full-text engine: sqlite (indexed, BM25 ranking) or grep (scan files, no index).
# engine = "sqlite"
# Writes never wait for the index: changes within index_window_ms are indexed together, at
# most index_batch_max at a time. By default a search or query made after a write waits for
# it (read-your-writes); async_index = true lets reads go on without waiting, and the index
# then yields the CPU to writes during bursts (it catches up after them).
# async_index = false
# index_window_ms = 200
# index_batch_max = 50

[versioning]
# git (every write is a commit), cow (snapshots without git) or none (no history).
# strategy = "git"
# Writes within batch_window_ms share one commit of at most batch_max_size writes.
# async_commit = true
# batch_window_ms = 200
# batch_max_size = 50
# Backpressure: a write waits while an acknowledged write older than max_commit_lag_ms is
# not committed yet, or while more than max_pending files wait for their commit. This bounds
# what is left to commit at shutdown. At least batch_window_ms and batch_max_size.
# max_commit_lag_ms = 2000
# max_pending = 2000
# Versions kept per file with strategy = "cow".
# max_versions = 100

[assets]
# Uploads: the largest accepted file and the accepted media types (empty accepts any).
# max_file_size = "10MB"
# allowed_types = ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"]

[ui]
# Forbid changing the theme from the web UI.
# theme_locked = false

[backup]
# Push the history to a git repository at start, every interval and at a clean stop; off
# while no remote is set. The remote is a local path (relative to this root) or a file://
# URL, for example a bare repository on a mounted disk:
#   remote = "/mnt/backup/knowledge.git"
# interval = "1h"
# The branch the history goes to; other spaces go to spaces/<name>/<branch>.
# branch = "main"
# Fetch first and, when the remote has commits this root lacks, take them in and replay
# this root's commits on top; false refuses to push over them (an error in GET /backup).
# rebase_before_push = true

[janitor]
# The janitor (GET /janitor, and a scan every interval whose report is kept in
# .quire/state/janitor.json) calls a page stale when its review-by date has passed, or when
# it was not modified for this many days (0: only review-by). `quire janitor` asks 90.
# stale_days = 30
# Between two scheduled scans ("0s": none); the first comes after one interval, or at
# start with startup_scan.
# interval = "1h"
# startup_scan = false

[analytics]
# The dashboard and page health count a page as stale when its review-by date has passed,
# or when it was not modified for this many days (0: only review-by).
# stale_days = 30
# Count the reads of pages (GET /file, quire_read, published pages, share links) by day,
# client and reader, in .quire/state/page_views.db, for GET /analytics/views and /v2.
# track_views = false

[dataview]
# Bounds of metadata queries and computed views.
# max_scan_rows = 10000
# query_timeout = "5s"
# Fields computed for every page (name = expression), for example:
#   [dataview.computed_fields]
#   is_draft = 'fm.status = "draft"'

[memory]
# Folder of episodic memory pages read by the memory report.
# episodes_path_prefix = "memory/episodes/"

[drafts]
# Draft branches (need git versioning); drafts untouched for auto_discard are dropped.
# enabled = true
# max_active = 10
# auto_discard = "720h"

[workflow]
# Refuse state changes that no workflow definition lists.
# enforce_transitions = false
# Transitions allowed in every workflow, written "from->to".
# transitions = []

[audit]
# Log every change made through the API and every refused request to
# .quire/state/audit.jsonl (time, route, status, actor, a hash of the token, space, client
# address; read with GET /audit and an admin key).
# enabled = false

[webhooks]
# Signed POSTs of write events to registered URLs.
# enabled = false
# max_workers = 4
# max_retries = 3

[schema]
# Validate frontmatter against .quire/schemas/<type>.json on every write.
# enforce = false

[claims]
# Advisory claims on paths; a claim without a lease lasts default_lease (1m to 24h).
# enabled = true
# default_lease = "30m"

[protocols.mcp]
# MCP over streamable HTTP at http://host:port/mcp, with the same [auth] as the REST API
# (`quire mcp` on stdio needs nothing here; it reaches a running server through /mcp on the
# REST port).
# enabled = true
# port = 8181

[protocols.webdav]
# WebDAV (Finder, Explorer, rclone…): the default space at /, other spaces under /<name>/.
# With [auth] on, clients log in with HTTP Basic: user name the key's actor, password the
# API key. A rename (MOVE) rewrites links like POST /rename.
# enabled = false
# port = 3335

[protocols.nfs]
# NFSv3 with its mount protocol on the same port (libnfs clients need no portmapper): the
# default space at /, other spaces under /<name>/, any folder mountable by its path. A file's
# writes are committed once, when the file has been quiet for a moment; a rename rewrites
# links like POST /rename. NFS has no credentials quire can check: every write is authored
# by `actor`, and with a [server] host other than loopback the server refuses to start
# unless allow_remote = true.
# enabled = false
# port = 2049
# actor = "nfs"
# read_only = false
# allow_remote = false

[protocols.fuse]
# Mount the default space as a folder while the server runs (an existing, empty folder;
# needs /dev/fuse and fusermount3). `quire mount --root DIR MOUNTPOINT` does the same alone.
# For example (nothing is mounted by default; writes are authored `fuse`):
#   mountpoint = "/mnt/knowledge"
#   actor = "fuse"

[protocols.s3]
# The S3-compatible API (boto3, the aws CLI, rclone…): each space is a bucket, path-style
# URLs (http://host:port/<space>/<key>), every PUT one commit by the key's `actor`. Clients
# sign (SigV4) with a key set here; enabled without one refuses to start. SigV4 needs the
# secret itself, so read it from the environment rather than writing it here. Requests count
# against [server.rate_limit] per key and are in the audit log under /s3 ([audit]).
# enabled = false
# port = 3334
# For example (no key is set by default):
#   access_key = "quire"
#   secret_key = "${QUIRE_S3_SECRET}"
# actor = "s3"
# "read" refuses every write (AccessDenied); "write" may read and write.
# scope = "write"
# region = "us-east-1"
# More keys, each its own principal (a repeated access key or a space that does not exist
# refuses to start), for example:
#   [[protocols.s3.keys]]
#   access_key = "dashboards"
#   secret_key = "${DASHBOARDS_S3_SECRET}"
#   actor = "dashboards"      # the author of its writes (default "s3")
#   scope = "read"            # read or write (the default)
#   space = "work"            # the only bucket it sees (default: every space)

[refactor]
# Agent plans writing more files, or rewriting more links, than these need a person's
# approval. 0 means the default (50 files, 200 links); -1 turns the check off.
# approval_files = 0
# approval_links = 0
# Globs no restructuring may touch.
# protect = []
# The only folder restructurings may touch, for example:
#   scope = "notes/"

# More knowledge bases served by this server, each with its own root, for example:
#   [[spaces]]
#   name = "work"
#   root = "/srv/knowledge-work"
"#;

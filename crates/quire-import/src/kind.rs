//! The kinds of source: the spec's identifiers, those this crate builds, where each is read
//! from.

use crate::ImportError;

/// The spec's source identifiers, in its order.
pub const SOURCES: [&str; 19] = [
    "postgres",
    "mysql",
    "sqlite",
    "mongodb",
    "firestore",
    "dynamodb",
    "redis",
    "elasticsearch",
    "csv",
    "json",
    "jsonl",
    "yaml",
    "excel",
    "notion",
    "airtable",
    "gsheets",
    "obsidian",
    "confluence",
    "markdown",
];

/// A source this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Csv,
    Json,
    Jsonl,
    Yaml,
    Excel,
    Sqlite,
    Markdown,
    Obsidian,
    Postgres,
    Mysql,
    Redis,
    Notion,
    Airtable,
    Elasticsearch,
    Mongodb,
    Firestore,
    Gsheets,
    Confluence,
    Dynamodb,
}

impl SourceKind {
    /// Every source this crate builds.
    pub const BUILT: [SourceKind; 19] = [
        SourceKind::Csv,
        SourceKind::Json,
        SourceKind::Jsonl,
        SourceKind::Yaml,
        SourceKind::Excel,
        SourceKind::Sqlite,
        SourceKind::Markdown,
        SourceKind::Obsidian,
        SourceKind::Postgres,
        SourceKind::Mysql,
        SourceKind::Redis,
        SourceKind::Notion,
        SourceKind::Airtable,
        SourceKind::Elasticsearch,
        SourceKind::Mongodb,
        SourceKind::Firestore,
        SourceKind::Gsheets,
        SourceKind::Confluence,
        SourceKind::Dynamodb,
    ];

    /// The source `id` names: a spec identifier this crate does not build is
    /// [`ImportError::NotBuilt`], anything else [`ImportError::BadRequest`].
    pub fn parse(id: &str) -> Result<SourceKind, ImportError> {
        let id = id.trim();
        if let Some(kind) = SourceKind::BUILT.into_iter().find(|k| k.id() == id) {
            return Ok(kind);
        }
        if SOURCES.contains(&id) {
            return Err(ImportError::NotBuilt(format!(
                "import source `{id}` is not built by this server yet (GET /import/sources lists what is)"
            )));
        }
        Err(ImportError::BadRequest(format!(
            "unknown import source {id:?}; sources are {}",
            SOURCES.join(", ")
        )))
    }

    pub fn id(self) -> &'static str {
        match self {
            SourceKind::Csv => "csv",
            SourceKind::Json => "json",
            SourceKind::Jsonl => "jsonl",
            SourceKind::Yaml => "yaml",
            SourceKind::Excel => "excel",
            SourceKind::Sqlite => "sqlite",
            SourceKind::Markdown => "markdown",
            SourceKind::Obsidian => "obsidian",
            SourceKind::Postgres => "postgres",
            SourceKind::Mysql => "mysql",
            SourceKind::Redis => "redis",
            SourceKind::Notion => "notion",
            SourceKind::Airtable => "airtable",
            SourceKind::Elasticsearch => "elasticsearch",
            SourceKind::Mongodb => "mongodb",
            SourceKind::Firestore => "firestore",
            SourceKind::Gsheets => "gsheets",
            SourceKind::Confluence => "confluence",
            SourceKind::Dynamodb => "dynamodb",
        }
    }

    /// Where the source is: a file, a folder, a database server or a web service.
    pub fn place(self) -> Place {
        match self {
            SourceKind::Markdown | SourceKind::Obsidian => Place::Folder,
            SourceKind::Postgres | SourceKind::Mysql | SourceKind::Redis => Place::Server,
            SourceKind::Notion
            | SourceKind::Airtable
            | SourceKind::Elasticsearch
            | SourceKind::Mongodb
            | SourceKind::Firestore
            | SourceKind::Gsheets
            | SourceKind::Confluence
            | SourceKind::Dynamodb => Place::Service,
            _ => Place::File,
        }
    }

    /// Whether the source is a folder (`connection.path`) rather than a file.
    pub fn is_folder(self) -> bool {
        self.place() == Place::Folder
    }

    /// The URL schemes of a server source's DSN (the first is its name).
    pub fn schemes(self) -> &'static [&'static str] {
        match self {
            SourceKind::Postgres => &["postgres", "postgresql"],
            SourceKind::Mysql => &["mysql", "mariadb"],
            SourceKind::Redis => &["redis"],
            _ => &[],
        }
    }
}

/// Where a kind of source is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `connection.file`: a file in the root or an upload.
    File,
    /// `connection.path` (or `connection.file`): a folder in the root, or a zip of one.
    Folder,
    /// `connection.dsn`: a database server.
    Server,
    /// `connection.uri` (or the service's real URL) and `connection.api_key`: a web service
    /// read over HTTP (`crate::web`).
    Service,
}

/// Whether this crate builds the spec's source `id`.
pub fn is_built(id: &str) -> bool {
    SourceKind::BUILT.iter().any(|k| k.id() == id)
}

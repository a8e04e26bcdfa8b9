//! Frontmatter schemas: a JSON Schema per page type in `.quire/schemas/<type>.json` (written
//! through the pipeline like pages), and their enforcement.
//!
//! **Enforcement** (`[schema] enforce = true`) is a step of the one pipeline, before the
//! write lock ([`SchemaCheck`], registered by the space as a [`BeforeWrite`] hook): every page a change writes whose frontmatter `type` names an existing schema
//! must satisfy it (the frontmatter as JSON), or the whole change is refused with a 400
//! carrying `type` and `violations` and nothing is written. So every entry point is covered:
//! file PUT, bulk, append, MCP, restructuring edits, draft merges. A schema the same change
//! writes is the one that applies. Compiled schemas are cached per type and compiled again
//! when the schema file's content changes (its ETag is compared on every check; only pages
//! with a `type` pay for that read). Edits made outside quire are not refused: the file is
//! on disk already; the next write through quire is checked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use quire_api::WriteResult;
use quire_store::{etag, Root, StoreError};
use serde_json::Value;

use crate::change::FileOp;
use crate::change::WriteOptions;
use crate::core::SpaceCore;
use crate::documents::Documents;
use crate::error::{Error, ErrorCode, Payload, Result};
use crate::files::FileContent;
use crate::hooks::BeforeWrite;

/// Where schemas live inside the root.
pub const SCHEMAS_DIR: &str = ".quire/schemas";

/// The schemas, one JSON file a page type.
const SCHEMAS: Documents = Documents {
    dir: SCHEMAS_DIR,
    kind: "schema",
};

/// Largest schema accepted.
pub const SCHEMA_MAX_BYTES: usize = 1 << 20;

/// Violations reported per refused page, at most.
const VIOLATIONS_MAX: usize = 50;

/// The pipeline's schema step (registered by the space when `[schema] enforce` is on): the
/// compiled schemas by type, with the ETag of the file each was compiled from.
#[derive(Default)]
pub(crate) struct SchemaCheck {
    compiled: Mutex<HashMap<String, (String, Arc<jsonschema::Validator>)>>,
}

/// The frontmatter schemas of one space.
#[derive(Clone, Copy)]
pub struct Schemas<'a>(pub(crate) &'a SpaceCore);

impl Schemas<'_> {
    /// The page types that have a schema, sorted.
    pub fn list(&self) -> Result<Vec<String>> {
        SCHEMAS.names(&self.0.root)
    }

    /// The schema of a type, as stored.
    pub fn get(&self, name: &str) -> Result<FileContent> {
        let bytes = SCHEMAS.read(&self.0.root, name)?;
        Ok(FileContent {
            etag: etag(&bytes),
            bytes,
        })
    }

    /// Stores the schema of a type, after checking that it is a JSON Schema.
    pub fn put(&self, name: &str, body: Vec<u8>, opts: &WriteOptions) -> Result<WriteResult> {
        let path = SCHEMAS.path(name)?;
        if body.len() > SCHEMA_MAX_BYTES {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!("a schema may hold at most {SCHEMA_MAX_BYTES} bytes"),
            ));
        }
        let schema: Value = serde_json::from_slice(&body)
            .map_err(|e| Error::bad_request(format!("the schema is not JSON: {e}")))?;
        compile(&schema)
            .map_err(|e| Error::bad_request(format!("not a valid JSON Schema: {e}")))?;
        let applied = SCHEMAS.write_one(self.0, name, body, opts)?;
        let file = &applied.files[0];
        Ok(WriteResult {
            path: path.to_string(),
            etag: file.etag.clone().unwrap_or_default(),
            created: file.created,
            commit: applied.commit,
        })
    }
}

impl BeforeWrite for SchemaCheck {
    /// Every page `ops` writes with a `type` that has a schema satisfies it (see the module
    /// comment).
    fn check(&self, root: &Root, ops: &[FileOp]) -> Result<()> {
        for op in ops {
            let Some(content) = &op.content else { continue };
            if !op.path.is_page() {
                continue;
            }
            let Ok(text) = std::str::from_utf8(content) else {
                continue;
            };
            let Some(frontmatter) = quire_syntax::parse_frontmatter(text) else {
                continue;
            };
            let Some(page_type) = frontmatter.value.get("type").and_then(Value::as_str) else {
                continue;
            };
            let page_type = page_type.trim();
            if SCHEMAS.path(page_type).is_err() {
                continue;
            }
            let Some(validator) = self.schema_for(root, page_type, ops)? else {
                continue;
            };
            let violations: Vec<String> = validator
                .iter_errors(&frontmatter.value)
                .take(VIOLATIONS_MAX)
                .map(|e| match e.instance_path().as_str() {
                    "" => e.to_string(),
                    at => format!("{at}: {e}"),
                })
                .collect();
            if !violations.is_empty() {
                return Err(Error {
                    payload: Some(Payload::SchemaViolation {
                        page_type: page_type.to_string(),
                        violations: violations.clone(),
                    }),
                    ..Error::bad_request(format!(
                        "{} violates the schema of type {page_type}: {}",
                        op.path,
                        violations.join("; ")
                    ))
                });
            }
        }
        Ok(())
    }
}

impl SchemaCheck {
    /// The compiled schema of `page_type`: the one `ops` writes, else the stored one (cached
    /// by ETag); `None` when there is none.
    fn schema_for(
        &self,
        root: &Root,
        page_type: &str,
        ops: &[FileOp],
    ) -> Result<Option<Arc<jsonschema::Validator>>> {
        let path = SCHEMAS.path(page_type)?;
        let bytes = match ops.iter().find(|op| op.path == path) {
            Some(op) => match &op.content {
                Some(bytes) => bytes.clone(),
                None => return Ok(None),
            },
            None => match root.read(&path) {
                Ok(bytes) => bytes,
                Err(StoreError::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(e.into()),
            },
        };
        let tag = etag(&bytes);
        let mut cache = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((cached, validator)) = cache.get(page_type) {
            if *cached == tag {
                return Ok(Some(validator.clone()));
            }
        }
        let unusable = |e: String| {
            Error::unprocessable(format!(
                "the schema {path} cannot be used ({e}); fix it with PUT /schemas/{page_type}"
            ))
        };
        let schema: Value = serde_json::from_slice(&bytes).map_err(|e| unusable(e.to_string()))?;
        let validator = Arc::new(compile(&schema).map_err(unusable)?);
        cache.insert(page_type.to_string(), (tag, validator.clone()));
        Ok(Some(validator))
    }
}

/// Compiles a schema (which checks it against its meta-schema); references are never fetched.
fn compile(schema: &Value) -> std::result::Result<jsonschema::Validator, String> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err("a schema is a JSON object (or a boolean)".into());
    }
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

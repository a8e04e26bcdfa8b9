//! Uploaded assets: storing a file under `assets/` through the write pipeline, choosing its
//! name and writing it in one step.

use quire_vault::PagePath;

use crate::change::WriteOptions;
use crate::change::{Change, Expect, FileOp};
use crate::error::{Error, ErrorCode, Result};
use crate::files::Files;

/// The folder uploaded assets go to.
pub const ASSETS_DIR: &str = "assets";

impl Files<'_> {
    /// Stores an upload as `assets/<file name>`. An existing file with other bytes keeps its
    /// name and the upload gets `-1`, `-2` … before its extension; the same bytes again reuse
    /// the existing file.
    pub fn store_asset(
        &self,
        file_name: &str,
        media_type: Option<&str>,
        bytes: Vec<u8>,
        opts: &WriteOptions,
    ) -> Result<quire_api::AssetResult> {
        self.store_asset_at(file_name, media_type, bytes, opts)
            .map(|path| quire_api::AssetResult {
                path: path.to_string(),
            })
    }

    fn store_asset_at(
        &self,
        file_name: &str,
        media_type: Option<&str>,
        bytes: Vec<u8>,
        opts: &WriteOptions,
    ) -> Result<PagePath> {
        if bytes.len() as u64 > self.0.assets.max_file_size {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "the file is {} bytes; assets may be at most {} bytes ([assets] max_file_size)",
                    bytes.len(),
                    self.0.assets.max_file_size
                ),
            ));
        }
        let media_type = media_type
            .map(str::to_string)
            .unwrap_or_else(|| media_type_of(file_name).to_string());
        if !type_allowed(&self.0.assets.allowed_types, &media_type) {
            return Err(Error::new(
                ErrorCode::UnsupportedMediaType,
                format!(
                    "media type {media_type} is not allowed for assets (allowed: {})",
                    self.0.assets.allowed_types.join(", ")
                ),
            ));
        }
        let name = clean_file_name(file_name)?;
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => (&name[..i], &name[i..]),
            _ => (name.as_str(), ""),
        };
        let wanted = crate::etag(&bytes);
        let mut n = 0;
        while n < 1000 {
            let candidate = if n == 0 {
                format!("{ASSETS_DIR}/{name}")
            } else {
                format!("{ASSETS_DIR}/{stem}-{n}{ext}")
            };
            let path = PagePath::new(&candidate)?;
            match self.read(path.as_str()) {
                Ok(existing) if existing.etag == wanted => return Ok(path),
                Ok(_) => n += 1,
                Err(e) if e.code == ErrorCode::NotFound => {
                    // The name is taken by the write itself: the pipeline checks under the
                    // space's write lock that the path is still free, so two uploads racing
                    // for one name cannot both have it. The loser looks at the name again (it
                    // may now hold the same bytes) and moves on.
                    match self.0.apply(Change::one(
                        FileOp {
                            path: path.clone(),
                            content: Some(bytes.clone()),
                            expect: Expect::Absent,
                        },
                        opts,
                        String::new,
                    )) {
                        Ok(_) => return Ok(path),
                        Err(e) if e.code == ErrorCode::Conflict => continue,
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Err(Error::conflict(format!(
            "too many assets named like {name}; rename the file"
        )))
    }
}

/// The last path component of an upload's name, without characters that are not portable.
fn clean_file_name(name: &str) -> Result<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("").trim();
    let cleaned: String = base
        .chars()
        .map(|c| {
            if c.is_control()
                || matches!(
                    c,
                    ':' | '*' | '?' | '"' | '<' | '>' | '|' | '#' | '^' | '[' | ']'
                )
            {
                '-'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned
        .trim_matches(|c: char| c == '.' || c == ' ')
        .to_string();
    if cleaned.is_empty() {
        return Err(Error::bad_request(
            "the uploaded file needs a file name (multipart field `file` with a filename)",
        ));
    }
    Ok(cleaned)
}

fn type_allowed(allowed: &[String], media_type: &str) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let media_type = media_type.split(';').next().unwrap_or("").trim();
    allowed.iter().any(|a| {
        let a = a.trim();
        a == "*/*"
            || a.eq_ignore_ascii_case(media_type)
            || a.strip_suffix("/*").is_some_and(|family| {
                media_type
                    .split('/')
                    .next()
                    .is_some_and(|f| f.eq_ignore_ascii_case(family))
            })
    })
}

/// Media type from the file extension, for uploads that do not say.
pub fn media_type_of(name: &str) -> &'static str {
    let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "md" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_allowed_matches_exact_types_and_families() {
        let allowed = vec!["image/*".to_string(), "application/pdf".to_string()];
        assert!(type_allowed(&allowed, "image/png"));
        assert!(type_allowed(&allowed, "application/pdf"));
        assert!(!type_allowed(&allowed, "text/html"));
        assert!(type_allowed(&[], "text/html"));
    }

    #[test]
    fn clean_file_name_keeps_only_the_last_component() {
        assert_eq!(clean_file_name("../../etc/passwd").unwrap(), "passwd");
        assert_eq!(clean_file_name("C:\\x\\a:b.png").unwrap(), "a-b.png");
        assert!(clean_file_name("..").is_err());
    }
}

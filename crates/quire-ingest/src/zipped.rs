//! Reading the parts of a zip package (docx, odt, pptx, epub) within [`Limits`]: the bytes a
//! part unpacks to are counted as they come out, never taken from the archive's own claims,
//! so a zip bomb stops at the cap instead of filling memory.

use std::io::{Cursor, Read};

use zip::ZipArchive;

use crate::dom::Dom;
use crate::{IngestError, Limits};

pub(crate) struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    /// Bytes the parts read so far may still unpack to.
    budget: u64,
    part_max: u64,
}

impl<'a> Archive<'a> {
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Archive<'a>, IngestError> {
        let zip = ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| IngestError::Corrupt(format!("not a readable zip package: {e}")))?;
        if zip.len() > limits.max_entries {
            return Err(IngestError::TooLarge(format!(
                "the package holds {} files, more than {}",
                zip.len(),
                limits.max_entries
            )));
        }
        Ok(Archive {
            zip,
            budget: limits.max_unpacked,
            part_max: limits.max_part,
        })
    }

    /// The bytes of part `name`, or `None` when the package has no such part.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, IngestError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let file = self
            .zip
            .by_index(index)
            .map_err(|e| IngestError::Corrupt(format!("{name}: {e}")))?;
        let cap = self.part_max.min(self.budget);
        let mut out = Vec::new();
        file.take(cap + 1)
            .read_to_end(&mut out)
            .map_err(|e| IngestError::Corrupt(format!("{name}: {e}")))?;
        if out.len() as u64 > cap {
            return Err(IngestError::TooLarge(format!(
                "{name} unpacks to more than {cap} bytes (a part holds at most {} bytes, a \
document at most {} in all)",
                self.part_max, self.budget
            )));
        }
        self.budget -= out.len() as u64;
        Ok(Some(out))
    }

    /// Part `name` as text (UTF-8, a byte order mark dropped).
    pub fn text(&mut self, name: &str) -> Result<Option<String>, IngestError> {
        let Some(bytes) = self.read(name)? else {
            return Ok(None);
        };
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        String::from_utf8(bytes.to_vec())
            .map(Some)
            .map_err(|_| IngestError::Corrupt(format!("{name} is not UTF-8 text")))
    }

    /// Part `name` parsed as XML.
    pub fn xml(&mut self, name: &str) -> Result<Option<Dom>, IngestError> {
        match self.text(name)? {
            Some(text) => Dom::parse_xml(&text).map(Some).map_err(|e| match e {
                IngestError::Corrupt(m) => IngestError::Corrupt(format!("{name}: {m}")),
                e => e,
            }),
            None => Ok(None),
        }
    }

    /// Part `name`, which the package must hold.
    pub fn required_xml(&mut self, name: &str, what: &str) -> Result<Dom, IngestError> {
        self.xml(name)?
            .ok_or_else(|| IngestError::Corrupt(format!("not a {what}: it has no {name}")))
    }
}

/// `target` (a relationship's or a link's path, `/` separated) relative to the folder `base`,
/// `..` and `.` resolved; a leading `/` means the package's root. Query and fragment are cut.
pub(crate) fn resolve(base: &str, target: &str) -> String {
    let target = target.split(['#', '?']).next().unwrap_or("");
    let mut parts: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|s| !s.is_empty()).collect()
    };
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The folder of a part's path (`word/document.xml` → `word`).
pub(crate) fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The relationships of part `part` (`word/document.xml` → `word/_rels/document.xml.rels`):
/// id → (resolved target, external).
pub(crate) fn relationships(
    archive: &mut Archive<'_>,
    part: &str,
) -> Result<std::collections::HashMap<String, (String, bool)>, IngestError> {
    let dir = folder(part);
    let name = part.rsplit('/').next().unwrap_or(part);
    let rels = if dir.is_empty() {
        format!("_rels/{name}.rels")
    } else {
        format!("{dir}/_rels/{name}.rels")
    };
    let mut out = std::collections::HashMap::new();
    let Some(dom) = archive.xml(&rels)? else {
        return Ok(out);
    };
    for rel in dom.find_all(Dom::ROOT, "Relationship") {
        let (Some(id), Some(target)) = (dom.attr(rel, "Id"), dom.attr(rel, "Target")) else {
            continue;
        };
        let external = dom.attr(rel, "TargetMode") == Some("External");
        let target = if external {
            target.to_string()
        } else {
            resolve(dir, target)
        };
        out.insert(id.to_string(), (target, external));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_against_the_folder() {
        assert_eq!(resolve("ppt/slides", "../media/a.png"), "ppt/media/a.png");
        assert_eq!(resolve("OEBPS", "text/c2.xhtml#s1"), "OEBPS/text/c2.xhtml");
        assert_eq!(resolve("word", "/customXml/x.xml"), "customXml/x.xml");
    }
}

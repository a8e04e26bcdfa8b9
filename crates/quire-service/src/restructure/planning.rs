//! Planning a manifest against the space's live link model: the planner's workspace, with the
//! files read lazily, only for the pages the plan must rewrite.

use quire_restructure::{Manifest, PageTimes, PlanOptions, Planned, SourceFile, Workspace};
use quire_store::{etag, DiskName, StoreError};
use quire_vault::PagePath;

use super::state::{PlanKey, Restructuring};
use super::PERSONAL_DIR;
use crate::claims::Claims;
use crate::core::SpaceCore;
use crate::error::Result;

/// The space's files as the planner sees them.
struct DiskSource<'a> {
    core: &'a SpaceCore,
}

impl quire_restructure::Source for DiskSource<'_> {
    /// The text from disk; the ETag from the link model's cache when it has one (no hashing
    /// of every page a bulk edit reads). A page changed behind the server's back since the
    /// cache learnt it then carries an ETag older than its text, and apply's re-check of the
    /// ETag under the write lock refuses it with a conflict and a fresh plan.
    fn read(&self, path: &PagePath) -> Option<SourceFile> {
        if let Some(text) = self.core.unsaved_text(path) {
            let etag = etag(text.as_bytes());
            return Some(SourceFile { text, etag });
        }
        let bytes = self.core.root.read(path).ok()?;
        let etag = self
            .core
            .links
            .cached_etag(path)
            .unwrap_or_else(|| etag(&bytes));
        let text = String::from_utf8(bytes).ok()?;
        Some(SourceFile { text, etag })
    }

    /// Pages from the link model's cache; assets (not text, but they move too) from their
    /// raw bytes. A file changed behind the server's back makes apply's ETag re-check fail
    /// with a conflict, never a wrong write.
    fn etag(&self, path: &PagePath) -> Option<String> {
        self.core
            .links
            .cached_etag(path)
            .or_else(|| self.core.root.read(path).ok().map(|bytes| etag(&bytes)))
    }

    /// First and last commit of the page (one history walk, only for pages whose
    /// expressions read `date` or `modified`), else the file's modification time.
    fn times(&self, path: &PagePath) -> PageTimes {
        let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
        let versions = self.core.history.versions(path).unwrap_or_default();
        let mut times = PageTimes {
            created: versions.last().and_then(|v| parse(&v.timestamp)),
            modified: versions.first().and_then(|v| parse(&v.timestamp)),
        };
        if times.modified.is_none() {
            if let Some(modified) = self.core.root.modified(&DiskName::from(path)) {
                let at: chrono::DateTime<chrono::Utc> = modified.into();
                times.modified = Some(at.fixed_offset());
                times.created = times.created.or(times.modified);
            }
        }
        times
    }
}

/// Plans `manifest` for `actor` (pages other actors claim cannot be touched; `None` treats
/// every claim as another's), with the file operations that carry it out.
pub(super) fn planned(
    core: &SpaceCore,
    area: &Restructuring,
    manifest: &Manifest,
    diffs: bool,
    actor: Option<&str>,
) -> Result<Planned> {
    let personal_files = personal_files(core)?;
    let claimed = Claims(core).claimed_by_others(actor.unwrap_or(""))?;
    // The plan's `base` is the commit holding what the plan reads: writes still queued for a
    // batch commit are committed first, so the batch landing later does not change the
    // digest of a plan reviewed meanwhile.
    let base = core.history.settled_head();
    let key = PlanKey {
        manifest: serde_json::to_string(manifest).unwrap_or_default(),
        actor: actor.map(str::to_owned),
        diffs,
        head: base.clone(),
        generation: core.links.generation(),
        claimed: claimed.clone(),
        personal_files: personal_files.clone(),
    };
    let reusable = manifest.now.is_some() || manifest.edits.is_empty();
    if reusable {
        if let Some(planned) = area.plans.get(&key) {
            return Ok(planned);
        }
    }
    let names = core.links.names().clone();
    let vault = core.links.vault();
    let source = DiskSource { core };
    let workspace = Workspace {
        vault: &vault,
        source: &source,
        personal_files,
        protect: area.settings.protect.clone(),
        scope: area.settings.scope.clone(),
        claimed,
        base,
        actor: actor.map(str::to_owned),
        names,
    };
    let planned = quire_restructure::plan(
        &workspace,
        manifest,
        &PlanOptions {
            diffs,
            // The service is where the clock is read; the planner is given it.
            now: Some(chrono::Utc::now().fixed_offset()),
        },
    );
    drop(vault);
    // The link model may have moved on while planning: such a plan is not kept.
    if reusable && core.links.generation() == key.generation {
        area.plans.put(key, &planned);
    }
    Ok(planned)
}

/// The `.quire/personal/*.json` files that exist.
fn personal_files(core: &SpaceCore) -> Result<Vec<PagePath>> {
    let dir = PagePath::new(PERSONAL_DIR).expect("constant path is valid");
    let nodes = match core.root.tree(Some(&dir)) {
        Ok(nodes) => nodes,
        Err(StoreError::NotFound { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for node in nodes {
        if !node.is_dir && node.name.ends_with(".json") {
            out.push(PagePath::new(&node.path)?);
        }
    }
    Ok(out)
}

//! What restructuring keeps for itself, beside the space's core: its settings (`[refactor]`),
//! the script runner the binary gave it, and the last plan made.

use std::collections::BTreeMap;
use std::sync::Mutex;

use quire_restructure::Planned;
use quire_vault::PagePath;

use crate::settings::ScriptRunner;

/// The restructuring area of one space.
pub(crate) struct Restructuring {
    /// `[refactor]`: protected paths, scope, approval limits.
    pub(super) settings: quire_config::RefactorConfig,
    /// How restructuring scripts run; `None` when the embedding binary offers none.
    pub(super) script: Option<ScriptRunner>,
    /// The last plan made, for an apply of the same manifest.
    pub(super) plans: PlanCache,
}

impl Restructuring {
    pub(crate) fn new(
        settings: quire_config::RefactorConfig,
        script: Option<ScriptRunner>,
    ) -> Restructuring {
        Restructuring {
            settings,
            script,
            plans: PlanCache::default(),
        }
    }
}

/// The last plan made, so that applying the plan just reviewed does not plan it again. It is
/// reused only for the same manifest, actor and `diffs`, while HEAD, the link model, the
/// claims and the personal-state files are unchanged, and only when the plan cannot depend
/// on the clock (the manifest pins `now`, or has no edits). Apply still re-checks every
/// file's ETag under the write lock, so a file changed behind the link model's back is a
/// conflict, never a wrong write.
#[derive(Default)]
pub(super) struct PlanCache(Mutex<Option<(PlanKey, Planned)>>);

#[derive(PartialEq)]
pub(super) struct PlanKey {
    pub(super) manifest: String,
    pub(super) actor: Option<String>,
    pub(super) diffs: bool,
    pub(super) head: Option<String>,
    pub(super) generation: u64,
    pub(super) claimed: BTreeMap<PagePath, String>,
    pub(super) personal_files: Vec<PagePath>,
}

impl PlanCache {
    pub(super) fn get(&self, key: &PlanKey) -> Option<Planned> {
        let cached = self.0.lock().unwrap_or_else(|p| p.into_inner());
        cached
            .as_ref()
            .filter(|(k, _)| k == key)
            .map(|(_, planned)| planned.clone())
    }

    pub(super) fn put(&self, key: PlanKey, planned: &Planned) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((key, planned.clone()));
    }
}

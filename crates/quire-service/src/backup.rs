//! Backups of a space (`[backup]`): its history pushed to a branch of a git remote, at start,
//! every `interval` and at a clean stop, by a thread of the space.
//!
//! A round commits what is queued, fetches the remote branch and, when the remote has commits
//! this space lacks, moves the space onto them before pushing: `quire-store` replays the
//! space's commits onto the remote's in objects only, and the move itself is one pass of the
//! write pipeline ([`SpaceCore::adopt_history`]): the remote's files are written (each only if
//! it still holds what HEAD holds), then HEAD moves, under the space's one writer. A round
//! that cannot finish (remote unreachable, conflicting changes, a push refused) changes
//! nothing here and says why in the status; writes go on as before.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use quire_api::{BackupRebase, BackupStatus, ReplayedCommit};
use quire_store::{BackupError, BackupRemote, Integration};
use quire_vault::PagePath;

use crate::change::{Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::events::now_rfc3339;
use crate::outside::SYSTEM_ACTOR;
use crate::periodic::Periodic;
use crate::settings::BackupSettings;

/// How often a round prepares a move again when the space changed under it.
const ATTEMPTS: usize = 3;

/// The backup of one space: its remote, its status, its thread.
pub(crate) struct Backup {
    settings: BackupSettings,
    remote: BackupRemote,
    status: Mutex<BackupStatus>,
    /// One round at a time (the thread's, the last one at a stop).
    round: Mutex<()>,
    periodic: Periodic,
}

impl Backup {
    /// The backup of a space (`[backup]`), when one is set and this process writes the
    /// space; refused when the space is not versioned by git.
    pub(crate) fn of_space(
        core: &SpaceCore,
        settings: Option<BackupSettings>,
    ) -> Result<Option<Backup>> {
        let (Some(settings), Some(_)) = (settings, &core.writer) else {
            return Ok(None);
        };
        let history = &core.history;
        if history.strategy() != quire_store::Strategy::Git {
            return Err(Error::bad_request(format!(
                "[backup] pushes the git history, but the versioning strategy of {} is \
                 {}: set [versioning] strategy = \"git\" or remove [backup] remote",
                core.root.dir().display(),
                history.strategy()
            )));
        }
        Backup::open(&core.root, settings).map(Some)
    }

    /// The backup of a space whose git history is open; nothing is fetched or pushed until
    /// [`start`] runs it.
    fn open(root: &quire_store::Root, settings: BackupSettings) -> Result<Backup> {
        let remote = BackupRemote::open(root, &settings.url, &settings.branch)
            .map_err(|e| Error::bad_request(format!("[backup]: {e}")))?;
        let status = BackupStatus {
            enabled: true,
            remote: Some(settings.remote.clone()),
            branch: Some(settings.branch.clone()),
            interval: Some(quire_config::Duration::from(settings.interval).to_string()),
            rebase_before_push: Some(settings.rebase),
            ..BackupStatus::default()
        };
        Ok(Backup {
            settings,
            remote,
            status: Mutex::new(status),
            round: Mutex::new(()),
            periodic: Periodic::default(),
        })
    }

    pub(crate) fn status(&self) -> BackupStatus {
        self.status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Starts the backup thread of a space (once): a round now, then one every interval.
pub(crate) fn start(core: &Arc<SpaceCore>, backup: &Arc<Backup>) {
    let weak: Weak<SpaceCore> = Arc::downgrade(core);
    let weak_backup: Weak<Backup> = Arc::downgrade(backup);
    backup.periodic.start(
        "quire-backup",
        Duration::ZERO,
        backup.settings.interval,
        move || {
            let (Some(core), Some(backup)) = (weak.upgrade(), weak_backup.upgrade()) else {
                return false;
            };
            round(&core, &backup);
            true
        },
    );
}

/// Stops the thread of a space and makes a last round, so a clean stop leaves the remote
/// holding every write.
pub(crate) fn stop(core: &SpaceCore, backup: &Backup) {
    if backup.periodic.stop() {
        round(core, backup);
    }
}

/// What a round that went through did.
struct Pushed {
    commit: String,
    rebase: Option<BackupRebase>,
}

/// One round: its outcome goes into the status (and the log when it fails).
pub(crate) fn round(core: &SpaceCore, backup: &Backup) {
    let _one = backup.round.lock().unwrap_or_else(|p| p.into_inner());
    let started = now_rfc3339();
    let outcome = push_once(core, backup);
    let mut status = backup.status.lock().unwrap_or_else(|p| p.into_inner());
    status.last_attempt = Some(started);
    match outcome {
        Ok(Some(pushed)) => {
            status.last_push = Some(now_rfc3339());
            status.last_pushed_commit = Some(pushed.commit);
            status.error = None;
            status.failing_since = None;
            if let Some(rebase) = pushed.rebase {
                status.last_rebase = Some(rebase);
            }
        }
        // Nothing committed yet: nothing to back up.
        Ok(None) => {
            status.error = None;
            status.failing_since = None;
        }
        Err(message) => {
            if status.error.as_deref() != Some(message.as_str()) {
                tracing::warn!(space = %core.name, "backup failed: {message}");
            }
            status.error = Some(message);
            if status.failing_since.is_none() {
                status.failing_since = status.last_attempt.clone();
            }
        }
    }
}

fn push_once(core: &SpaceCore, backup: &Backup) -> std::result::Result<Option<Pushed>, String> {
    let said = |e: BackupError| e.to_string();
    for attempt in 1..=ATTEMPTS {
        // Acknowledged writes are committed first, so they are pushed too.
        let Some(head) = core.history.settled_head() else {
            return Ok(None);
        };
        let mut target = head.clone();
        let mut rebase = None;
        let fetched = backup.remote.fetch().map_err(said)?;
        if let Some(remote) = fetched.clone() {
            let integration = backup
                .remote
                .integrate(&head, &remote, backup.settings.rebase)
                .map_err(said)?;
            if let Integration::Move {
                to,
                onto,
                rewritten,
                files,
            } = integration
            {
                let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
                match move_onto(core, &head, &to, files) {
                    Ok(()) => {}
                    // Written or committed meanwhile: prepare the move again.
                    Err(e) if e.code == ErrorCode::Conflict && attempt < ATTEMPTS => {
                        std::thread::sleep(Duration::from_millis(100 * attempt as u64));
                        continue;
                    }
                    Err(e) => {
                        return Err(format!(
                            "moving onto the remote's commits failed, nothing was pushed: {}",
                            e.message
                        ))
                    }
                }
                tracing::info!(
                    space = %core.name,
                    onto = %onto,
                    "backup: the remote had commits this space lacked; {} file(s) written, {} \
                     commit(s) of this space replayed onto them: {}",
                    paths.len(),
                    rewritten.len(),
                    rewritten
                        .iter()
                        .map(|(before, after)| format!("{before} -> {after}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                rebase = Some(BackupRebase {
                    at: now_rfc3339(),
                    onto,
                    replayed: rewritten
                        .into_iter()
                        .map(|(before, after)| ReplayedCommit { before, after })
                        .collect(),
                    files: paths,
                });
                target = to;
            }
        }
        // A remote that holds this very commit already needs no push.
        if fetched.as_deref() != Some(target.as_str()) {
            backup.remote.push(&target).map_err(said)?;
        }
        return Ok(Some(Pushed {
            commit: target,
            rebase,
        }));
    }
    Err("the space kept changing while the remote's commits were being taken in".into())
}

/// Moves the space from `head` onto `to` through the pipeline: every file as `to` holds it,
/// each only if it still holds what `head` holds.
fn move_onto(
    core: &SpaceCore,
    head: &str,
    to: &str,
    files: Vec<quire_store::MovedFile>,
) -> Result<()> {
    let mut ops = Vec::with_capacity(files.len());
    for file in files {
        let path = PagePath::new(&file.path).map_err(|e| Error::bad_request(e.to_string()))?;
        ops.push(FileOp {
            path,
            expect: match file.before {
                Some(id) => Expect::Etag(id),
                None => Expect::Absent,
            },
            content: file.after,
        });
    }
    core.adopt_history(ops, head, to, SYSTEM_ACTOR)?;
    Ok(())
}

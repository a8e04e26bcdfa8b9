//! The set of spaces a server hosts, adding and removing spaces while it runs, and creating a
//! new knowledge root.
//!
//! The spaces sit behind a lock that is held only to look a space up or to change the list:
//! a request takes its own `Arc<Space>` and keeps the space alive until it finishes, even if
//! the space is removed meanwhile. Spaces added through the API ("dynamic" spaces) are
//! recorded in `.quire/spaces.json` of the default space, written through that space's
//! pipeline (one commit), and opened again at the next start.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use quire_store::HistoryOptions;
use serde::{Deserialize, Serialize};

use crate::change::WriteOptions;
use crate::error::{Error, Result};
use crate::settings::{Access, SpaceSettings, SPACES_FILE};
use crate::space::Space;
use crate::watching::Watching;

/// How long removing a space waits for requests still using it before it lets go of it.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// Where a space comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpaceOrigin {
    /// The main root: the default space.
    Main,
    /// A `[[spaces]]` entry of the configuration.
    Config,
    /// Added through the API (`POST /api/spaces`), recorded in [`SPACES_FILE`].
    Added(Registered),
}

/// A dynamic space as [`SPACES_FILE`] records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registered {
    pub name: String,
    /// Absolute, canonical folder.
    pub root: PathBuf,
    /// When it was added, RFC 3339.
    #[serde(default)]
    pub added: String,
    /// Who added it.
    #[serde(default)]
    pub added_by: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Registry {
    spaces: Vec<Registered>,
}

/// A space as listed: the space and where it comes from.
#[derive(Clone)]
pub struct SpaceEntry {
    pub space: Arc<Space>,
    pub origin: SpaceOrigin,
}

/// What [`Service::add_space`] did.
pub struct AddedSpace {
    pub entry: SpaceEntry,
    /// The folder did not exist or was empty: quire created the knowledge root.
    pub created_root: bool,
}

/// What [`Service::remove_space`] did. Files on disk are never deleted.
#[derive(Debug, Clone)]
pub struct RemovedSpace {
    pub name: String,
    pub root: PathBuf,
    /// The writer lock of the root was released before the answer (false when requests were
    /// still using the space after a few seconds; it is released when the last one ends).
    pub released: bool,
}

/// Every space of one server; the first is the default (spec: routing falls back to it).
pub struct Service {
    /// Running watches by space name (see [`Service::watch`]); dropped before the spaces.
    watches: Mutex<Option<HashMap<String, Watching>>>,
    default: Arc<Space>,
    /// Every space, the default first, in the order they were opened.
    entries: RwLock<Vec<SpaceEntry>>,
    /// How spaces added later are opened: the default space's settings with another name and
    /// root.
    template: SpaceSettings,
    access: Access,
    /// Serialises adding and removing spaces (and so the writes of [`SPACES_FILE`]).
    changing: Mutex<()>,
    /// Where this server answers, once announced; told to spaces added later too.
    api: Mutex<Option<String>>,
    /// Whether scheduled work (backups, janitor scans) runs (see
    /// [`Service::start_schedules`]); spaces added later start theirs.
    backups: std::sync::atomic::AtomicBool,
}

impl Service {
    /// Opens every space for writing, as a server.
    pub fn open(settings: Vec<SpaceSettings>) -> Result<Service> {
        Service::open_as(settings, &Access::serve())
    }

    /// Opens every space with the given access.
    pub fn open_as(settings: Vec<SpaceSettings>, access: &Access) -> Result<Service> {
        let Some(template) = settings.first().cloned() else {
            return Err(Error::bad_request("a server needs at least one space"));
        };
        check_distinct_roots(&settings)?;
        let mut entries: Vec<SpaceEntry> = Vec::with_capacity(settings.len());
        for s in settings {
            if entries.iter().any(|e| e.space.name() == s.name) {
                return Err(Error::bad_request(format!(
                    "two spaces are named {:?}; space names must be unique",
                    s.name
                )));
            }
            let origin = if entries.is_empty() {
                SpaceOrigin::Main
            } else {
                SpaceOrigin::Config
            };
            entries.push(SpaceEntry {
                space: Arc::new(Space::open_as(s, access)?),
                origin,
            });
        }
        Ok(Service {
            watches: Mutex::new(None),
            default: entries[0].space.clone(),
            entries: RwLock::new(entries),
            template,
            access: access.clone(),
            changing: Mutex::new(()),
            api: Mutex::new(None),
            backups: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Closes the service of a process that exits next: every space closes as when dropped
    /// (queued commits made, `.git/index` saved, indexes closed, writer lock released),
    /// except that the memory of the link models is left to the operating system. Freeing a
    /// large vault's many small allocations one by one would take a short command longer
    /// than a good part of its work.
    pub fn close_for_exit(self) {
        let models: Vec<_> = self.spaces().iter().map(|s| s.link_model()).collect();
        drop(self);
        std::mem::forget(models);
    }

    pub fn default_space(&self) -> &Arc<Space> {
        &self.default
    }

    /// The space named `name`, if this server has it now.
    pub fn space(&self, name: &str) -> Option<Arc<Space>> {
        self.read()
            .iter()
            .find(|e| e.space.name() == name)
            .map(|e| e.space.clone())
    }

    /// The spaces as they are now, the default first.
    pub fn spaces(&self) -> Vec<Arc<Space>> {
        self.read().iter().map(|e| e.space.clone()).collect()
    }

    /// The spaces with their origin, the default first.
    pub fn entries(&self) -> Vec<SpaceEntry> {
        self.read().clone()
    }

    /// The space named `name` with its origin.
    pub fn entry(&self, name: &str) -> Option<SpaceEntry> {
        self.read().iter().find(|e| e.space.name() == name).cloned()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<SpaceEntry>> {
        self.entries.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Records in every space's writer lock where this server answers (spaces added later
    /// are told too).
    pub fn announce_api(&self, url: &str) -> Result<()> {
        *self.api.lock().unwrap_or_else(|e| e.into_inner()) = Some(url.to_string());
        for space in self.spaces() {
            space.announce_api(url)?;
        }
        Ok(())
    }

    /// Commits everything queued by async batching (at shutdown).
    pub fn flush(&self) {
        for space in self.spaces() {
            if let Err(e) = space.flush() {
                tracing::error!("flushing space {}: {e}", space.name());
            }
        }
    }

    /// Starts watching every space's root for edits made outside quire, and every space
    /// added from now on. A watch that cannot start is logged (such edits are then recorded
    /// at the next start) and the space is served anyway.
    pub fn watch(&self) {
        let mut watches = self.watches.lock().unwrap_or_else(|e| e.into_inner());
        let running = watches.get_or_insert_with(HashMap::new);
        for space in self.spaces() {
            if !running.contains_key(space.name()) {
                if let Some(w) = start_watch(&space) {
                    running.insert(space.name().to_string(), w);
                }
            }
        }
    }

    /// Starts every space's scheduled work — pushing its history to the backup remote
    /// (`[backup]`), the janitor scans (`[janitor]`) — and that of every space added from now
    /// on.
    pub fn start_schedules(&self) {
        self.backups
            .store(true, std::sync::atomic::Ordering::SeqCst);
        for space in self.spaces() {
            space.start_schedules();
        }
    }

    /// Stops the scheduled work; each backup makes a last push (at shutdown, after the last
    /// commits).
    pub fn stop_schedules(&self) {
        self.backups
            .store(false, std::sync::atomic::Ordering::SeqCst);
        for space in self.spaces() {
            space.stop_schedules();
        }
    }

    /// Stops every watch (at shutdown, before the last commits).
    pub fn stop_watching(&self) {
        self.watches
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }

    /// The spaces [`SPACES_FILE`] of `root` records (none when the file does not exist):
    /// what a server opens at start besides its configured spaces. Reading changes nothing.
    pub fn registered_in(root: &Path) -> Result<Vec<Registered>> {
        let path = root.join(SPACES_FILE);
        let text = match quire_store::folders::read_text_if_any(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => {
                return Err(Error::bad_request(format!(
                    "cannot read {}: {e}",
                    path.display()
                )))
            }
        };
        let registry: Registry = serde_json::from_str(&text).map_err(|e| {
            Error::bad_request(format!(
                "{} is not a list of spaces ({e}); fix or remove the entry",
                path.display()
            ))
        })?;
        Ok(registry.spaces)
    }

    /// Opens the dynamic spaces recorded in the default space's [`SPACES_FILE`] (at start).
    /// Each must still be valid: a name that is free and not `reserved`, a root folder that
    /// exists and overlaps no other space's. A space that cannot be opened is an error: the
    /// server does not start with a space missing.
    pub fn open_registered(&self, reserved: &[&str]) -> Result<usize> {
        let _changing = self.changing.lock().unwrap_or_else(|e| e.into_inner());
        let registered = Service::registered_in(self.default.root_dir())?;
        let count = registered.len();
        for r in registered {
            let fail = |e: Error| {
                Error::new(
                    e.code,
                    format!(
                        "the space {:?} of {SPACES_FILE} cannot be opened: {} (remove it from \
                         the file, or make its root usable)",
                        r.name, e.message
                    ),
                )
            };
            check_name(&r.name, reserved).map_err(fail)?;
            if self.space(&r.name).is_some() {
                return Err(fail(Error::conflict(format!(
                    "another space is named {:?}",
                    r.name
                ))));
            }
            if !r.root.is_dir() {
                return Err(fail(Error::bad_request(format!(
                    "{} is not a folder",
                    r.root.display()
                ))));
            }
            let root = self.check_root(&r.root).map_err(fail)?;
            let space = self.open_space(&r.name, &root).map_err(fail)?;
            self.insert(SpaceEntry {
                space,
                origin: SpaceOrigin::Added(r.clone()),
            });
        }
        Ok(count)
    }

    /// Adds a space while the server runs: `name` (a plain slug, free, not one of
    /// `reserved`) served from `root` (an absolute path; created and initialised like
    /// `quire init` when it does not exist, and served as it is otherwise). A root that lies
    /// inside another space's root or contains one, or that another process writes, is
    /// refused; so is everything before anything is written. The space is recorded in
    /// [`SPACES_FILE`] (one commit of the default space, by `actor`).
    pub fn add_space(
        &self,
        name: &str,
        root: &Path,
        actor: Option<&str>,
        reserved: &[&str],
    ) -> Result<AddedSpace> {
        if self.default.is_read_only() {
            return Err(Error::bad_request(
                "spaces can be added only by the server writing the root",
            ));
        }
        check_name(name, reserved)?;
        let _changing = self.changing.lock().unwrap_or_else(|e| e.into_inner());
        if self.space(name).is_some() {
            return Err(Error::conflict(format!("a space named {name:?} exists")));
        }
        if !root.is_absolute() {
            return Err(Error::bad_request(format!(
                "root {:?} must be an absolute path",
                root.display().to_string()
            )));
        }
        if root.components().any(|c| c == Component::ParentDir) {
            return Err(Error::bad_request(format!(
                "root {:?} must not contain `..`",
                root.display().to_string()
            )));
        }
        if root.exists() && !root.is_dir() {
            return Err(Error::bad_request(format!(
                "root {} exists and is not a folder",
                root.display()
            )));
        }
        let root = self.check_root(root)?;
        if let Some(holder) = root_holder_if_any(&root)? {
            return Err(Error::conflict(format!(
                "knowledge root {} is in use: {holder} holds its writer lock",
                root.display()
            )));
        }
        let created_root = !root.exists() || quire_store::folders::is_empty_folder(&root);
        quire_store::folders::create_folder(&root)
            .map_err(|e| Error::bad_request(format!("cannot create {}: {e}", root.display())))?;
        let root = quire_store::folders::resolved_folder(&root);
        init_root(&root)?;
        let space = self.open_space(name, &root)?;
        let registered = Registered {
            name: name.to_string(),
            root: root.clone(),
            added: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            added_by: actor.unwrap_or(crate::change::DEFAULT_ACTOR).to_string(),
        };
        let mut recorded = self.registered();
        recorded.push(registered.clone());
        // Recorded first: a space that is served is always one that comes back at restart.
        // On failure the new space is dropped here, which releases its root.
        self.write_registry(
            recorded,
            actor,
            format!("spaces: add {name} ({})", root.display()),
        )?;
        let entry = SpaceEntry {
            space,
            origin: SpaceOrigin::Added(registered),
        };
        self.insert(entry.clone());
        Ok(AddedSpace {
            entry,
            created_root,
        })
    }

    /// Removes a dynamic space: it is dropped from [`SPACES_FILE`] (one commit) and from the
    /// server; its queued commits are made and its writer lock released once the requests
    /// still using it end (waiting a few seconds for them). Its files stay on disk, untouched.
    /// The default space and the configured ones cannot be removed (conflict).
    pub fn remove_space(&self, name: &str, actor: Option<&str>) -> Result<RemovedSpace> {
        let _changing = self.changing.lock().unwrap_or_else(|e| e.into_inner());
        let entry = self
            .entry(name)
            .ok_or_else(|| Error::not_found(format!("unknown space {name:?}")))?;
        match &entry.origin {
            SpaceOrigin::Main => {
                return Err(Error::conflict(format!(
                    "{name:?} is the default space (the main root); it cannot be removed"
                )))
            }
            SpaceOrigin::Config => {
                return Err(Error::conflict(format!(
                    "{name:?} is defined by [[spaces]] in the configuration; remove it there \
                     and restart"
                )))
            }
            SpaceOrigin::Added(_) => {}
        }
        let recorded: Vec<Registered> = self
            .registered()
            .into_iter()
            .filter(|r| r.name != name)
            .collect();
        self.write_registry(recorded, actor, format!("spaces: remove {name}"))?;
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|e| e.space.name() != name);
        if let Some(running) = self
            .watches
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            running.remove(name);
        }
        let space = entry.space;
        drop(entry.origin);
        let root = space.root_dir().to_path_buf();
        if let Err(e) = space.flush() {
            tracing::error!(space = %name, "flushing a removed space: {e}");
        }
        // Requests that took the space before it was removed finish with it.
        let deadline = Instant::now() + RELEASE_WAIT;
        while Arc::strong_count(&space) > 1 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(space);
        let released = loop {
            let free = !held_by_us(&root);
            if free || Instant::now() >= deadline {
                break free;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Ok(RemovedSpace {
            name: name.to_string(),
            root,
            released,
        })
    }

    /// The dynamic spaces as recorded now.
    fn registered(&self) -> Vec<Registered> {
        self.read()
            .iter()
            .filter_map(|e| match &e.origin {
                SpaceOrigin::Added(r) => Some(r.clone()),
                _ => None,
            })
            .collect()
    }

    fn write_registry(
        &self,
        spaces: Vec<Registered>,
        actor: Option<&str>,
        message: String,
    ) -> Result<()> {
        let mut text = serde_json::to_string_pretty(&Registry { spaces })
            .map_err(|e| Error::internal(format!("spaces.json: {e}")))?;
        text.push('\n');
        let opts = WriteOptions {
            actor: actor.map(str::to_string),
            message: Some(message),
            ..WriteOptions::default()
        };
        self.default
            .files()
            .write_server_file(SPACES_FILE, text.into_bytes(), &opts)?;
        Ok(())
    }

    /// A root folder that overlaps no space's root: canonical (symbolic links resolved as
    /// far as the folder exists).
    fn check_root(&self, root: &Path) -> Result<PathBuf> {
        let wanted = quire_store::folders::resolved_folder(root);
        for e in self.read().iter() {
            let theirs = e.space.root_dir();
            let name = e.space.name();
            if wanted == theirs {
                return Err(Error::conflict(format!(
                    "{} is already the root of the space {name:?}",
                    wanted.display()
                )));
            }
            if wanted.starts_with(theirs) {
                return Err(Error::conflict(format!(
                    "{} lies inside the root of the space {name:?} ({})",
                    wanted.display(),
                    theirs.display()
                )));
            }
            if theirs.starts_with(&wanted) {
                return Err(Error::conflict(format!(
                    "{} contains the root of the space {name:?} ({})",
                    wanted.display(),
                    theirs.display()
                )));
            }
        }
        Ok(wanted)
    }

    fn open_space(&self, name: &str, root: &Path) -> Result<Arc<Space>> {
        let mut settings = self.template.clone();
        settings.name = name.to_string();
        settings.root = root.to_path_buf();
        settings.backup = settings.backup.map(|b| b.for_space(name));
        let space = Arc::new(Space::open_as(settings, &self.access)?);
        if let Some(url) = self
            .api
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_deref()
        {
            space.announce_api(url)?;
        }
        Ok(space)
    }

    fn insert(&self, entry: SpaceEntry) {
        let name = entry.space.name().to_string();
        let space = entry.space.clone();
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(entry);
        if self.backups.load(std::sync::atomic::Ordering::SeqCst) {
            space.start_schedules();
        }
        let mut watches = self.watches.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = watches.as_mut() {
            if let Some(w) = start_watch(&space) {
                running.insert(name, w);
            }
        }
    }
}

/// Refuses two spaces over one root before any is opened: one root is one space with one
/// writer lock, so the second would only find the root busy (held by this very process).
fn check_distinct_roots(settings: &[SpaceSettings]) -> Result<()> {
    let keys: Vec<PathBuf> = settings
        .iter()
        .map(|s| crate::settings::same_root_key(&s.root))
        .collect();
    for (i, key) in keys.iter().enumerate() {
        if let Some(j) = keys[..i].iter().position(|k| k == key) {
            let (first, second) = (&settings[j].name, &settings[i].name);
            return Err(Error::bad_request(format!(
                "the spaces {first:?} and {second:?} have the same root {}: one root is one \
                 space; remove one of the two [[spaces]] entries (an entry whose root is the \
                 served root names the default space)",
                key.display()
            )));
        }
    }
    Ok(())
}

/// The longest space name.
pub const MAX_SPACE_NAME: usize = 64;

/// A space name an API request may give: 1 to 64 of `a-z`, `0-9`, `-`, `_`, starting with a
/// letter or digit, and none of `reserved` (the first segments of routes under the API path,
/// which a space's URL prefix would shadow).
pub fn check_name(name: &str, reserved: &[&str]) -> Result<()> {
    let plain = !name.is_empty()
        && name.len() <= MAX_SPACE_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if !plain {
        return Err(Error::bad_request(format!(
            "space name {name:?} must be 1 to {MAX_SPACE_NAME} lowercase letters, digits, '-' \
             or '_', starting with a letter or digit"
        )));
    }
    if reserved.contains(&name) {
        return Err(Error::bad_request(format!(
            "space name {name:?} is taken by a route of the API; choose another"
        )));
    }
    Ok(())
}

fn start_watch(space: &Arc<Space>) -> Option<Watching> {
    match space.watch() {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(
                space = %space.name(),
                "cannot watch {} for edits made outside quire ({e}); they are recorded at \
                 the next start",
                space.root_dir().display()
            );
            None
        }
    }
}

/// The holder of `dir`'s writer lock, when the folder exists and someone holds it.
fn root_holder_if_any(dir: &Path) -> Result<Option<quire_store::LockHolder>> {
    if !dir.join(quire_store::WRITER_LOCK_PATH).exists() {
        return Ok(None);
    }
    root_holder(dir)
}

/// Whether this process still holds `dir`'s writer lock.
fn held_by_us(dir: &Path) -> bool {
    matches!(root_holder(dir), Ok(Some(h)) if h.pid == std::process::id())
}

/// Who holds the writer lock of the knowledge root `dir` (a server, with the address it
/// answers at, or a command), if anyone: a process that wants to work on the root talks to
/// that server instead, or waits. Looking changes nothing on disk.
pub fn root_holder(dir: &Path) -> Result<Option<quire_store::LockHolder>> {
    Ok(quire_store::WriterLock::holder(dir)?)
}

/// What `quire init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialised {
    pub root: PathBuf,
    pub wrote_config: bool,
}

/// Creates a knowledge root: the folder, `.quire/config.toml` with commented defaults, and a
/// git repository whose first commit holds what the folder contains. Safe to run on an
/// existing root: an existing configuration is kept.
pub fn init_root(dir: &Path) -> Result<Initialised> {
    quire_store::folders::create_folder(&dir.join(".quire"))
        .map_err(|e| Error::bad_request(format!("cannot create {}: {e}", dir.display())))?;
    let config = dir.join(".quire").join("config.toml");
    let wrote_config = quire_store::folders::write_if_absent(
        &config,
        quire_config::default_config_toml().as_bytes(),
    )
    .map_err(|e| Error::bad_request(format!("cannot write {}: {e}", config.display())))?;
    let lock = quire_store::WriterLock::acquire(dir, "init")?;
    let root = quire_store::Root::open(dir, &lock)?;
    let history = quire_store::History::open(
        &root,
        &lock,
        HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
    )?;
    history.flush()?;
    Ok(Initialised {
        root: root.dir().to_path_buf(),
        wrote_config,
    })
}

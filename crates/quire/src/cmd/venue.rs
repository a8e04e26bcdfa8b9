//! Where a command works: through a running server, or on the root itself. One writer per
//! root: a root a server holds is always reached through that server (its history, link model
//! and readers stay consistent); a root nobody holds is opened by the command — to read only,
//! changing nothing, or holding the root's writer lock while it writes.

use std::path::{Path, PathBuf};

use quire_service::{Access, Error, ErrorCode, Service};

use super::remote::Remote;

/// Where a command works, as its `--root` and `--server` say (see [`choose`]).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Place {
    /// The knowledge root. When a server holds it, the command goes through that server;
    /// otherwise it opens the root itself (to read, changing nothing, or holding the root's
    /// writer lock while it writes).
    #[arg(long, conflicts_with = "server")]
    pub root: Option<PathBuf>,
    /// Address of a running server (default: the server holding ./knowledge, else
    /// http://127.0.0.1:<configured port>). Set QUIRE_API_KEY when it asks for a key.
    #[arg(long)]
    pub server: Option<String>,
}

impl Place {
    /// Chooses the venue for `purpose` (see [`choose`]).
    pub fn choose(&self, purpose: Purpose) -> anyhow::Result<Venue> {
        choose(self.root.as_deref(), self.server.as_deref(), purpose)
    }
}

/// Who writes: the commit author a command records.
#[derive(clap::Args, Debug, Clone)]
pub struct Actor {
    /// Who writes (the commit author).
    #[arg(long = "actor", env = "USER", default_value = "cli")]
    pub actor: String,
}

impl Actor {
    /// The actor, never empty (an empty `$USER` falls back to `cli`).
    pub fn name(&self) -> &str {
        match self.actor.trim() {
            "" => "cli",
            actor => actor,
        }
    }
}

/// What the command will do to the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Read,
    /// Writing, as the named command (recorded in the writer lock for others to see).
    Write(&'static str),
}

pub enum Venue {
    Server(Remote),
    Root(PathBuf),
}

/// Chooses where to work: `--server`, else the server holding `--root`, else the root itself;
/// with neither flag, the server holding `./knowledge`, else the configured local port.
pub fn choose(
    root: Option<&Path>,
    server: Option<&str>,
    purpose: Purpose,
) -> anyhow::Result<Venue> {
    if let Some(server) = server {
        return Ok(Venue::Server(Remote::new(server)));
    }
    let Some(root) = root else {
        return Ok(Venue::Server(default_server()));
    };
    if !root.is_dir() {
        return Err(Error::bad_request(format!("{} is not a folder", root.display())).into());
    }
    match quire_service::root_holder(root)? {
        Some(holder) if holder.api.is_some() => {
            let api = holder.api.clone().unwrap_or_default();
            eprintln!(
                "quire: {} is served by {holder}; working through that server",
                root.display()
            );
            Ok(Venue::Server(Remote::new(&api)))
        }
        Some(holder) => match purpose {
            // Reading changes nothing, so it need not wait for the writer.
            Purpose::Read => Ok(Venue::Root(root.to_path_buf())),
            Purpose::Write(_) => Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "{} is being written by {holder}; try again when it is done",
                    root.display()
                ),
            )
            .into()),
        },
        None => Ok(Venue::Root(root.to_path_buf())),
    }
}

/// The server a command without `--root` or `--server` talks to.
fn default_server() -> Remote {
    let root = Path::new("knowledge");
    if let Ok(Some(holder)) = quire_service::root_holder(root) {
        if let Some(api) = holder.api {
            return Remote::new(&api);
        }
    }
    let config = quire_config::Config::load(root)
        .map(|l| l.config)
        .unwrap_or_default();
    Remote::new(&format!("http://127.0.0.1:{}", config.server.port))
}

/// Opens the main space of `root` for `purpose`.
pub fn open_root(root: &Path, purpose: Purpose) -> anyhow::Result<Service> {
    let loaded = quire_config::Config::load(root)?;
    for warning in &loaded.warnings {
        eprintln!("quire: warning: {warning}");
    }
    let mut settings = quire_service::settings_from_config(root, &loaded.config);
    // A command keeps the search index only when that is its job (`reindex`, `mcp`); otherwise the
    // next server start finds the index stale and brings it up to date.
    // `mcp` serves searches for as long as a server would; `janitor` reads the catalog the
    // index keeps.
    let keeps_index = matches!(purpose, Purpose::Write("reindex" | "mcp" | "janitor"));
    let scripts = super::script_child::runner();
    for space in &mut settings {
        space.find.index.maintain = keeps_index;
        space.script = scripts.clone();
    }
    let access = match purpose {
        Purpose::Read => Access::ReadOnly,
        Purpose::Write(kind) => Access::Write { kind: kind.into() },
    };
    Ok(Service::open_as(
        settings.into_iter().take(1).collect(),
        &access,
    )?)
}

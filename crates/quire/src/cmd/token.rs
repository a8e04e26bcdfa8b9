//! `quire token create|list|revoke`: scoped API tokens in `[[auth.api_keys]]`.
//!
//! A new token (`quire_<id>_<secret>`) is printed once; the configuration keeps its id and an
//! Argon2id hash only. Entries are appended to (and removed from) `.quire/config.toml` with
//! the rest of the file — comments and layout — left as it was. When a server holds the root
//! it is sent SIGHUP, so the change applies at once.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use quire_api::{Scope, TokenInfo};
use quire_config::{AuthType, Config};
use quire_service::Error;

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print it (once: only its hash is stored).
    Create(CreateArgs),
    /// List the tokens (ids, scopes, spaces, actors; never the tokens).
    List(ListArgs),
    /// Remove a token by its id.
    Revoke(RevokeArgs),
}

#[derive(ClapArgs)]
struct RootArg {
    /// Knowledge root whose configuration holds the tokens.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
}

#[derive(ClapArgs)]
struct CreateArgs {
    #[command(flatten)]
    root: RootArg,
    /// read (reads, searches, plans), write (also every change), admin (also approvals and
    /// the audit log).
    #[arg(long, value_parser = ["read", "write", "admin"])]
    scope: String,
    /// The only space the token opens (default: every space).
    #[arg(long)]
    space: Option<String>,
    /// Author of writes made with the token when they send no X-Actor.
    #[arg(long)]
    actor: Option<String>,
    /// Print `{id, token, scope, …}` as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct ListArgs {
    #[command(flatten)]
    root: RootArg,
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct RevokeArgs {
    #[command(flatten)]
    root: RootArg,
    /// The token's id (as `quire token list` shows it).
    id: String,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        TokenCommand::Create(a) => create(a),
        TokenCommand::List(a) => list(a),
        TokenCommand::Revoke(a) => revoke(a),
    }
}

fn config_path(root: &Path) -> PathBuf {
    root.join(".quire").join("config.toml")
}

/// The configuration file's text ("" when there is none) and the configuration it holds.
fn read(root: &Path) -> anyhow::Result<(String, Config)> {
    if !root.is_dir() {
        return Err(Error::bad_request(format!("{} is not a folder", root.display())).into());
    }
    let path = config_path(root);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let config = Config::load(root)?.config;
    Ok((text, config))
}

/// Writes the new text (temp file + rename) after checking it still loads.
fn write(root: &Path, text: &str) -> anyhow::Result<()> {
    Config::from_toml_str(text, &|name| std::env::var(name).ok())
        .context("the edited configuration does not load; nothing was written")?;
    let path = config_path(root);
    std::fs::create_dir_all(path.parent().expect("in .quire"))?;
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

fn scope_of(scope: quire_config::KeyScope) -> Scope {
    match scope {
        quire_config::KeyScope::Read => Scope::Read,
        quire_config::KeyScope::Write => Scope::Write,
        quire_config::KeyScope::Admin => Scope::Admin,
    }
}

fn create(args: CreateArgs) -> anyhow::Result<()> {
    let root = &args.root.root;
    let (text, config) = read(root)?;
    // The main root's space, the configured ones, and those added through the API.
    // (A `[[spaces]]` entry over the main root names the default space.)
    let spaces: Vec<String> = quire_service::settings_from_config(root, &config)
        .into_iter()
        .map(|s| s.name)
        .chain(
            quire_service::Service::registered_in(root)?
                .into_iter()
                .map(|r| r.name),
        )
        .collect();
    if let Some(space) = &args.space {
        if !spaces.contains(space) {
            return Err(Error::bad_request(format!(
                "no space is named {space:?} (spaces: {})",
                spaces.join(", ")
            ))
            .into());
        }
    } else if config.auth.kind == AuthType::Perspace {
        return Err(Error::bad_request(
            "auth type \"perspace\" needs a space for every key: pass --space",
        )
        .into());
    }
    if let Some(actor) = &args.actor {
        if actor.trim().is_empty() || actor.contains(['"', '\n', '<', '>']) {
            return Err(Error::bad_request(format!("{actor:?} is not a plain actor name")).into());
        }
    }
    let (id, token, hash) = quire_http::auth::new_token().map_err(Error::internal)?;
    let created = chrono_now();
    let mut doc: toml_edit::DocumentMut = text.parse().context("the configuration is not TOML")?;
    let auth = doc
        .entry("auth")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .context("[auth] is not a table")?;
    let keys = auth
        .entry("api_keys")
        .or_insert_with(|| toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .context("auth.api_keys is not an array of tables ([[auth.api_keys]])")?;
    let mut entry = toml_edit::Table::new();
    entry["id"] = toml_edit::value(&id);
    entry["key_hash"] = toml_edit::value(&hash);
    entry["scope"] = toml_edit::value(&args.scope);
    if let Some(space) = &args.space {
        entry["space"] = toml_edit::value(space);
    }
    if let Some(actor) = &args.actor {
        entry["actor"] = toml_edit::value(actor);
    }
    entry["created"] = toml_edit::value(&created);
    keys.push(entry);
    write(root, &doc.to_string())?;
    let reloaded = signal_server(root);
    if args.json {
        println!(
            "{}",
            serde_json::json!({"id": id, "token": token, "scope": args.scope,
                "space": args.space, "actor": args.actor, "created": created})
        );
    } else {
        println!("{token}");
        eprintln!(
            "quire: token {id} ({} scope) added to {}; it is shown only now, store it safely",
            args.scope,
            config_path(root).display()
        );
    }
    if config.auth.kind == AuthType::None {
        eprintln!(
            "quire: warning: [auth] type is \"none\": no request is checked until it is \
             \"apikey\", \"perspace\" or \"oidc\""
        );
    }
    report_reload(reloaded);
    Ok(())
}

fn list(args: ListArgs) -> anyhow::Result<()> {
    let (_, config) = read(&args.root.root)?;
    let tokens: Vec<TokenInfo> = config
        .auth
        .api_keys
        .iter()
        .filter_map(|entry| {
            Some(TokenInfo {
                id: entry.id.clone()?,
                scope: scope_of(entry.scope),
                space: entry.space.clone(),
                actor: entry.actor.clone(),
                created: entry.created.clone(),
            })
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&tokens)?);
        return Ok(());
    }
    if tokens.is_empty() {
        println!("no tokens (create one with `quire token create --scope read|write|admin`)");
    }
    for t in &tokens {
        println!(
            "{}  {:<5}  space={}  actor={}  created={}",
            t.id,
            t.scope.as_str(),
            t.space.as_deref().unwrap_or("*"),
            t.actor.as_deref().unwrap_or("-"),
            t.created.as_deref().unwrap_or("-"),
        );
    }
    Ok(())
}

fn revoke(args: RevokeArgs) -> anyhow::Result<()> {
    let root = &args.root.root;
    let (text, _) = read(root)?;
    let mut doc: toml_edit::DocumentMut = text.parse().context("the configuration is not TOML")?;
    let keys = doc
        .get_mut("auth")
        .and_then(|a| a.as_table_mut())
        .and_then(|a| a.get_mut("api_keys"))
        .and_then(|k| k.as_array_of_tables_mut());
    let Some(keys) = keys else {
        return Err(Error::not_found(format!("no token has the id {:?}", args.id)).into());
    };
    let before = keys.len();
    keys.retain(|t| t.get("id").and_then(|v| v.as_str()) != Some(args.id.as_str()));
    if keys.len() == before {
        return Err(Error::not_found(format!("no token has the id {:?}", args.id)).into());
    }
    write(root, &doc.to_string())?;
    eprintln!("quire: token {} revoked", args.id);
    report_reload(signal_server(root));
    Ok(())
}

/// The pid of the server holding `root`, sent SIGHUP; `None` when no server runs.
fn signal_server(root: &Path) -> Option<Result<u32, String>> {
    let holder = quire_service::root_holder(root).ok().flatten()?;
    if holder.kind != "serve" {
        return None;
    }
    #[cfg(unix)]
    {
        let pid = holder.pid;
        let Ok(raw) = libc::pid_t::try_from(pid) else {
            return Some(Err(format!("pid {pid} out of range")));
        };
        // SAFETY: kill(2) with a pid read from the root's writer lock and a plain signal.
        let sent = unsafe { libc::kill(raw, libc::SIGHUP) } == 0;
        Some(if sent {
            Ok(pid)
        } else {
            Err(std::io::Error::last_os_error().to_string())
        })
    }
    #[cfg(not(unix))]
    Some(Err("signals are not available here".into()))
}

fn report_reload(reloaded: Option<Result<u32, String>>) {
    match reloaded {
        Some(Ok(pid)) => eprintln!("quire: the server (pid {pid}) reloads its keys (SIGHUP)"),
        Some(Err(e)) => eprintln!(
            "quire: warning: could not signal the server ({e}); send it SIGHUP or restart it"
        ),
        None => {}
    }
}

fn chrono_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

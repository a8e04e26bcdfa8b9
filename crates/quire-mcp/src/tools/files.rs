//! Files, their history and claims: read, write, delete, bulk, append, tree, versions, the
//! change feed, the timeline and its JSON Feed, claims.

use quire_api::mcp::{
    AppendInput, ChangesInput, DeleteInput, LimitInput, PathInput, ReadInput, ReadResult,
    TimelineInput, TreeInput, WriteInput,
};
use quire_api::{BulkRequest, ClaimList, ClaimRequest, JsonFeed, ReleaseRequest, Released};
use quire_service::{Error, ErrorCode, Expect, Space};
use rmcp::model::ContentBlock;

use super::{empty, if_match, input, no_args, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

/// Changes `quire_feed` holds when the caller names no limit (as `GET /feed.json`).
const FEED_LIMIT: usize = 50;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_read",
            description: "Read one file. `path` may be a root-relative path, a page name or a \
[[wiki link]] (resolved as a link at the root would be). Use `metadata_only` for frontmatter, \
title, headings and links without the body, and `if_not_etag` with the etag you hold to get \
`unchanged: true` instead of the text. Cheap: one file from disk.",
            schema: input::<ReadInput>,
            read_only: true,
        },
        Def {
            name: "quire_write",
            description: "Create or replace one file with `content` (one git commit, indexed, \
announced). Pass the etag from quire_read as `if_match` so a concurrent edit is not \
overwritten (conflict error instead). To move or rename use quire_rename, never write + delete.",
            schema: input::<WriteInput>,
            read_only: false,
        },
        Def {
            name: "quire_delete",
            description: "Delete one file (one commit). Links to it become broken; prefer \
quire_refactor_plan with a merge when the page has backlinks (see quire_backlinks).",
            schema: input::<DeleteInput>,
            read_only: false,
        },
        Def {
            name: "quire_bulk_write",
            description: "Write several files at once, all or nothing, as one commit. Use it \
instead of many quire_write calls when the files belong together.",
            schema: input::<BulkRequest>,
            read_only: false,
        },
        Def {
            name: "quire_append",
            description: "Append text to a page (created when missing), with `separator` (default \
a newline) in between. Safe against concurrent writers. Good for logs and journals.",
            schema: input::<AppendInput>,
            read_only: false,
        },
        Def {
            name: "quire_tree",
            description: "The files and folders below `path` (the whole root when absent). Call \
it first to see what exists; on a large root, pass a folder.",
            schema: input::<TreeInput>,
            read_only: true,
        },
        Def {
            name: "quire_versions",
            description: "The history of one file: every commit that changed it, newest first, \
with author and time.",
            schema: input::<PathInput>,
            read_only: true,
        },
        Def {
            name: "quire_changes",
            description: "The change feed of the whole root, oldest first from `since` (a commit \
id, the `cursor` of the previous answer, or an RFC 3339 time). Use it to catch up after a \
while away.",
            schema: input::<ChangesInput>,
            read_only: true,
        },
        Def {
            name: "quire_timeline",
            description: "The newest changes of the whole root, newest first: path, write or \
delete, author, time, commit. `type` keeps only writes or only deletes; `limit` (default 50, \
at most 500). Use it to see what happened lately; quire_changes pages through everything. \
Reads the newest 500 changes of the history.",
            schema: input::<TimelineInput>,
            read_only: true,
        },
        Def {
            name: "quire_feed",
            description: "The newest changes as a JSON Feed 1.1 (the items of GET /feed.json): \
one item per change with title, summary, author and time; a written file's item links to its \
quire://file/ resource. For clients that follow feeds; quire_timeline is the plainer list.",
            schema: input::<LimitInput>,
            read_only: true,
        },
        Def {
            name: "quire_claim",
            description: "Claim a page for a while (`lease_duration`, default 30m) so other \
agents and restructurings leave it alone while you work on it. Release it when done.",
            schema: input::<ClaimRequest>,
            read_only: false,
        },
        Def {
            name: "quire_release",
            description: "Release a claim you hold, as soon as you are done with the page, so \
others may work on it.",
            schema: input::<ReleaseRequest>,
            read_only: false,
        },
        Def {
            name: "quire_claims_list",
            description:
                "Every active claim: path, holder and expiry. Check it before editing pages \
other agents may be working on.",
            schema: empty,
            read_only: true,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    match name {
        "quire_read" => read(space, parse(name, args)?),
        "quire_write" => {
            let input: WriteInput = parse(name, args)?;
            let expect = if_match(input.if_match);
            let written = space.files().write(
                &input.path,
                input.content.into_bytes(),
                &opts(caller, input.message, expect),
            )?;
            let text = format!("wrote {} (etag {})", written.path, written.etag);
            Ok(ok(&written, text))
        }
        "quire_delete" => {
            let input: DeleteInput = parse(name, args)?;
            let expect = if_match(input.if_match);
            let deleted = space
                .files()
                .delete(&input.path, &opts(caller, input.message, expect))?;
            Ok(ok(&deleted, format!("deleted {}", input.path)))
        }
        "quire_bulk_write" => {
            let input: BulkRequest = parse(name, args)?;
            let mut o = opts(caller, input.message, Expect::Anything);
            if let Some(actor) = input.actor {
                o.actor = Some(actor);
            }
            let files = input
                .files
                .into_iter()
                .map(|f| (f.path, f.content.into_bytes()))
                .collect();
            let written = space.files().bulk(files, &o)?;
            Ok(ok(&written, format!("wrote {} files", written.count)))
        }
        "quire_append" => {
            let input: AppendInput = parse(name, args)?;
            let separator = input.separator.unwrap_or_else(|| "\n".into());
            let appended = space.files().append(
                &input.path,
                input.content.as_bytes(),
                &separator,
                &opts(caller, input.message, Expect::Anything),
            )?;
            Ok(ok(&appended, format!("appended to {}", appended.path)))
        }
        "quire_tree" => {
            let input: TreeInput = parse(name, args)?;
            let nodes = space.files().tree(input.path.as_deref())?;
            let text = format!("{} entries", nodes.len());
            Ok(ok(&serde_json::json!({ "nodes": nodes }), text))
        }
        "quire_versions" => {
            let input: PathInput = parse(name, args)?;
            let versions = space.versions().of(&input.path)?;
            let text = format!("{} versions of {}", versions.len(), input.path);
            Ok(ok(&serde_json::json!({ "versions": versions }), text))
        }
        "quire_changes" => {
            let input: ChangesInput = parse(name, args)?;
            let page = space
                .versions()
                .changes(input.since.as_deref(), input.limit)?;
            Ok(ok(&page, "the change feed".into()))
        }
        "quire_timeline" => {
            let input: TimelineInput = parse(name, args)?;
            let timeline = space.versions().timeline(input.kind, input.limit)?;
            let text = format!(
                "{} changes (of {} matching)",
                timeline.events.len(),
                timeline.total
            );
            Ok(ok(&timeline, text))
        }
        "quire_feed" => {
            let input: LimitInput = parse(name, args)?;
            let timeline = space
                .versions()
                .timeline(None, Some(input.limit.unwrap_or(FEED_LIMIT)))?;
            let feed = JsonFeed::of_changes(space.name(), &timeline.events, None, |path| {
                format!(
                    "{}{}",
                    crate::resources::FILE,
                    quire_api::workspace_edit::encode_uri_path(path)
                )
            });
            let text = format!("{} feed items", feed.items.len());
            Ok(ok(&feed, text))
        }
        "quire_claim" => {
            let input: ClaimRequest = parse(name, args)?;
            let actor = input.actor.unwrap_or_else(|| caller.actor.clone());
            let claim =
                space
                    .claims()
                    .claim(&input.path, Some(&actor), input.lease_duration.as_deref())?;
            Ok(ok(&claim, format!("claimed {}", input.path)))
        }
        "quire_release" => {
            let input: ReleaseRequest = parse(name, args)?;
            let actor = input.actor.unwrap_or_else(|| caller.actor.clone());
            let path = space.claims().release(&input.path, Some(&actor))?;
            let released = Released {
                released: path.to_string(),
            };
            Ok(ok(&released, format!("released {path}")))
        }
        "quire_claims_list" => {
            no_args(name, args)?;
            let claims = ClaimList {
                claims: space.claims().list()?,
            };
            let text = format!("{} claims", claims.claims.len());
            Ok(ok(&claims, text))
        }
        other => Err(no_handler(other)),
    }
}

/// `quire_read`: a path, else a name or link resolved as at the root.
fn read(space: &Space, input: ReadInput) -> Answer {
    let files = space.files();
    let path = match files.read(&input.path) {
        Ok(_) => input.path.clone(),
        Err(e) if e.code == ErrorCode::NotFound || e.code == ErrorCode::BadRequest => {
            let resolved = files.resolve_links(None, std::slice::from_ref(&input.path))?;
            match resolved.resolved.get(&input.path) {
                Some(link) => link.path.clone(),
                None => {
                    return Err(Error::not_found(format!(
                        "no file {:?}, and no page that name or link resolves to",
                        input.path
                    )))
                }
            }
        }
        Err(e) => return Err(e),
    };
    let content = files.read(&path)?;
    let mut result = ReadResult {
        path: path.clone(),
        etag: content.etag.clone(),
        size: content.bytes.len(),
        unchanged: false,
        content: None,
        metadata: None,
    };
    if input.if_not_etag.as_deref() == Some(content.etag.as_str()) {
        result.unchanged = true;
        return Ok(ok(
            &result,
            format!("{path} unchanged (etag {})", result.etag),
        ));
    }
    if input.metadata_only {
        result.metadata = Some(space.pages().peek(&path)?);
        return Ok(ok(&result, format!("metadata of {path}")));
    }
    let text = match String::from_utf8(content.bytes) {
        Ok(text) => text,
        Err(_) => {
            return Ok(ok(
                &result,
                format!("{path} is a binary file; its content is not sent"),
            ))
        }
    };
    result.content = Some(text.clone());
    let mut answer = ok(&result, String::new());
    // The text block carries the file itself, for clients that show only text.
    answer.content = vec![ContentBlock::text(text)];
    Ok(answer)
}

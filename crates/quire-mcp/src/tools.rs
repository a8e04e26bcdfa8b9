//! The `quire_*` tools: the table clients list, and the calls onto the space's services.
//!
//! Only tools whose subsystem exists are listed. Every input schema is the `schemars` derive
//! of a `quire-api` type; arguments that do not fit it are a tool error naming the problem.

use std::sync::Arc;

use quire_api::mcp::{
    AggregateInput, AnalyticsInput, AppendInput, ChangesInput, DeleteInput, GraphPathInput,
    MetaInput, NotApplied, PathInput, QueryInput, ReadInput, ReadResult, RefactorApplyInput,
    RefactorPlanInput, RefactorRevertInput, SearchInput, TreeInput, WriteInput,
};
use quire_api::{
    Applied, BulkRequest, ClaimList, ClaimRequest, LintRequest, ReleaseRequest, Released,
    RenameRequest, ScriptRequest,
};
use quire_service::{
    ApplyRequest, Error, ErrorCode, Expect, MetaQuery, Relink, SearchQuery, Space, WriteOptions,
};
use rmcp::handler::server::common::{schema_for_empty_input, schema_for_type};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::service::{ElicitationError, Peer};
use rmcp::{ErrorData, RoleServer};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{Caller, McpServer};

/// One advertised tool.
struct Def {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Arc<JsonObject>,
    read_only: bool,
}

fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_type::<T>()
}

const TOOLS: &[Def] = &[
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
        name: "quire_rename",
        description: "Move or rename one file and rewrite every link to it (default \
`relink: true`), as one commit. Never overwrites an existing file. Cost grows with the number \
of pages linking to it.",
        schema: input::<RenameRequest>,
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
        name: "quire_search",
        description: "Full-text search ranked by BM25 (title counts most): words, AND, OR, \
NOT/-word, \"phrases\", prefix*, with `path` (folder) and `tag` filters. Answers paths, titles \
and snippets, not whole pages: read the hits you need with quire_read. Cheap (SQLite index).",
        schema: input::<SearchInput>,
        read_only: true,
    },
    Def {
        name: "quire_query",
        description: "Run a DQL query over frontmatter, tags, links and file data: TABLE, \
LIST, COUNT, DISTINCT … FROM … WHERE … SORT … GROUP BY … FLATTEN … LIMIT. In memory; bounded \
by the configured row and time limits.",
        schema: input::<QueryInput>,
        read_only: true,
    },
    Def {
        name: "quire_query_meta",
        description: "Pages whose frontmatter matches a `where` expression (`status = \"open\" \
and priority > 2`), sorted and paged, with their frontmatter. Simpler than quire_query when \
you only filter.",
        schema: input::<MetaInput>,
        read_only: true,
    },
    Def {
        name: "quire_aggregate",
        description: "Group pages by a frontmatter field and compute `count`, `sum(f)`, \
`avg(f)`, `min(f)`, `max(f)` per group.",
        schema: input::<AggregateInput>,
        read_only: true,
    },
    Def {
        name: "quire_backlinks",
        description: "The pages linking to `path`, with the line of each link. Check it \
before deleting or merging a page.",
        schema: input::<PathInput>,
        read_only: true,
    },
    Def {
        name: "quire_graph_analytics",
        description: "The link graph at a glance: counts, orphans, top pages by PageRank and \
by links in and out. Costs one pass over the graph (cached until the next change).",
        schema: input::<AnalyticsInput>,
        read_only: true,
    },
    Def {
        name: "quire_graph_communities",
        description: "Clusters of closely linked pages (Louvain). Useful to propose folders \
or hub pages. Costs a pass over the whole graph.",
        schema: schema_for_empty_input,
        read_only: true,
    },
    Def {
        name: "quire_graph_path",
        description: "The shortest chain of links from one page to another (`undirected` \
follows links both ways).",
        schema: input::<GraphPathInput>,
        read_only: true,
    },
    Def {
        name: "quire_peek",
        description: "A short look at a page: title, a ~200 character snippet, frontmatter, \
links out and in, headings and word count. Cheaper than reading it whole.",
        schema: input::<PathInput>,
        read_only: true,
    },
    Def {
        name: "quire_lint",
        description: "Check a page (`path`) or text (`content`, as if stored at `path`) for \
broken links and anchors, heading problems and frontmatter errors. Run it before writing.",
        schema: input::<LintRequest>,
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
        description: "Every active claim: path, holder and expiry. Check it before editing pages \
other agents may be working on.",
        schema: schema_for_empty_input,
        read_only: true,
    },
    Def {
        name: "quire_refactor_plan",
        description: "Plan a restructuring from a manifest (moves, merges, edits, tag renames, \
relinks, split) without writing anything: which files move, every link rewritten, conflicts, \
integrity and the `digest` to apply it with. Says whether the user must confirm it \
(`approval`). Reads only the pages it rewrites.",
        schema: input::<RefactorPlanInput>,
        read_only: true,
    },
    Def {
        name: "quire_refactor_apply",
        description: "Apply a planned manifest as exactly one revertible commit, keeping every \
link working. Pass the plan's `digest`: nothing is written when the workspace changed since. \
Plans over the approval limits ask the user to confirm (when the client can ask), else wait \
for a person's approval (web UI or POST /refactor/approve) and the answer says so; apply the \
same digest again once approved. `now` pins the clock of date expressions.",
        schema: input::<RefactorApplyInput>,
        read_only: false,
    },
    Def {
        name: "quire_refactor_script",
        description: "Compute a manifest with a Starlark script and plan it, when the change \
depends on what the pages hold. The script may call query(dql), files(glob), read(path), \
frontmatter(path), links(path), slug(text), json.encode/decode and print, and returns the \
manifest from main() (or sets `manifest`). It runs in a separate read-only process (256 MB, \
30 s, no while, no recursion). Answers the manifest, what it printed and the plan; apply the \
manifest with quire_refactor_apply. Nothing is written.",
        schema: input::<ScriptRequest>,
        read_only: true,
    },
    Def {
        name: "quire_refactor_revert",
        description: "Undo a commit (a restructuring or any write) as a new commit; refused \
when a file it changed has changed since. `dry_run` answers the revert plan and its digest.",
        schema: input::<RefactorRevertInput>,
        read_only: false,
    },
];

/// Every advertised tool.
pub(crate) fn list() -> Vec<Tool> {
    TOOLS
        .iter()
        .map(|def| {
            let mut tool = Tool::new(def.name, def.description, (def.schema)());
            tool.annotations = Some(
                ToolAnnotations::new()
                    .read_only(def.read_only)
                    .destructive(!def.read_only),
            );
            tool
        })
        .collect()
}

/// Whether tool `name` changes nothing (unknown tools count as read-only: they do nothing).
pub(crate) fn is_read_only(name: &str) -> bool {
    TOOLS
        .iter()
        .find(|d| d.name == name)
        .is_none_or(|d| d.read_only)
}

/// A tool error when a credential of `scope` may not call `name`: a read scope calls only
/// the tools marked read-only (the same line REST draws between GET and the rest).
pub(crate) fn refuse_for_scope(name: &str, scope: quire_api::Scope) -> Option<CallToolResult> {
    let def = TOOLS.iter().find(|d| d.name == name)?;
    if def.read_only || scope.allows(quire_api::Scope::Write) {
        return None;
    }
    Some(error_result(&Error::new(
        ErrorCode::Forbidden,
        format!("this key is read-only: {name} changes the knowledge base"),
    )))
}

/// A tool's answer before it becomes an MCP result.
type Answer = Result<CallToolResult, Error>;

/// Runs tool `name` for `caller`; an unknown tool is a protocol error, everything else a
/// tool result (an error result carrying the service's message).
pub(crate) async fn call(
    server: &McpServer,
    name: &str,
    args: serde_json::Value,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    if !TOOLS.iter().any(|d| d.name == name) {
        return Err(ErrorData::invalid_params(
            format!("no tool named {name:?}; call tools/list"),
            None,
        ));
    }
    let space = server.space();
    let answer = match name {
        "quire_refactor_apply" => match parse::<RefactorApplyInput>(name, args) {
            Ok(input) => refactor_apply(space, input, caller, peer).await,
            Err(e) => Err(e),
        },
        _ => {
            let name = name.to_string();
            let caller = caller.clone();
            tokio::task::spawn_blocking(move || blocking(&space, &name, args, &caller))
                .await
                .unwrap_or_else(|e| Err(Error::internal(e)))
        }
    };
    Ok(answer.unwrap_or_else(|e| error_result(&e)))
}

fn parse<T: DeserializeOwned>(tool: &str, args: serde_json::Value) -> Result<T, Error> {
    serde_json::from_value(args)
        .map_err(|e| Error::bad_request(format!("invalid arguments for {tool}: {e}")))
}

/// The tools that call the service synchronously.
fn blocking(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    let opts = |message: Option<String>, expect: Expect| WriteOptions {
        actor: Some(caller.actor.clone()),
        message,
        derived_from: None,
        expect,
    };
    match name {
        "quire_read" => read(space, parse(name, args)?),
        "quire_write" => {
            let input: WriteInput = parse(name, args)?;
            let expect = input.if_match.map(Expect::Etag).unwrap_or_default();
            let written = space.files().write(
                &input.path,
                input.content.into_bytes(),
                &opts(input.message, expect),
            )?;
            let text = format!("wrote {} (etag {})", written.path, written.etag);
            Ok(ok(&written, text))
        }
        "quire_delete" => {
            let input: DeleteInput = parse(name, args)?;
            let expect = input.if_match.map(Expect::Etag).unwrap_or_default();
            let deleted = space
                .files()
                .delete(&input.path, &opts(input.message, expect))?;
            Ok(ok(&deleted, format!("deleted {}", input.path)))
        }
        "quire_rename" => {
            let input: RenameRequest = parse(name, args)?;
            let mut o = opts(input.message, Expect::Anything);
            if let Some(actor) = input.actor {
                o.actor = Some(actor);
            }
            let relink = if input.relink {
                Relink::Yes
            } else {
                Relink::No
            };
            let renamed = space
                .restructure()
                .rename(&input.from, &input.to, relink, &o)?;
            let text = format!(
                "renamed {} to {} ({} links updated)",
                renamed.from, renamed.to, renamed.updated_links
            );
            Ok(ok(&renamed, text))
        }
        "quire_bulk_write" => {
            let input: BulkRequest = parse(name, args)?;
            let mut o = opts(input.message, Expect::Anything);
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
                &opts(input.message, Expect::Anything),
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
        "quire_search" => {
            let input: SearchInput = parse(name, args)?;
            let results = space.find().search(&SearchQuery {
                q: input.q,
                limit: input.limit,
                offset: input.offset,
                path: input.path,
                tag: input.tag,
            })?;
            let value = serde_json::to_value(&results).map_err(Error::internal)?;
            let count = value
                .get("results")
                .and_then(|r| r.as_array())
                .map_or(0, Vec::len);
            Ok(ok(&value, format!("{count} results")))
        }
        "quire_query" => {
            let input: QueryInput = parse(name, args)?;
            let result = space.find().query(&input.q)?;
            Ok(ok(&result, "query answered".into()))
        }
        "quire_query_meta" => {
            let input: MetaInput = parse(name, args)?;
            let result = space.find().meta(&MetaQuery {
                filter: input.filter,
                sort: input.sort,
                limit: input.limit,
                offset: input.offset,
            })?;
            Ok(ok(&result, "pages matching the filter".into()))
        }
        "quire_aggregate" => {
            let input: AggregateInput = parse(name, args)?;
            let rows = space
                .find()
                .aggregate(&input.group, input.calc.as_deref().unwrap_or(""))?;
            let text = format!("{} groups", rows.len());
            Ok(ok(&serde_json::json!({ "rows": rows }), text))
        }
        "quire_backlinks" => {
            let input: PathInput = parse(name, args)?;
            let links = space.find().backlinks(&input.path)?;
            let text = format!("{} backlinks to {}", links.len(), input.path);
            Ok(ok(&serde_json::json!({ "backlinks": links }), text))
        }
        "quire_graph_analytics" => {
            let input: AnalyticsInput = parse(name, args)?;
            let analytics = space.find().analytics(input.limit.unwrap_or(10));
            Ok(ok(&analytics, "graph analytics".into()))
        }
        "quire_graph_communities" => {
            let _: serde_json::Map<String, serde_json::Value> = parse(name, args)?;
            Ok(ok(&space.find().communities(), "communities".into()))
        }
        "quire_graph_path" => {
            let input: GraphPathInput = parse(name, args)?;
            let path = space
                .find()
                .path(&input.from, &input.to, input.undirected)?;
            Ok(ok(
                &path,
                format!("path from {} to {}", input.from, input.to),
            ))
        }
        "quire_peek" => {
            let input: PathInput = parse(name, args)?;
            let peek = space.pages().peek(&input.path)?;
            Ok(ok(&peek, format!("{}: {}", peek.path, peek.title)))
        }
        "quire_lint" => {
            let input: LintRequest = parse(name, args)?;
            let report = space.pages().lint(&input)?;
            let text = format!("{} issues", report.issues.len());
            Ok(ok(&report, text))
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
            let _: serde_json::Map<String, serde_json::Value> = parse(name, args)?;
            let claims = ClaimList {
                claims: space.claims().list()?,
            };
            let text = format!("{} claims", claims.claims.len());
            Ok(ok(&claims, text))
        }
        "quire_refactor_plan" => {
            let input: RefactorPlanInput = parse(name, args)?;
            quire_service::validate_manifest(&input.manifest)?;
            let plan = space.restructure().plan_as(
                &input.manifest,
                input.diffs,
                Some(&caller.actor),
                &caller.client,
            )?;
            let text = plan_summary(&plan);
            Ok(ok(&plan, text))
        }
        "quire_refactor_script" => {
            let input: ScriptRequest = parse(name, args)?;
            let answer = space.restructure().script(
                &input.script,
                input.diffs,
                Some(&caller.actor),
                &caller.client,
            )?;
            let text = format!(
                "script output {} bytes; {}",
                answer.output.len(),
                plan_summary(&answer.plan)
            );
            Ok(ok(&answer, text))
        }
        "quire_refactor_revert" => {
            let input: RefactorRevertInput = parse(name, args)?;
            if input.dry_run {
                let plan = space.restructure().revert_plan(&input.commit)?;
                let text = plan_summary(&plan);
                return Ok(ok(&plan, text));
            }
            let (applied, plan) = space.restructure().revert(
                &input.commit,
                input.digest.as_deref(),
                &caller.actor,
                &caller.client,
            )?;
            let text = format!(
                "reverted {} as commit {}",
                input.commit,
                applied.commit.as_deref().unwrap_or("-")
            );
            Ok(ok(&Applied { applied, plan }, text))
        }
        other => Err(Error::internal(format!("tool {other} has no handler"))),
    }
}

/// `quire_read`: a path, else a name or link resolved as at the root.
fn read(space: &Space, input: ReadInput) -> Answer {
    let files = space.files();
    let path = match files.read(&input.path) {
        Ok(_) => input.path.clone(),
        Err(e) if e.code == ErrorCode::NotFound || e.code == ErrorCode::BadRequest => {
            let resolved = files.resolve_links(std::slice::from_ref(&input.path));
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

/// The form a client shows to confirm a restructuring.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Confirm {
    /// Apply this restructuring now.
    apply: bool,
}

rmcp::elicit_safe!(Confirm);

/// `quire_refactor_apply`: over the approval limits it asks the user (elicitation) when the
/// client can, else leaves the plan to a person's approval.
async fn refactor_apply(
    space: Arc<Space>,
    input: RefactorApplyInput,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Answer {
    quire_service::validate_manifest(&input.manifest)?;
    let mut manifest = input.manifest;
    if input.now.is_some() {
        manifest.now = input.now;
    }
    let mut req = ApplyRequest {
        manifest,
        digest: input.digest,
        approved: false,
        actor: caller.actor.clone(),
        client: caller.client.clone(),
        message: input.message,
    };
    let plan = {
        let space = space.clone();
        let req = req.clone();
        tokio::task::spawn_blocking(move || {
            space
                .restructure()
                .plan_as(&req.manifest, false, Some(&req.actor), &req.client)
        })
        .await
        .map_err(Error::internal)??
    };
    let needs = plan.approval.as_ref().filter(|a| a.required).cloned();
    let can_ask = !peer.supported_elicitation_modes().is_empty();
    if let (Some(approval), true) = (needs, can_ask) {
        let question = format!(
            "An agent wants to restructure the knowledge base: {}. It needs your confirmation \
             because {}. Apply it?",
            plan_summary(&plan),
            approval.reason
        );
        let answer = peer
            .elicit_with_timeout::<Confirm>(question, Some(std::time::Duration::from_secs(600)))
            .await;
        match answer {
            Ok(Some(Confirm { apply: true })) => req.approved = true,
            Ok(_) | Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => {
                let not = NotApplied {
                    status: "declined".into(),
                    message: "the user declined this restructuring; nothing was written".into(),
                    plan,
                };
                let text = not.message.clone();
                return Ok(ok(&not, text));
            }
            Err(e) => {
                return Err(Error::unavailable(format!(
                    "could not ask the user to confirm this restructuring ({e}); nothing was \
                     written"
                )))
            }
        }
    }
    let outcome = tokio::task::spawn_blocking(move || space.restructure().apply(&req))
        .await
        .map_err(Error::internal)?;
    match outcome {
        Ok((applied, plan)) => {
            let text = format!(
                "applied as commit {} ({} written, {} deleted)",
                applied.commit.as_deref().unwrap_or("-"),
                applied.written,
                applied.deleted
            );
            Ok(ok(&Applied { applied, plan }, text))
        }
        Err(e) if e.code == ErrorCode::ApprovalRequired => {
            let plan = e.plan().cloned().unwrap_or(plan);
            let not = NotApplied {
                status: "pending".into(),
                message: format!(
                    "{e}. Nothing was written: the plan waits in pending approvals until a \
                     person approves it (web UI, or POST /refactor/approve with this manifest \
                     and digest {}); then call quire_refactor_apply again with that digest.",
                    plan.digest
                ),
                plan,
            };
            let text = not.message.clone();
            Ok(ok(&not, text))
        }
        Err(e) => Err(e),
    }
}

fn plan_summary(plan: &quire_api::Plan) -> String {
    format!(
        "plan {}: {} moves, {} merges, {} pages rewritten ({} links), {} conflicts, {} errors",
        plan.digest,
        plan.moves.len(),
        plan.merges.len(),
        plan.edits.len(),
        plan.rewritten_links(),
        plan.conflicts.len(),
        plan.errors.len()
    )
}

/// A successful answer: the value as structured content (an object; arrays are wrapped by
/// their callers) and a short text.
fn ok<T: Serialize>(value: &T, text: String) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// A tool error: the message REST gives, with its code and, where there is one, the plan.
pub(crate) fn error_result(e: &Error) -> CallToolResult {
    if e.code == ErrorCode::Internal {
        tracing::error!(detail = ?e.detail, "internal error answering an MCP call: {e}");
    }
    let mut body = serde_json::json!({ "error": e.to_string(), "code": e.code });
    if let Some(plan) = e.plan() {
        body["plan"] = serde_json::to_value(plan).unwrap_or_default();
    }
    let mut result = CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
    result.structured_content = Some(body);
    result
}

//! The history of files and who holds them: versions, content at a version, diffs, blame, the
//! change feed, the timeline, claims.

use quire_api::mcp::{
    ChangesInput, DiffInput, LimitInput, NoInput, PathInput, TextAnswer, TimelineInput,
    VersionContent, VersionInput,
};
use quire_api::{
    BlameLine, ChangesPage, Claim, ClaimList, ClaimRequest, JsonFeed, ReleaseRequest, Released,
    Timeline, VersionEntry,
};
use quire_service::{Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "versions";
const CLAIMS: &str = "claims";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Versions>();
    v.op::<Version>();
    v.op::<Diff>();
    v.op::<Blame>();
    v.op::<Changes>();
    v.op::<TimelineOp>();
    v.op::<Feed>();
    v.op::<ClaimOp>();
    v.op::<Release>();
    v.op::<ClaimsList>();
}

/// `GET /versions`, `quire_versions`.
pub struct Versions;

impl Operation for Versions {
    type Input = PathInput;
    type Output = Vec<VersionEntry>;
    const META: Meta = Meta::read("versions", AREA, "Versions of a file, newest first")
        .rest(Rest::get("/versions"))
        .tool(Tool::listing("quire_versions", "versions"))
        .describe(
            "The history of one file: every commit that changed it, newest first, with \
author and time.",
        );

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<VersionEntry>> {
        space.versions().of(&input.path)
    }
}

/// `GET /version`: a file's content at a version (REST sends it raw).
pub struct Version;

impl Version {
    /// The bytes themselves (REST answers them raw).
    pub fn bytes(space: &Space, input: &VersionInput) -> Result<Vec<u8>> {
        space.versions().content(&input.path, &input.version)
    }
}

impl Operation for Version {
    type Input = VersionInput;
    type Output = VersionContent;
    const META: Meta = Meta::read("version", AREA, "A file's content at a version")
        .rest(Rest::get("/version").raw_answer("text/markdown"));

    fn run(space: &Space, input: VersionInput, _: &Caller) -> Result<VersionContent> {
        use base64::Engine as _;
        let bytes = Version::bytes(space, &input)?;
        let (content, content_base64) = match String::from_utf8(bytes) {
            Ok(text) => (Some(text), None),
            Err(e) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(e.as_bytes())),
            ),
        };
        Ok(VersionContent {
            path: input.path,
            version: input.version,
            content,
            content_base64,
        })
    }
}

/// `GET /diff`: a unified diff (REST sends it as `text/x-diff`).
pub struct Diff;

impl Operation for Diff {
    type Input = DiffInput;
    type Output = TextAnswer;
    const META: Meta = Meta::read("diff", AREA, "Unified diff of a file between two versions")
        .rest(Rest::get("/diff").raw_answer("text/x-diff"));

    fn run(space: &Space, input: DiffInput, _: &Caller) -> Result<TextAnswer> {
        let text = space.versions().diff(&input.path, &input.from, &input.to)?;
        Ok(TextAnswer { text })
    }

    fn text(output: &TextAnswer) -> String {
        output.text.clone()
    }
}

/// `GET /blame`.
pub struct Blame;

impl Operation for Blame {
    type Input = PathInput;
    type Output = Vec<BlameLine>;
    const META: Meta =
        Meta::read("blame", AREA, "Who last changed each line of a file").rest(Rest::get("/blame"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<BlameLine>> {
        space.versions().blame(&input.path)
    }
}

/// `GET /changes`, `quire_changes`.
pub struct Changes;

impl Operation for Changes {
    type Input = ChangesInput;
    type Output = ChangesPage;
    const META: Meta = Meta::read(
        "changes",
        AREA,
        "Changes across the knowledge base, oldest first; pass `last_seq` as `since` to continue",
    )
    .rest(Rest::get("/changes"))
    .tool(Tool::named("quire_changes"))
    .describe(
        "The change feed of the whole root, oldest first from `since` (a commit id, the \
`cursor` of the previous answer, or an RFC 3339 time). Use it to catch up after a while away.",
    );

    fn run(space: &Space, input: ChangesInput, _: &Caller) -> Result<ChangesPage> {
        space
            .versions()
            .changes(input.since.as_deref(), input.limit)
    }
}

/// `GET /timeline`, `quire_timeline`.
pub struct TimelineOp;

impl Operation for TimelineOp {
    type Input = TimelineInput;
    type Output = Timeline;
    const META: Meta = Meta::read("timeline", AREA, "The newest changes, newest first")
        .rest(Rest::get("/timeline"))
        .tool(Tool::named("quire_timeline"))
        .describe(
            "The newest changes of the whole root, newest first: path, write or delete, \
author, time, commit. `type` keeps only writes or only deletes; `limit` (default 50, at most \
500). Use it to see what happened lately; quire_changes pages through everything. Reads the \
newest 500 changes of the history.",
        );

    fn run(space: &Space, input: TimelineInput, _: &Caller) -> Result<Timeline> {
        space.versions().timeline(input.kind, input.limit)
    }
}

/// `quire_feed`: the newest changes as a JSON Feed whose items link to `quire://file/`
/// resources (REST's `/feed.json` links them to the API instead).
pub struct Feed;

impl Feed {
    /// Changes in the feed when the caller names no limit (as `GET /feed.json`).
    pub const LIMIT: usize = 50;
}

impl Operation for Feed {
    type Input = LimitInput;
    type Output = JsonFeed;
    const META: Meta = Meta::read("feed", AREA, "The newest changes as a JSON Feed 1.1")
        .tool(Tool::named("quire_feed"))
        .describe(
            "The newest changes as a JSON Feed 1.1 (the items of GET /feed.json): one item \
per change with title, summary, author and time; a written file's item links to its \
quire://file/ resource. For clients that follow feeds; quire_timeline is the plainer list.",
        );

    fn run(space: &Space, input: LimitInput, _: &Caller) -> Result<JsonFeed> {
        let timeline = space
            .versions()
            .timeline(None, Some(input.limit.unwrap_or(Feed::LIMIT)))?;
        Ok(JsonFeed::of_changes(
            space.name(),
            &timeline.events,
            None,
            |path| {
                format!(
                    "quire://file/{}",
                    quire_api::workspace_edit::encode_uri_path(path)
                )
            },
        ))
    }
}

/// The actor of a claim or a release: the protocol's (`X-Actor`, the agent's session), else
/// the body's.
fn claimant(caller: &Caller, given: Option<String>) -> Option<String> {
    caller
        .write_options(None, None)
        .actor
        .or_else(|| given.filter(|a| !a.trim().is_empty()))
}

/// `POST /claim`, `quire_claim`.
pub struct ClaimOp;

impl Operation for ClaimOp {
    type Input = ClaimRequest;
    type Output = Claim;
    const META: Meta = Meta::write(
        "claim",
        CLAIMS,
        "Claims a page path for a lease; the holder claiming again renews it",
    )
    .rest(Rest::post("/claim"))
    .tool(Tool::named("quire_claim"))
    .describe(
        "Claim a page for a while (`lease_duration`, default 30m) so other agents and \
restructurings leave it alone while you work on it. Release it when done.",
    );

    fn run(space: &Space, input: ClaimRequest, caller: &Caller) -> Result<Claim> {
        let actor = claimant(caller, input.actor);
        space.claims().claim(
            &input.path,
            actor.as_deref(),
            input.lease_duration.as_deref(),
        )
    }
}

/// `DELETE /claim`, `quire_release`.
pub struct Release;

impl Operation for Release {
    type Input = ReleaseRequest;
    type Output = Released;
    const META: Meta = Meta::write(
        "release",
        CLAIMS,
        "Releases the caller's claim on a page path",
    )
    .rest(Rest::delete("/claim").json())
    .tool(Tool::named("quire_release"))
    .describe(
        "Release a claim you hold, as soon as you are done with the page, so others may \
work on it.",
    );

    fn run(space: &Space, input: ReleaseRequest, caller: &Caller) -> Result<Released> {
        let actor = claimant(caller, input.actor);
        let released = space.claims().release(&input.path, actor.as_deref())?;
        Ok(Released {
            released: released.to_string(),
        })
    }
}

/// `GET /claims`, `quire_claims_list`.
pub struct ClaimsList;

impl Operation for ClaimsList {
    type Input = NoInput;
    type Output = ClaimList;
    const META: Meta = Meta::read("claims", CLAIMS, "Every active claim, by path")
        .rest(Rest::get("/claims"))
        .tool(Tool::named("quire_claims_list"))
        .describe(
            "Every active claim: path, holder and expiry. Check it before editing pages \
other agents may be working on.",
        );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<ClaimList> {
        Ok(ClaimList {
            claims: space.claims().list()?,
        })
    }
}

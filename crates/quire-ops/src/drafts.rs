//! Drafts: changes on a git branch of their own until merged or discarded.

use quire_api::mcp::{
    DraftFileContent, DraftIdInput, DraftMergeInput, DraftReadInput, DraftWriteInput, NoInput,
};
use quire_api::{
    Draft, DraftCreate, DraftDiff, DraftDiscarded, DraftFileDelete, DraftFileDeleted,
    DraftFileWrite, DraftMerged, DraftPathInput, DraftRead, DraftSummary, DraftTreeInput,
    DraftWrite, DraftWritten, TreeNode,
};
use quire_service::{FileContent, Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "drafts";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Create>();
    v.op::<List>();
    v.op::<Read>();
    v.op::<Write>();
    v.op::<Diff>();
    v.op::<Merge>();
    v.op::<Discard>();
    v.op::<Get>();
    v.op::<ReadFile>();
    v.op::<WriteFile>();
    v.op::<DeleteFile>();
    v.op::<Tree>();
}

/// `POST /drafts`, `quire_draft_create`.
pub struct Create;

impl Operation for Create {
    type Input = DraftCreate;
    type Output = DraftSummary;
    const META: Meta = Meta::write(
        "draft_create",
        AREA,
        "Opens a draft on the knowledge base as it is now: a branch `drafts/<id>`",
    )
    .rest(Rest::post("/drafts").empty_body().created())
    .tool(Tool::named("quire_draft_create"))
    .describe(
        "Open a draft: a branch holding changes apart from the knowledge base \
until quire_draft_merge. Returns its `id`. Writes into a draft are invisible to reads, search \
and the tree until merged. At most [drafts] max_active drafts are open.",
    );

    fn run(space: &Space, input: DraftCreate, caller: &Caller) -> Result<DraftSummary> {
        // The body's actor first, then the protocol's (the spec's order for this route).
        let actor = input
            .actor
            .filter(|a| !a.trim().is_empty())
            .or(caller.write_options(None, None).actor);
        space.drafts().create(actor.as_deref())
    }

    fn text(output: &DraftSummary) -> String {
        format!("opened draft {} (branch {})", output.id, output.branch)
    }
}

/// `GET /drafts`, `quire_draft_list`.
pub struct List;

impl Operation for List {
    type Input = NoInput;
    type Output = Vec<DraftSummary>;
    const META: Meta = Meta::read("drafts", AREA, "Every open draft, oldest first")
        .rest(Rest::get("/drafts"))
        .tool(Tool::listing("quire_draft_list", "drafts"))
        .describe("Every open draft: id, branch, actor, created_at, updated_at. Cheap.");

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Vec<DraftSummary>> {
        space.drafts().list()
    }
}

/// `quire_draft_read`: a file of a draft, or the draft itself (REST has a route for each).
pub struct Read;

impl Operation for Read {
    type Input = DraftReadInput;
    type Output = DraftRead;
    const META: Meta = Meta::read(
        "draft_read",
        AREA,
        "A file as a draft holds it, or the draft with the files it changed",
    )
    .tool(Tool::named("quire_draft_read"))
    .describe(
        "With `path`: that file as the draft holds it (content and etag). \
Without: the draft with the files it changed since it began.",
    );

    fn run(space: &Space, input: DraftReadInput, caller: &Caller) -> Result<DraftRead> {
        match input.path {
            Some(path) => ReadFile::run(space, DraftPathInput { id: input.id, path }, caller)
                .map(DraftRead::File),
            None => Get::run(space, DraftIdInput { id: input.id }, caller).map(DraftRead::Draft),
        }
    }

    fn text(output: &DraftRead) -> String {
        match output {
            DraftRead::File(file) => file.content.clone(),
            DraftRead::Draft(draft) => serde_json::to_string_pretty(draft).unwrap_or_default(),
        }
    }
}

/// `quire_draft_write`: writes or removes a file of a draft (REST has a route for each).
pub struct Write;

impl Operation for Write {
    type Input = DraftWriteInput;
    type Output = DraftWrite;
    const META: Meta = Meta::write(
        "draft_write",
        AREA,
        "Writes a file into a draft, or removes it (a commit on the draft's branch)",
    )
    .tool(Tool::named("quire_draft_write"))
    .describe(
        "Write `content` to `path` in draft `id` (or remove it with `delete: \
true`): one commit on the draft's branch, nothing in the knowledge base. Pass `if_match` (the \
etag quire_draft_read gave) to not overwrite a concurrent change.",
    );

    fn run(space: &Space, input: DraftWriteInput, caller: &Caller) -> Result<DraftWrite> {
        if input.delete {
            let delete = DraftFileDelete {
                id: input.id,
                path: input.path,
                if_match: input.if_match,
            };
            return DeleteFile::run(space, delete, caller).map(DraftWrite::Deleted);
        }
        let write = DraftFileWrite {
            id: input.id,
            path: input.path,
            content: input.content,
            if_match: input.if_match,
        };
        WriteFile::run(space, write, caller).map(DraftWrite::Written)
    }

    fn text(output: &DraftWrite) -> String {
        match output {
            DraftWrite::Written(w) => WriteFile::text(w),
            DraftWrite::Deleted(d) => DeleteFile::text(d),
        }
    }
}

/// `GET /drafts/{id}/diff`, `quire_draft_diff`.
pub struct Diff;

impl Operation for Diff {
    type Input = DraftIdInput;
    type Output = DraftDiff;
    const META: Meta = Meta::read(
        "draft_diff",
        AREA,
        "What the draft changed since it began, as one unified diff",
    )
    .rest(Rest::get("/drafts/{id}/diff"))
    .tool(Tool::named("quire_draft_diff"))
    .describe(
        "What draft `id` changed since it began, as one unified diff, with the \
files and whether each was added, modified or deleted.",
    );

    fn run(space: &Space, input: DraftIdInput, _: &Caller) -> Result<DraftDiff> {
        space.drafts().diff(&input.id)
    }
}

/// `POST /drafts/{id}/merge`, `quire_draft_merge`.
pub struct Merge;

impl Operation for Merge {
    type Input = DraftMergeInput;
    type Output = DraftMerged;
    const META: Meta = Meta::write(
        "draft_merge",
        AREA,
        "Merges a draft: its changes become one commit on main, and the branch is deleted",
    )
    .rest(Rest::post("/drafts/{id}/merge").empty_body())
    .tool(Tool::named("quire_draft_merge"))
    .describe(
        "Merge draft `id` into the knowledge base as one commit by you, then \
delete it. Lines changed on both sides since the draft began are a conflict: nothing is \
merged and the error names the files.",
    );

    fn run(space: &Space, input: DraftMergeInput, caller: &Caller) -> Result<DraftMerged> {
        space
            .drafts()
            .merge(&input.id, &caller.write_options(input.message, None))
    }
}

/// `DELETE /drafts/{id}`, `quire_draft_discard`.
pub struct Discard;

impl Operation for Discard {
    type Input = DraftIdInput;
    type Output = DraftDiscarded;
    const META: Meta = Meta::write(
        "draft_discard",
        AREA,
        "Discards a draft: its branch is deleted, nothing is merged",
    )
    .rest(Rest::delete("/drafts/{id}").no_content())
    .tool(Tool::named("quire_draft_discard"))
    .describe("Discard draft `id`: its branch is deleted, nothing is merged.");

    fn run(space: &Space, input: DraftIdInput, _: &Caller) -> Result<DraftDiscarded> {
        space.drafts().discard(&input.id)?;
        Ok(DraftDiscarded {
            discarded: input.id,
        })
    }

    fn text(output: &DraftDiscarded) -> String {
        format!("discarded draft {}", output.discarded)
    }
}

/// `GET /drafts/{id}`.
pub struct Get;

impl Operation for Get {
    type Input = DraftIdInput;
    type Output = Draft;
    const META: Meta = Meta::read(
        "draft",
        AREA,
        "One draft with the files it changed since it began",
    )
    .rest(Rest::get("/drafts/{id}"));

    fn run(space: &Space, input: DraftIdInput, _: &Caller) -> Result<Draft> {
        space.drafts().get(&input.id)
    }
}

/// `GET /drafts/{id}/file`: a file as the draft holds it (REST sends its bytes raw).
pub struct ReadFile;

impl ReadFile {
    /// The bytes themselves, with their ETag.
    pub fn bytes(space: &Space, input: &DraftPathInput) -> Result<FileContent> {
        space.drafts().read(&input.id, &input.path)
    }
}

impl Operation for ReadFile {
    type Input = DraftPathInput;
    type Output = DraftFileContent;
    const META: Meta = Meta::read(
        "draft_file",
        AREA,
        "A file as the draft holds it, with its ETag (git blob id)",
    )
    .rest(Rest::get("/drafts/{id}/file").raw_answer("text/markdown"));

    fn run(space: &Space, input: DraftPathInput, _: &Caller) -> Result<DraftFileContent> {
        let file = ReadFile::bytes(space, &input)?;
        Ok(DraftFileContent {
            id: input.id,
            path: input.path,
            content: String::from_utf8_lossy(&file.bytes).into_owned(),
            etag: file.etag,
        })
    }

    fn text(output: &DraftFileContent) -> String {
        output.content.clone()
    }
}

/// `PUT /drafts/{id}/file`: a file written into the draft (REST sends any bytes).
pub struct WriteFile;

impl WriteFile {
    /// The write of `bytes`.
    pub fn bytes(
        space: &Space,
        id: &str,
        path: &str,
        bytes: Vec<u8>,
        if_match: Option<String>,
        caller: &Caller,
    ) -> Result<DraftWritten> {
        space
            .drafts()
            .write(id, path, bytes, &caller.write_options(None, if_match))
    }
}

impl Operation for WriteFile {
    type Input = DraftFileWrite;
    type Output = DraftWritten;
    const META: Meta = Meta::write(
        "draft_write_file",
        AREA,
        "Writes a file into the draft (a commit on its branch; the knowledge base is untouched)",
    )
    .rest(Rest::put("/drafts/{id}/file").raw_body("content", "text/markdown"));

    fn run(space: &Space, input: DraftFileWrite, caller: &Caller) -> Result<DraftWritten> {
        WriteFile::bytes(
            space,
            &input.id,
            &input.path,
            input.content.into_bytes(),
            input.if_match,
            caller,
        )
    }

    fn text(output: &DraftWritten) -> String {
        format!("wrote {} in the draft (etag {})", output.path, output.etag)
    }
}

/// `DELETE /drafts/{id}/file`.
pub struct DeleteFile;

impl Operation for DeleteFile {
    type Input = DraftFileDelete;
    type Output = DraftFileDeleted;
    const META: Meta = Meta::write(
        "draft_delete_file",
        AREA,
        "Deletes a file from the draft (a commit on its branch)",
    )
    .rest(Rest::delete("/drafts/{id}/file").no_content());

    fn run(space: &Space, input: DraftFileDelete, caller: &Caller) -> Result<DraftFileDeleted> {
        space.drafts().delete_file(
            &input.id,
            &input.path,
            &caller.write_options(None, input.if_match),
        )?;
        Ok(DraftFileDeleted {
            path: input.path,
            deleted: true,
        })
    }

    fn text(output: &DraftFileDeleted) -> String {
        format!("removed {} from the draft", output.path)
    }
}

/// `GET /drafts/{id}/tree`.
pub struct Tree;

impl Operation for Tree {
    type Input = DraftTreeInput;
    type Output = Vec<TreeNode>;
    const META: Meta = Meta::read("draft_tree", AREA, "The draft's folder tree")
        .rest(Rest::get("/drafts/{id}/tree"));

    fn run(space: &Space, input: DraftTreeInput, _: &Caller) -> Result<Vec<TreeNode>> {
        space.drafts().tree(&input.id, input.path.as_deref())
    }
}

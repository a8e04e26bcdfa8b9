//! Files and structure: tree, read, write, delete, bulk, append, assets, headings, templates,
//! symlinks and link resolution.

use quire_api::mcp::{
    AppendInput, DeleteInput, FileBytes, PathInput, ReadInput, ReadResult, TemplateInput,
    TemplatesInput, TextAnswer, TreeInput, WriteInput,
};
use quire_api::{
    AppendResult, BulkRequest, BulkResult, DeleteResult, Heading, ResolveLinksRequest,
    ResolvedLinks, Templates, TreeNode, WriteResult,
};
use quire_service::{Error, ErrorCode, Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "files";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Read>();
    v.op::<ReadFile>();
    v.op::<RawFile>();
    v.op::<WriteFile>();
    v.op::<DeleteFile>();
    v.op::<Bulk>();
    v.op::<Append>();
    v.op::<Tree>();
    v.op::<Toc>();
    v.op::<TemplateList>();
    v.op::<TemplateBody>();
    v.op::<Readlink>();
    v.op::<ResolveLinks>();
}

/// `quire_read`: a path, else a page name or link resolved as at the root.
pub struct Read;

impl Operation for Read {
    type Input = ReadInput;
    type Output = ReadResult;
    const META: Meta = Meta::read("read", AREA, "Read one file, a page name or a wiki link")
        .tool(Tool::named("quire_read"))
        .describe(
            "Read one file. `path` may be a root-relative path, a page name or a \
[[wiki link]] (resolved as a link at the root would be). Use `metadata_only` for frontmatter, \
title, headings and links without the body, and `if_not_etag` with the etag you hold to get \
`unchanged: true` instead of the text. Cheap: one file from disk.",
        );

    fn run(space: &Space, input: ReadInput, caller: &Caller) -> Result<ReadResult> {
        let answer = read(space, input)?;
        if answer.content.is_some() {
            space.page_viewed(
                &answer.path,
                caller.client.as_deref().or(Some("mcp")),
                caller.actor.as_deref(),
            );
        }
        Ok(answer)
    }

    /// The file itself, for hosts that give the model only the text.
    fn text(output: &ReadResult) -> String {
        match (&output.content, output.unchanged, &output.metadata) {
            (Some(text), _, _) => text.clone(),
            (None, true, _) => format!("{} unchanged (etag {})", output.path, output.etag),
            (None, false, Some(_)) => serde_json::to_string_pretty(output).unwrap_or_default(),
            (None, false, None) => format!(
                "{} is a binary file of {} bytes (etag {}); its content is not sent",
                output.path, output.size, output.etag
            ),
        }
    }
}

/// [`Read`]'s work, before the view is counted.
fn read(space: &Space, input: ReadInput) -> Result<ReadResult> {
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
    } else if input.metadata_only {
        result.metadata = Some(space.pages().peek(&path)?);
    } else {
        result.content = String::from_utf8(content.bytes).ok();
    }
    Ok(result)
}

/// `GET /raw`: a file's bytes and nothing else — no ETag, no conditional requests, never
/// cached — for tools that fetch files as they are (images, attachments, exports).
pub struct RawFile;

impl Operation for RawFile {
    type Input = PathInput;
    type Output = FileBytes;
    const META: Meta = Meta::read(
        "raw_file",
        AREA,
        "A file's raw bytes, typed by its extension, without ETag semantics",
    )
    .rest(Rest::get("/raw").raw_answer("application/octet-stream"));

    fn run(space: &Space, input: PathInput, caller: &Caller) -> Result<FileBytes> {
        ReadFile::run(space, input, caller)
    }
}

/// `GET /file`: a file's bytes at exactly that path, with its ETag.
pub struct ReadFile;

impl ReadFile {
    /// The bytes themselves (REST answers them raw).
    pub fn bytes(space: &Space, path: &str) -> Result<quire_service::FileContent> {
        space.files().read(path)
    }
}

impl Operation for ReadFile {
    type Input = PathInput;
    type Output = FileBytes;
    const META: Meta = Meta::read(
        "read_file",
        AREA,
        "A file's raw content with its ETag (git blob id)",
    )
    .rest(Rest::get("/file").raw_answer("application/octet-stream"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<FileBytes> {
        use base64::Engine as _;
        let read = ReadFile::bytes(space, &input.path)?;
        let size = read.bytes.len();
        let (content, content_base64) = match String::from_utf8(read.bytes) {
            Ok(text) => (Some(text), None),
            Err(e) => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(e.as_bytes());
                (None, Some(encoded))
            }
        };
        Ok(FileBytes {
            path: input.path,
            etag: read.etag,
            size,
            content,
            content_base64,
        })
    }
}

/// `PUT /file`, `quire_write`: creates or replaces one file.
pub struct WriteFile;

impl WriteFile {
    /// The write of `bytes` (REST sends any bytes; agents send text).
    pub fn bytes(
        space: &Space,
        path: &str,
        bytes: Vec<u8>,
        message: Option<String>,
        if_match: Option<String>,
        caller: &Caller,
    ) -> Result<WriteResult> {
        space
            .files()
            .write(path, bytes, &caller.write_options(message, if_match))
    }

    /// [`WriteFile::bytes`] on an async executor's thread, when nothing can make the write
    /// wait; `None` (nothing done) when it could, and the caller runs [`WriteFile::bytes`] on
    /// a blocking thread (`Files::try_write_at_once`).
    pub fn bytes_at_once(
        space: &Space,
        path: &str,
        bytes: &[u8],
        caller: &Caller,
    ) -> Option<Result<WriteResult>> {
        space
            .files()
            .try_write_at_once(path, bytes, &caller.write_options(None, None))
    }
}

impl Operation for WriteFile {
    type Input = WriteInput;
    type Output = WriteResult;
    const META: Meta = Meta::write(
        "write_file",
        AREA,
        "Create or replace a file (one commit per write; X-Actor is the author)",
    )
    .rest(Rest::put("/file").raw_body("content", "text/markdown"))
    .tool(Tool::named("quire_write"))
    .describe(
        "Create or replace one file with `content`: committed to git (writes close together \
share one commit), indexed and announced. Pass the etag from quire_read as `if_match` so a \
concurrent edit is not overwritten (conflict error instead). To move or rename use \
quire_rename, never write + delete.",
    );

    fn run(space: &Space, input: WriteInput, caller: &Caller) -> Result<WriteResult> {
        WriteFile::bytes(
            space,
            &input.path,
            input.content.into_bytes(),
            input.message,
            input.if_match,
            caller,
        )
    }

    fn text(output: &WriteResult) -> String {
        let verb = if output.created { "created" } else { "wrote" };
        format!("{verb} {} (etag {})", output.path, output.etag)
    }
}

/// `DELETE /file`, `quire_delete`.
pub struct DeleteFile;

impl Operation for DeleteFile {
    type Input = DeleteInput;
    type Output = DeleteResult;
    const META: Meta = Meta::write(
        "delete_file",
        AREA,
        "Delete a file, recording the deletion as a commit",
    )
    .rest(Rest::delete("/file"))
    .tool(Tool::named("quire_delete"))
    .describe(
        "Delete one file (one commit). Links to it become broken; prefer \
quire_refactor_plan with a merge when the page has backlinks (see quire_backlinks).",
    );

    fn run(space: &Space, input: DeleteInput, caller: &Caller) -> Result<DeleteResult> {
        space.files().delete(
            &input.path,
            &caller.write_options(input.message, input.if_match),
        )
    }

    fn text(output: &DeleteResult) -> String {
        format!("deleted {}", output.path)
    }
}

/// `POST /bulk`, `quire_bulk_write`: many files in one atomic commit.
pub struct Bulk;

impl Operation for Bulk {
    type Input = BulkRequest;
    type Output = BulkResult;
    const META: Meta = Meta::write("bulk", AREA, "Write many files in one atomic commit")
        .rest(Rest::post("/bulk"))
        .tool(Tool::named("quire_bulk_write"))
        .describe(
            "Write several files at once, all or nothing, as one commit. Use it instead of \
many quire_write calls when the files belong together.",
        );

    fn run(space: &Space, input: BulkRequest, caller: &Caller) -> Result<BulkResult> {
        let mut opts = caller.write_options(input.message, None);
        // The protocol's actor (X-Actor, the agent's session) wins; the body's fills in.
        if opts.actor.is_none() {
            opts.actor = input.actor.filter(|a| !a.trim().is_empty());
        }
        let files = input
            .files
            .into_iter()
            .map(|f| (f.path, f.content.into_bytes()))
            .collect();
        space.files().bulk(files, &opts)
    }
}

/// `POST /file/append`, `quire_append`: text added to the end of a page.
pub struct Append;

impl Append {
    /// What goes between the old content and the new text when the caller names nothing.
    pub const SEPARATOR: &'static str = "\n\n";

    /// The append of `text` (REST sends any bytes).
    pub fn bytes(
        space: &Space,
        path: &str,
        text: &[u8],
        separator: Option<&str>,
        message: Option<String>,
        caller: &Caller,
    ) -> Result<AppendResult> {
        space.files().append(
            path,
            text,
            separator.unwrap_or(Append::SEPARATOR),
            &caller.write_options(message, None),
        )
    }
}

impl Operation for Append {
    type Input = AppendInput;
    type Output = AppendResult;
    const META: Meta = Meta::write(
        "append",
        AREA,
        "Append text to a page (created when missing)",
    )
    .rest(Rest::post("/file/append").raw_body("content", "text/markdown"))
    .tool(Tool::named("quire_append"))
    .describe(
        "Append text to a page (created when missing), with `separator` (default a blank \
line) in between. Safe against concurrent writers. Good for logs and journals.",
    );

    fn run(space: &Space, input: AppendInput, caller: &Caller) -> Result<AppendResult> {
        Append::bytes(
            space,
            &input.path,
            input.content.as_bytes(),
            input.separator.as_deref(),
            input.message,
            caller,
        )
    }

    fn text(output: &AppendResult) -> String {
        format!("appended to {} (etag {})", output.path, output.etag)
    }
}

/// `GET /tree`, `quire_tree`.
pub struct Tree;

impl Operation for Tree {
    type Input = TreeInput;
    type Output = Vec<TreeNode>;
    const META: Meta = Meta::read("tree", AREA, "The folder tree")
        .rest(Rest::get("/tree"))
        .tool(Tool::listing("quire_tree", "nodes"))
        .describe(
            "The files and folders below `path` (the whole root when absent). Call it first \
to see what exists; on a large root, pass a folder.",
        );

    fn run(space: &Space, input: TreeInput, _: &Caller) -> Result<Vec<TreeNode>> {
        space.files().tree(input.path.as_deref())
    }
}

/// `GET /toc`.
pub struct Toc;

impl Operation for Toc {
    type Input = PathInput;
    type Output = Vec<Heading>;
    const META: Meta = Meta::read("toc", AREA, "The headings of a page").rest(Rest::get("/toc"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<Heading>> {
        space.files().headings(&input.path)
    }
}

/// `GET /templates`.
pub struct TemplateList;

impl Operation for TemplateList {
    type Input = TemplatesInput;
    type Output = Templates;
    const META: Meta = Meta::read(
        "templates",
        AREA,
        "Template names, or one template as `{name, content}`",
    )
    .rest(Rest::get("/templates"));

    fn run(space: &Space, input: TemplatesInput, _: &Caller) -> Result<Templates> {
        match input.name {
            Some(name) => space.files().template(&name).map(Templates::One),
            None => space.files().templates().map(Templates::Names),
        }
    }
}

/// `GET /template`: a template body ready for insertion.
pub struct TemplateBody;

impl Operation for TemplateBody {
    type Input = TemplateInput;
    type Output = TextAnswer;
    const META: Meta = Meta::read(
        "template",
        AREA,
        "A template body ready for insertion (`{{date}}`, `{{time}}`, `{{title}}` filled in)",
    )
    .rest(Rest::get("/template").raw_answer("text/markdown"));

    fn run(space: &Space, input: TemplateInput, _: &Caller) -> Result<TextAnswer> {
        let text = space
            .files()
            .template_for_insertion(&input.name, input.title.as_deref())?;
        Ok(TextAnswer { text })
    }

    fn text(output: &TextAnswer) -> String {
        output.text.clone()
    }
}

/// `GET /readlink`.
pub struct Readlink;

impl Operation for Readlink {
    type Input = PathInput;
    type Output = TextAnswer;
    const META: Meta = Meta::read("readlink", AREA, "The target of a symbolic link")
        .rest(Rest::get("/readlink").raw_answer("text/plain"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<TextAnswer> {
        let text = space.files().readlink(&input.path)?;
        Ok(TextAnswer { text })
    }

    fn text(output: &TextAnswer) -> String {
        output.text.clone()
    }
}

/// `POST /resolve-links`.
pub struct ResolveLinks;

impl Operation for ResolveLinks {
    type Input = ResolveLinksRequest;
    type Output = ResolvedLinks;
    const META: Meta = Meta::read(
        "resolve_links",
        AREA,
        "Resolves wiki-link targets as a page at the root would",
    )
    .rest(Rest::post("/resolve-links"));

    fn run(space: &Space, input: ResolveLinksRequest, _: &Caller) -> Result<ResolvedLinks> {
        space
            .files()
            .resolve_links(input.from.as_deref(), &input.links)
    }
}

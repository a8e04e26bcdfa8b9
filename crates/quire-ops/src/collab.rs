//! Working with others: comments, share links, publishing, the rules file for coding agents,
//! the web UI's theme, and who may browse the space.
//!
//! The routes readers use without credentials (`GET /public/{token}`, `GET {host}/p/{path}`,
//! `GET /public/file`, `GET /public/tree`) are not operations: they answer host-facing HTML or
//! hide every refusal behind one 404, and stay with the REST adapter.

use quire_api::mcp::{NoInput, PathInput, TextAnswer};
use quire_api::{
    Comment, CommentCreate, CommentDeleted, CommentResolve, IdInput, NewShare, Publication,
    Publications, PublishBulkRequest, PublishRequest, RulesInput, RulesWrite, RulesWritten,
    ShareLink, ShareRevoked, SpaceVisibility, Theme,
};
use quire_service::{Error, Result, RulesFormat, Space};

use crate::{Caller, Meta, Operation, Rest, Visit};

const AREA: &str = "collaboration";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Comments>();
    v.op::<CommentAdd>();
    v.op::<CommentSetResolved>();
    v.op::<CommentDelete>();
    v.op::<ShareCreate>();
    v.op::<Shares>();
    v.op::<ShareRevoke>();
    v.op::<Publish>();
    v.op::<PublishBulk>();
    v.op::<Published>();
    v.op::<Unpublish>();
    v.op::<Rules>();
    v.op::<RulesPut>();
    v.op::<ThemeGet>();
    v.op::<ThemePut>();
    v.op::<Visibility>();
}

/// `GET /comments`.
pub struct Comments;

impl Operation for Comments {
    type Input = PathInput;
    type Output = Vec<Comment>;
    const META: Meta = Meta::read(
        "comments",
        AREA,
        "The comments of a page, oldest first, each at the line its text is on now",
    )
    .rest(Rest::get("/comments"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<Comment>> {
        space.comments().list(&input.path)
    }
}

/// `POST /comments?path=`.
pub struct CommentAdd;

impl Operation for CommentAdd {
    type Input = CommentCreate;
    type Output = Comment;
    const META: Meta = Meta::write(
        "comment_create",
        AREA,
        "Comments on a line of a page (one commit of `.quire/comments/<page>.json`)",
    )
    .rest(
        Rest::post("/comments")
            .query_fields(&["path"])
            .body_field("comment")
            .created(),
    );

    fn run(space: &Space, input: CommentCreate, caller: &Caller) -> Result<Comment> {
        space.comments().create(
            &input.path,
            &input.comment,
            &caller.write_options(None, None),
        )
    }
}

/// `PATCH /comments/{id}`.
pub struct CommentSetResolved;

impl Operation for CommentSetResolved {
    type Input = CommentResolve;
    type Output = Comment;
    const META: Meta = Meta::write(
        "comment_resolve",
        AREA,
        "Resolves a comment (or opens it again)",
    )
    .rest(Rest::patch("/comments/{id}"));

    fn run(space: &Space, input: CommentResolve, caller: &Caller) -> Result<Comment> {
        space
            .comments()
            .set_resolved(&input.id, input.resolved, &caller.write_options(None, None))
    }
}

/// `DELETE /comments/{id}`.
pub struct CommentDelete;

impl Operation for CommentDelete {
    type Input = IdInput;
    type Output = CommentDeleted;
    const META: Meta = Meta::write("comment_delete", AREA, "Deletes a comment")
        .rest(Rest::delete("/comments/{id}"));

    fn run(space: &Space, input: IdInput, caller: &Caller) -> Result<CommentDeleted> {
        space
            .comments()
            .delete(&input.id, &caller.write_options(None, None))
    }
}

/// `POST /share`: the token is in this answer only (REST marks it `Cache-Control: no-store`).
pub struct ShareCreate;

impl Operation for ShareCreate {
    type Input = NewShare;
    type Output = ShareLink;
    const META: Meta = Meta::write(
        "share_create",
        AREA,
        "Makes a share link; the token is in this answer only",
    )
    .rest(Rest::post("/share").created());

    fn run(space: &Space, input: NewShare, caller: &Caller) -> Result<ShareLink> {
        let opts = caller.write_options_by(input.actor.clone(), None, None);
        space.shares().create(&input, &opts)
    }
}

/// `GET /share?path=`.
pub struct Shares;

impl Operation for Shares {
    type Input = PathInput;
    type Output = Vec<ShareLink>;
    const META: Meta = Meta::read(
        "shares",
        AREA,
        "The active links of a page (without tokens), as a JSON array like every list route",
    )
    .rest(Rest::get("/share"));

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<ShareLink>> {
        space.shares().list(&input.path)
    }
}

/// `DELETE /share/{id}`.
pub struct ShareRevoke;

impl Operation for ShareRevoke {
    type Input = IdInput;
    type Output = ShareRevoked;
    const META: Meta = Meta::write(
        "share_revoke",
        AREA,
        "Revokes a share link by its id (not its token)",
    )
    .rest(Rest::delete("/share/{id}"));

    fn run(space: &Space, input: IdInput, _: &Caller) -> Result<ShareRevoked> {
        Ok(ShareRevoked {
            revoked: space.shares().revoke(&input.id)?,
        })
    }
}

/// `POST /publish`.
pub struct Publish;

impl Operation for Publish {
    type Input = PublishRequest;
    type Output = Publication;
    const META: Meta = Meta::write(
        "publish",
        AREA,
        "Publishes a page: frontmatter `published: true` and `published_at` (one commit); \
readable at `{host}/p/{path}` without credentials",
    )
    .rest(Rest::post("/publish"));

    fn run(space: &Space, input: PublishRequest, caller: &Caller) -> Result<Publication> {
        let opts = caller.write_options_by(input.actor, None, None);
        space.publishing().publish(&input.path, &opts)
    }
}

/// `POST /publish/bulk`.
pub struct PublishBulk;

impl Operation for PublishBulk {
    type Input = PublishBulkRequest;
    type Output = Publications;
    const META: Meta = Meta::write(
        "publish_bulk",
        AREA,
        "Publishes several pages in one commit: all of them or none",
    )
    .rest(Rest::post("/publish/bulk"));

    fn run(space: &Space, input: PublishBulkRequest, caller: &Caller) -> Result<Publications> {
        let opts = caller.write_options_by(input.actor, None, None);
        space.publishing().publish_bulk(&input.paths, &opts)
    }
}

/// `GET /publish/list`.
pub struct Published;

impl Operation for Published {
    type Input = NoInput;
    type Output = Publications;
    const META: Meta =
        Meta::read("publications", AREA, "Every published page").rest(Rest::get("/publish/list"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Publications> {
        space.publishing().list()
    }
}

/// `POST /unpublish`.
pub struct Unpublish;

impl Operation for Unpublish {
    type Input = PublishRequest;
    type Output = Publication;
    const META: Meta = Meta::write(
        "unpublish",
        AREA,
        "Takes a page off `/p/`: `published: false`, `published_at` removed (one commit)",
    )
    .rest(Rest::post("/unpublish"));

    fn run(space: &Space, input: PublishRequest, caller: &Caller) -> Result<Publication> {
        let opts = caller.write_options_by(input.actor, None, None);
        space.publishing().unpublish(&input.path, &opts)
    }
}

/// `GET /rules`: markdown (REST answers it as `text/markdown`).
pub struct Rules;

impl Operation for Rules {
    type Input = RulesInput;
    type Output = TextAnswer;
    const META: Meta = Meta::read(
        "rules",
        AREA,
        "The rules file for coding agents: as written, or wrapped as a tool's rules file; an \
empty body when there are none",
    )
    .rest(Rest::get("/rules").raw_answer("text/markdown"));

    fn run(space: &Space, input: RulesInput, _: &Caller) -> Result<TextAnswer> {
        let format: RulesFormat = input.format.as_deref().unwrap_or("").parse()?;
        Ok(TextAnswer {
            text: space.rules().read(format)?,
        })
    }

    fn text(output: &TextAnswer) -> String {
        output.text.clone()
    }
}

/// `PUT /rules`: REST sends the file as the body (any bytes; the service checks UTF-8).
pub struct RulesPut;

impl RulesPut {
    /// The write of `body` as the rules file.
    pub fn bytes(
        space: &Space,
        body: &[u8],
        message: Option<String>,
        if_match: Option<String>,
        caller: &Caller,
    ) -> Result<RulesWritten> {
        space
            .rules()
            .write(body, &caller.write_options(message, if_match))
    }
}

impl Operation for RulesPut {
    type Input = RulesWrite;
    type Output = RulesWritten;
    const META: Meta = Meta::write(
        "rules_write",
        AREA,
        "Replaces the rules file `.quire/rules.md` (raw markdown, at most 256 KiB; one commit)",
    )
    .rest(Rest::put("/rules").raw_body("text", "text/markdown"));

    fn run(space: &Space, input: RulesWrite, caller: &Caller) -> Result<RulesWritten> {
        RulesPut::bytes(
            space,
            input.text.as_bytes(),
            input.message,
            input.if_match,
            caller,
        )
    }
}

/// `GET /theme`.
pub struct ThemeGet;

impl Operation for ThemeGet {
    type Input = NoInput;
    type Output = Theme;
    const META: Meta = Meta::read(
        "theme",
        AREA,
        "The web UI's theme (the default when none was set)",
    )
    .rest(Rest::get("/theme"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Theme> {
        space.theme().read()
    }
}

/// `PUT /theme`.
pub struct ThemePut;

impl Operation for ThemePut {
    type Input = Theme;
    type Output = Theme;
    const META: Meta = Meta::write(
        "theme_write",
        AREA,
        "Sets the web UI's theme (`.quire/theme.json`, one commit); 403 while `[ui] theme_locked`",
    )
    .rest(Rest::put("/theme"));

    fn run(space: &Space, input: Theme, caller: &Caller) -> Result<Theme> {
        space
            .theme()
            .write(&input, &caller.write_options(None, None))
    }
}

/// `PUT /space/visibility` (admin): the REST adapter also applies it to the requests that
/// follow.
pub struct Visibility;

impl Visibility {
    /// The visibility `input` names.
    pub fn parse(input: &SpaceVisibility) -> Result<quire_config::Visibility> {
        input.visibility.trim().parse().map_err(|_| {
            Error::bad_request(format!(
                "visibility {:?} is not private, unlisted or public",
                input.visibility
            ))
        })
    }
}

impl Operation for Visibility {
    type Input = SpaceVisibility;
    type Output = SpaceVisibility;
    const META: Meta = Meta::admin(
        "space_visibility",
        "admin",
        "Sets who may browse the space; persisted in the space's configuration and applied at once",
    )
    .rest(Rest::put("/space/visibility"))
    .describe(
        "Sets who may browse the space (`private`, `unlisted` or `public`); persisted in the \
space's configuration (one commit by `X-Actor`) and applied at once. Needs an admin credential.",
    );

    fn run(space: &Space, input: SpaceVisibility, caller: &Caller) -> Result<SpaceVisibility> {
        let visibility = Visibility::parse(&input)?;
        space.set_visibility(visibility, &caller.write_options(None, None))?;
        Ok(SpaceVisibility {
            visibility: visibility.to_string(),
        })
    }
}

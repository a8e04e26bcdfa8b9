//! Link health and repair: broken links, orphans, fixing broken links, and moves made without
//! relinking.

use quire_api::mcp::NoInput;
use quire_api::{BrokenLinks, FixBrokenRequest, FixBrokenResult, Orphans, RawMoves};
use quire_service::{Result, Space};

use crate::{Caller, Meta, Operation, Rest, Visit};

const AREA: &str = "restructuring";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Broken>();
    v.op::<OrphanPages>();
    v.op::<FixBroken>();
    v.op::<RawMovesOp>();
}

/// `GET /links/broken`.
pub struct Broken;

impl Operation for Broken {
    type Input = NoInput;
    type Output = BrokenLinks;
    const META: Meta = Meta::read(
        "links_broken",
        AREA,
        "Every wiki link that resolves to no file, with the closest existing file (`match`)",
    )
    .rest(Rest::get("/links/broken"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<BrokenLinks> {
        Ok(space.repair().broken())
    }
}

/// `GET /links/orphans`.
pub struct OrphanPages;

impl Operation for OrphanPages {
    type Input = NoInput;
    type Output = Orphans;
    const META: Meta = Meta::read("links_orphans", AREA, "Pages no other page links to")
        .rest(Rest::get("/links/orphans"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Orphans> {
        Ok(space.repair().orphans())
    }
}

/// `POST /refactor/fix-broken`: `dry_run` in the body, or in the query (an empty body is
/// allowed).
pub struct FixBroken;

impl Operation for FixBroken {
    type Input = FixBrokenRequest;
    type Output = FixBrokenResult;
    const META: Meta = Meta::write(
        "fix_broken",
        AREA,
        "Rewrites broken wiki links to their best match; links with no match stay",
    )
    .rest(
        Rest::post("/refactor/fix-broken")
            .query_fields(&["dry_run"])
            .empty_body(),
    )
    .describe(
        "Rewrites broken wiki links to their best match (exact path, then a path suffix \
ignoring numeric folder prefixes such as `06-`, then the same file name); links with no match \
stay. Each fixed page is its own commit. `dry_run` (body, or query without a body) writes \
nothing.",
    );

    fn run(space: &Space, input: FixBrokenRequest, caller: &Caller) -> Result<FixBrokenResult> {
        space
            .repair()
            .fix_broken(input.dry_run, &caller.write_options(None, None))
    }
}

/// `GET /refactor/raw-moves`.
pub struct RawMovesOp;

impl Operation for RawMovesOp {
    type Input = NoInput;
    type Output = RawMoves;
    const META: Meta = Meta::read(
        "raw_moves",
        AREA,
        "Moves made without relinking whose old paths are still referenced, and a `relinks` \
manifest that repairs them",
    )
    .rest(Rest::get("/refactor/raw-moves"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<RawMoves> {
        space.repair().raw_moves()
    }
}

//! The wire types of quire: every request and response body of the service, with its serde
//! shape, its OpenAPI schema (`utoipa`) and its JSON Schema (`schemars`, for MCP tool inputs).
//!
//! REST, MCP and the command line speak these types; the service returns them. Nothing here
//! does I/O, and no type of the store or the index goes on the wire directly. A field's doc
//! comment is its description in both schemas.

pub mod admin;
pub mod backup;
pub mod canvas;
pub mod claims;
pub mod collab;
pub mod drafts;
pub mod error;
pub mod events;
pub mod files;
pub mod find;
pub mod health;
pub mod history;
pub mod import;
pub mod ingest;
pub mod insight;
pub mod mcp;
pub mod mount;
pub mod pages;
pub mod repair;
pub mod restructure;
pub mod script;
pub mod views;
pub mod webhooks;
pub mod workspace_edit;

pub use admin::{
    AuditEntry, AuditHook, Grant, NewSpace, Scope, SpaceList, SpaceRemoved, SpaceSummary,
    SpaceVisibility, TokenInfo,
};
pub use backup::{BackupRebase, BackupStatus, ReplayedCommit};
pub use canvas::{
    AutoLayoutRequest, Canvas, CanvasDeleted, CanvasEdge, CanvasLayoutInput, CanvasList,
    CanvasNode, CanvasOp, CanvasPatch, CanvasPatchInput, CanvasPatched, CanvasQueryInput,
    CanvasQueryResult, CanvasRead, CanvasWritten, GenerateCanvasRequest,
};
pub use claims::{Claim, ClaimList, ClaimRequest, ReleaseRequest, Released};
pub use collab::{
    Comment, CommentCreate, CommentDeleted, CommentPatch, CommentResolve, IdInput, NewComment,
    NewShare, Publication, Publications, PublishBulkRequest, PublishRequest, RulesInput,
    RulesWrite, RulesWritten, ShareLink, ShareRevoked, Theme, UiConfig, UiFeatures,
};
pub use drafts::{
    BoardCard, Draft, DraftCreate, DraftDiff, DraftDiscarded, DraftFile, DraftFileDelete,
    DraftFileDeleted, DraftFileWrite, DraftMerged, DraftPathInput, DraftRead, DraftSummary,
    DraftTreeInput, DraftWrite, DraftWritten, SchemaDocument, SchemaNameInput, SchemaRead,
    SchemaSave, Workflow, WorkflowAdvance, WorkflowAssign, WorkflowBoard, WorkflowDeleted,
    WorkflowList, WorkflowPage, WorkflowReorder, WorkflowReordered, WorkflowState,
    WorkflowTransition,
};
pub use error::{ErrorBody, ErrorCode};
pub use events::Event;
pub use files::{
    AppendResult, AssetResult, BulkFile, BulkRequest, BulkResult, BulkWritten, DeleteResult,
    Heading, ResolveLinksRequest, ResolvedLink, ResolvedLinks, Template, Templates, TreeNode,
    WriteResult,
};
pub use find::{
    AggregateRow, Backlink, CentralPage, Centrality, Communities, EmbeddedChunk, Embeddings, Graph,
    GraphAnalytics, GraphEdge, GraphNode, GraphPath, GraphWalk, MetaResults, PageMeta, QueryResult,
    Reindexed, SearchHit, SearchResults, SemanticResults, Suggestion, Suggestions, TopPage,
};
pub use health::{Health, ProtocolStatus, Ready, VectorHealth};
pub use history::{BlameLine, Change, ChangeAction, ChangesPage, VersionEntry};
pub use import::{
    redacted_dsn, ConnectionDeleted, ConnectionRun, ConnectionRunRequest, ConnectionSpec,
    ConnectionSyncRequest, ExportRequest, ExportText, ImportBrowse, ImportBrowseRequest,
    ImportConnection, ImportMapping, ImportPreview, ImportPreviewRequest, ImportRecord,
    ImportRequest, ImportResult, ImportRowError, ImportSource, ImportSources, ImportTable,
    ImportUpload, RunCredentials, SavedConnection, SavedConnections, SyncSchedule, SyncState,
    SyncStatus,
};
pub use ingest::{ClipRequest, ClipResult, IngestRequest, IngestResult, SplitMode};
pub use insight::{
    BrokenLink, Burst, ColdSpot, ContentGaps, Context, Contradiction, DayViews, DismissGap,
    Eligible, EligibleTask, EvalQuery, EvalQueryResult, EvalRequest, EvalScores, FailedSearches,
    GapDismissed, HealthDashboard, HealthOverview, HotSpot, IssueType, JanitorReport, MemoryReport,
    PageEngagement, PageEngagementEntry, PageHealth, PageIssue, PageViewCount, PageViews,
    QueryCount, RecentPage, SearchAnalytics, SearchEvaluation, SearchLogEntry, SearchTrends,
    SourceCount, Sources, StaleEntry, TrendDay, Velocity,
};
pub use mount::{
    MountDone, MountEntry, MountKind, MountListing, MountPath, MountRename, MountWrite,
    MountWritten,
};
pub use pages::{
    JsonFeed, JsonFeedAuthor, JsonFeedItem, LintIssue, LintReport, LintRequest, Peek, PeekLink,
    Section, Timeline,
};
pub use repair::{
    BrokenLinks, BrokenWikiLink, FixBrokenRequest, FixBrokenResult, LinkFix, OrphanPage, Orphans,
    RawMoveEntry, RawMoves,
};
pub use restructure::{
    Applied, AppliedResult, ApplyRequest, Approval, ApproveRequest, Approved, Conflict,
    ConflictCode, ContentEdit, EditEntry, FileDiff, FromWorkspaceEdit, Integrity, LinkChange,
    Manifest, MergeEntry, MoveEntry, Orphan, PageEdit, PathChange, PendingApproval, PendingList,
    Plan, PlanAnswer, Rejected, RenameDirRequest, RenameRequest, Renamed, RenamedDir, Replace,
    RevertAnswer, RevertRequest, ScriptRequest, ScriptResponse, Select, SplitEntry, SplitResult,
    StateChange, Stats, TagRename, TextRange, UnresolvedLink,
};
pub use views::{View, ViewDeleted, ViewGroup, ViewLayout, ViewList, ViewRefresh, ViewResult};
pub use webhooks::{DeliveryState, Webhook, WebhookDelivery, WebhookPayload, WebhookRequest};
pub use workspace_edit::{
    workspace_edit, IncomingChange, IncomingFileOperation, WorkspaceEdit, WorkspaceEditPlan,
    WorkspaceEditRequest,
};

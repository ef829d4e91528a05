//! The review pane's disk work, run off the UI thread as `Job::Review`: building the queue,
//! reading an item's diff, planning verdicts and merges, applying them, saving edits and undo.
//! Each job answers with one `Outcome`, which `review::update::outcome` folds into the model.
use std::sync::Arc;

use crate::app::tree::built::Catalog;
use folio_core::store::keep::refresh::RefreshReport;
use folio_core::store::lint::near_duplicate;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::read::body_text;
use folio_core::store::read::frontmatter;
use folio_core::store::review::{self, Plan, QueueItem, ReviewError, Reviewer, Verdict, diff};
use folio_core::store::write::changeset::{Applied, Changeset, WriteError, WriteOptions};
use folio_core::store::{Store, model::digest, write::audit, write::undo};

/// What an edit starts from: the entity's text and where it sits in its file.
#[derive(Debug, Clone)]
pub struct EditSeed {
    pub id: String,
    pub path: String,
    /// The whole file as read, and its digest (the conflict check on save).
    pub file_text: String,
    pub file_digest: String,
    /// The entity's byte range in the file.
    pub span: std::ops::Range<usize>,
    /// For a merge editor: the entity folded into this one (its body is pre-filled).
    pub merge_from: Option<(EntityIdx, String)>,
    pub merge_into: Option<EntityIdx>,
    /// The pre-filled body of a merge (both texts).
    pub merged_body: Option<String>,
}

impl EditSeed {
    pub fn entity_text(&self) -> &str {
        self.file_text.get(self.span.clone()).unwrap_or(&self.file_text)
    }

    /// The file with the entity's text replaced.
    pub fn file_with(&self, entity_text: &str) -> String {
        let mut out = self.file_text.clone();
        if self.file_text.get(self.span.clone()).is_some() {
            out.replace_range(self.span.clone(), entity_text);
            out
        } else {
            entity_text.to_string()
        }
    }
}

/// The near-duplicate of a queue item and what the two share.
#[derive(Debug, Clone, Default)]
pub struct Duplicate {
    pub idx: EntityIdx,
    pub id: String,
    pub text: String,
    /// Stems of the content words both texts hold (`near_duplicate::content_stems`).
    pub shared: std::collections::HashSet<String>,
}

/// The detail of the selected queue item.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    pub id: String,
    /// Word diff against the last approved version, when its text is kept.
    pub diff: Option<Vec<(diff::Op, String)>>,
    /// What the detail says above the diff or the whole text: changes since the approval, an
    /// approval whose text is not kept (by whom, when), or never approved (`review::since`).
    pub heading: String,
    /// The whole text (shown when the item was never approved).
    pub text: String,
    /// For a contradiction: the other entity's id and text, shown side by side.
    pub other: Option<(String, String)>,
    /// For a near-duplicate: the other entity, side by side, with the words both say.
    pub duplicate: Option<Duplicate>,
    /// The promotion the item asks for, in words.
    pub promotion: Option<String>,
}

/// What lint says of the store the queue is built for.
pub enum QueueLint {
    /// The lint pane's report of this store.
    Report(Arc<folio_core::store::lint::Report>),
    /// A lint pass is under way: the queue is built without lint's reasons, to show at once,
    /// and built again when the pass ends.
    Pending,
    /// No report at hand: the job lints the store itself.
    Own,
}

pub enum ReviewJob {
    /// The inbox of the store, reported in batches as it is built (`stream_queue`);
    /// `generation` tells its batches from those of a build asked for earlier.
    Queue {
        store: Arc<Store>,
        lint: QueueLint,
        generation: u64,
        /// Report batches as they are built (the inbox shows nothing yet); else the whole
        /// queue at once, merged here rather than on the UI thread.
        stream: bool,
    },
    /// A replaced queue, dropped off the UI thread (100k items free a million strings).
    Discard(Vec<QueueItem>),
    Detail(Arc<Store>, Box<QueueItem>),
    Plan {
        store: Arc<Store>,
        targets: Vec<EntityIdx>,
        verdict: Verdict,
        by: String,
        /// A veto or forget leaves a stub where a removed file was (`review::stub`).
        stubs: bool,
    },
    /// Record the selection as reviewed as it stands (`review::baseline`).
    Baseline {
        store: Arc<Store>,
        selection: review::baseline::Selection,
        scope: String,
        by: String,
    },
    Merge {
        store: Arc<Store>,
        from: EntityIdx,
        into: EntityIdx,
        body: Option<String>,
        by: String,
    },
    /// `catalog`: the filter and tree shown, for the tree of the store after the write (`Written::tree`).
    Apply {
        store: Arc<Store>,
        plan: Box<Plan>,
        catalog: Catalog,
    },
    OpenEditor {
        store: Arc<Store>,
        idx: EntityIdx,
        then_approve: bool,
        external: bool,
    },
    OpenMerge {
        store: Arc<Store>,
        from: EntityIdx,
        into: EntityIdx,
    },
    Save {
        store: Arc<Store>,
        seed: Box<EditSeed>,
        entity_text: String,
        by: String,
        catalog: Catalog,
    },
    /// "Edit, then approve": the edit and the approval planned as one change (nothing written).
    EditApprove {
        store: Arc<Store>,
        seed: Box<EditSeed>,
        edits: Box<crate::app::review::editor::Edits>,
        by: String,
        /// What the approval files the entity as, where its format asked.
        kind: Option<String>,
    },
    /// A possible contradiction confirmed: the format's own `contradicts` on both.
    ConfirmContradiction {
        store: Arc<Store>,
        a: EntityIdx,
        b: EntityIdx,
        by: String,
    },
    /// The undo dialog, as `by` would undo.
    PreviewUndo(Arc<Store>, String),
    Undo {
        store: Arc<Store>,
        by: String,
        /// When it is logged: the time its dialog showed.
        at: time::OffsetDateTime,
        catalog: Catalog,
    },
}

/// A plan as the confirm dialog shows it: the plan (its broken references already named in its
/// log event), the inbound references it touches, and the catalogs and log bytes it writes.
pub struct Planned {
    pub plan: Plan,
    pub impact: review::impact::Impact,
    pub preview: folio_core::store::write::preview::Preview,
}

/// Entities in the queue's first batch: it shows within a frame or two of opening the inbox;
/// each later batch is twice the one before (`hashes::inbox_in_batches`).
pub const FIRST_BATCH: usize = 500;

/// Build the queue of `store` in batches, each sent as an `Outcome::QueueBatch` as soon as it
/// is ready (`send` answers false when no one listens any more); the text facts of unchanged
/// files come from `cache`. Returns the cache's warnings.
pub fn stream_queue(
    store: &Store,
    lint: QueueLint,
    generation: u64,
    stream: bool,
    cache: Option<&folio_core::store::keep::cache::Cache>,
    send: &mut dyn FnMut(Outcome) -> bool,
) -> Vec<String> {
    use folio_core::store::keep::cache::{hashes, profiles};
    use folio_core::store::lint::{LintConfig, Report};
    let provisional = matches!(lint, QueueLint::Pending);
    // The pairs and model findings of the last pass over an unchanged store, as `review list`
    // takes them (`lint_memo`).
    let own_lint = || {
        let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
        let memo = folio_core::store::keep::cache::lint_memo::Memo::new(cache, store);
        let profiles = || profiles::open(cache, store).0;
        let report = folio_core::store::lint::lint_remembering(store, &config, &profiles, &memo);
        memo.save();
        report
    };
    // Not streamed: one batch of every entity.
    let first = if stream { FIRST_BATCH } else { usize::MAX };
    let report = match lint {
        QueueLint::Report(r) => r,
        QueueLint::Pending => Arc::new(Report::default()),
        // A first build linted here: the list streams without lint's reasons while lint runs
        // beside it (seconds at 100k from a cold memo), then the whole queue replaces it.
        QueueLint::Own if stream => {
            return hashes::inbox_while_linting(cache, store, first, &own_lint, &mut |b, provisional| {
                send(Outcome::QueueBatch { generation, items: b.items, done: b.done, total: b.total, provisional })
            });
        }
        QueueLint::Own => Arc::new(own_lint()),
    };
    hashes::inbox_in_batches(cache, store, &report, first, &mut |b| {
        send(Outcome::QueueBatch { generation, items: b.items, done: b.done, total: b.total, provisional })
    })
}

/// The impact and preview of a plan (background work: reads the catalogs and the log).
fn planned(store: &Store, plan: Result<Plan, String>) -> Outcome {
    Outcome::Planned(plan.map(|plan| {
        let (plan, impact, preview) = review::impact::prepare(store, plan);
        Box::new(Planned { plan, impact, preview })
    }))
}

/// What a plan, save or undo did, with the store reloaded after it.
pub struct Written {
    pub store: Box<Store>,
    pub report: RefreshReport,
    pub message: String,
    /// The files written, with the digest of their bytes now (folio's own writes).
    pub own: Vec<crate::app::platform::own_writes::Fingerprint>,
    pub tree: Option<Box<crate::app::tree::built::BuiltTree>>,
}

pub enum Outcome {
    /// A batch of the queue being built: its items (in queue order, to merge into those before),
    /// the entities looked at so far of `total`, and whether lint's reasons are left out.
    QueueBatch {
        generation: u64,
        items: Vec<QueueItem>,
        done: usize,
        total: usize,
        provisional: bool,
    },
    Detail(Box<Detail>),
    /// A replaced queue was dropped (nothing to fold in).
    Discarded,
    /// A plan to show in a confirm dialog, with its impact and what the write adds.
    Planned(Result<Box<Planned>, String>),
    /// The undo dialog: its title, its lines (diff, catalogs, log bytes) and the time it logs at.
    UndoPreview(Result<(String, Vec<String>, time::OffsetDateTime), String>),
    EditorReady {
        seed: Result<Box<EditSeed>, String>,
        then_approve: bool,
        external: bool,
    },
    Written(Result<Box<Written>, Failure>),
    /// `$EDITOR` finished: the new entity text, or None when nothing changed.
    ExternalDone {
        seed: Box<EditSeed>,
        result: Result<Option<String>, String>,
    },
}

impl Outcome {
    /// A short name for the frame log's trigger column.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::QueueBatch { done, total, .. } if done >= total => "queue-done",
            Outcome::QueueBatch { .. } => "queue-batch",
            Outcome::Detail(_) => "review-detail",
            Outcome::Discarded => "review-discarded",
            Outcome::Planned(_) => "review-planned",
            Outcome::UndoPreview(_) => "review-undo-preview",
            Outcome::EditorReady { .. } => "review-editor",
            Outcome::Written(_) => "review-written",
            Outcome::ExternalDone { .. } => "review-edited",
        }
    }
}

/// Why a write did not happen; a conflict carries both versions as a diff.
#[derive(Debug, Clone)]
pub struct Failure {
    pub message: String,
    pub conflict_diff: Option<String>,
    /// The file that changed on disk meanwhile (re-read so the queue shows the agent's version).
    pub conflict_path: Option<String>,
}

impl From<ReviewError> for Failure {
    fn from(e: ReviewError) -> Self {
        match e {
            ReviewError::Write(w) => w.into(),
            other => Failure { message: other.to_string(), conflict_diff: None, conflict_path: None },
        }
    }
}

impl From<WriteError> for Failure {
    fn from(e: WriteError) -> Self {
        let conflict_path = match &e {
            WriteError::Conflict { path, .. } => Some(path.clone()),
            _ => None,
        };
        Failure { conflict_diff: e.conflict_diff(), message: e.to_string(), conflict_path }
    }
}

pub fn run(job: ReviewJob) -> Outcome {
    match job {
        // Built in batches by `stream_queue`; run here (tests calling `run`), it ends in its
        // last batch, the whole queue.
        ReviewJob::Queue { store, lint, generation, stream } => {
            let mut all: Vec<QueueItem> = Vec::new();
            let mut last = None;
            stream_queue(&store, lint, generation, stream, None, &mut |o| {
                if let Outcome::QueueBatch { items, done, total, provisional, .. } = o {
                    // The whole queue after a provisional list (`inbox_while_linting`)
                    // replaces it, as it does on screen.
                    if last.is_some_and(|(_, _, was)| was && !provisional) {
                        all.clear();
                    }
                    review::queue::merge(&mut all, items);
                    last = Some((done, total, provisional));
                }
                true
            });
            let (done, total, provisional) = last.unwrap_or((0, 0, false));
            Outcome::QueueBatch { generation, items: all, done, total, provisional }
        }
        ReviewJob::Discard(items) => {
            drop(items);
            Outcome::Discarded
        }
        ReviewJob::Detail(store, item) => Outcome::Detail(Box::new(detail(&store, &item))),
        ReviewJob::Plan { store, targets, verdict, by, stubs } => {
            let reviewer = Reviewer::now(&by);
            // Hidden content is confirmed a second time in the dialog before this plan applies.
            let plan = if stubs {
                review::verdict::plan_leaving_stubs(&store, &targets, &verdict, &reviewer, true)
            } else {
                review::verdict::plan(&store, &targets, &verdict, &reviewer, true)
            };
            planned(&store, plan.map_err(|e| e.to_string()))
        }
        ReviewJob::Baseline { store, selection, scope, by } => {
            let plan = review::baseline::plan(&store, &selection, &Reviewer::now(&by), &scope);
            planned(&store, plan.map_err(|e| e.to_string()))
        }
        ReviewJob::Merge { store, from, into, body, by } => {
            let plan = review::merge::plan(&store, from, into, body.as_deref(), &Reviewer::now(&by));
            planned(&store, plan.map_err(|e| e.to_string()))
        }
        ReviewJob::ConfirmContradiction { store, a, b, by } => {
            let plan = review::contradiction::confirm(&store, a, b, &Reviewer::now(&by));
            planned(&store, plan.map_err(|e| e.to_string()))
        }
        ReviewJob::Apply { store, plan, catalog } => {
            // The status bar names what was decided and what was written where: `approve
            // apis/refunds-v2: approved · wrote apis/refunds-v2.md · logged to log.md`.
            let verb = match plan.decisions.as_slice() {
                [one] => format!("{} {}", plan.verb, one.entity),
                many => format!("{} {} entities", plan.verb, many.len()),
            };
            let summary = plan.event.summary.clone();
            let decided = !plan.decisions.is_empty();
            let result = plan.apply(&store, &WriteOptions::default()).map_err(Failure::from);
            let ledger = if decided { " · recorded in the review ledger" } else { "" };
            Outcome::Written(result.map(|applied| {
                let message = format!("{verb}: {summary} · {}{ledger}", applied.summary());
                reloaded(&store, &applied, message, &catalog)
            }))
        }
        ReviewJob::OpenEditor { store, idx, then_approve, external } => {
            Outcome::EditorReady { seed: seed(&store, idx).map(Box::new), then_approve, external }
        }
        ReviewJob::OpenMerge { store, from, into } => {
            let seed = merge_seed(&store, from, into).map(Box::new);
            Outcome::EditorReady { seed, then_approve: false, external: false }
        }
        ReviewJob::Save { store, seed, entity_text, by, catalog } => {
            Outcome::Written(save(&store, &seed, &entity_text, &by, &catalog))
        }
        ReviewJob::EditApprove { store, seed, edits, by, kind } => {
            planned(&store, super::edit_approve::plan(&store, &seed, &edits, &Reviewer::now(&by), kind))
        }
        ReviewJob::PreviewUndo(store, by) => Outcome::UndoPreview(undo_dialog(&store, &by).map_err(|e| e.to_string())),
        ReviewJob::Undo { store, by, at, catalog } => {
            let opts = WriteOptions { at: Some(at), ..Default::default() };
            let result = undo::undo(&store, &by, &opts).map_err(Failure::from);
            Outcome::Written(result.map(|applied| {
                // Files an undo removes (ones the change had created) are put back too: gone.
                // Short enough for the status line: the first file, then how many more.
                let back = match applied.files.as_slice() {
                    [one] => one.clone(),
                    [first, rest @ ..] => format!("{first} and {} more", rest.len()),
                    [] => "nothing".to_string(),
                };
                let message = format!("undone · put back {back} as they were · logged to {}", applied.log);
                reloaded(&store, &applied, message, &catalog)
            }))
        }
    }
}

/// The store after a write, refreshed on the files it touched (its catalogs and log too), and
/// its catalog tree (for the filter `catalog` shows) when that changed.
fn reloaded(store: &Store, applied: &Applied, message: String, catalog: &Catalog) -> Box<Written> {
    let files = &applied.files;
    let mut touched: Vec<String> = files.iter().chain(&applied.catalogs).cloned().collect();
    touched.extend((!applied.log.is_empty()).then(|| applied.log.clone()));
    let abs: Vec<_> = touched.iter().map(|f| store.abs_path(f)).collect();
    // A verdict's write already laid its writes over the store (for the ledger): start there.
    let (fresh, mut report) = match &applied.overlaid {
        Some(after) => after.refreshed(&abs),
        None => store.refreshed(&abs),
    };
    for f in files {
        if !report.changed.contains(f) && !report.added.contains(f) && !report.removed.contains(f) {
            report.changed.push(f.clone());
        }
    }
    let own = crate::app::platform::own_writes::fingerprints(&store.root, &touched);
    let tree = crate::app::tree::built::beside(store, &fresh, catalog);
    Box::new(Written { store: Box::new(fresh), report, message, own, tree })
}

/// The undo dialog: the catalogs it regenerates and the log bytes of its event, then the
/// diff of the files it restores and of those catalogs.
fn undo_dialog(store: &Store, by: &str) -> Result<(String, Vec<String>, time::OffsetDateTime), WriteError> {
    let (record, diff) = undo::preview(store)?;
    let at = audit::now();
    let extra = undo::preview_extra(store, by, at)?;
    let mut lines = extra.lines();
    lines.push(String::new());
    lines.extend(diff.lines().map(str::to_string));
    lines.extend(extra.catalog_diff().lines().map(str::to_string));
    Ok((undo_title(store, &record), lines, at))
}

/// The undo dialog's title names what it gives back: the entities living in the restored files
/// by title ("undo approve of POST /v2/refunds (apis/refunds-v2): approved"), before files that
/// hold none or several (a `.gitattributes` the change created).
fn undo_title(store: &Store, record: &undo::Record) -> String {
    use folio_core::store::write::journal::Role;
    let mut entities: Vec<String> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    for e in record.entries.iter().filter(|e| matches!(e.role, Role::Edit)) {
        let mut living = store.entities.iter().filter(|x| x.path == e.path);
        match (living.next(), living.next()) {
            (Some(one), None) if !one.title.trim().is_empty() && one.title != one.id => {
                entities.push(format!("{} ({})", one.title, one.id))
            }
            (Some(one), None) => entities.push(one.id.clone()),
            _ => files.push(e.path.as_str()),
        }
    }
    let names: Vec<&str> = entities.iter().map(String::as_str).chain(files).collect();
    let what = match names.as_slice() {
        [] => String::new(),
        [one] => format!(" of {one}"),
        [a, b] => format!(" of {a} and {b}"),
        [a, rest @ ..] => format!(" of {a} and {} more", rest.len()),
    };
    format!("undo {}{what}: {}", record.verb, record.summary)
}

fn detail(store: &Store, item: &QueueItem) -> Detail {
    let text = store.read_entity_text(item.idx).unwrap_or_default();
    let since = folio_core::store::review::since::since_approval(store, item);
    let heading = since.heading();
    let diff = match since {
        folio_core::store::review::since::SinceApproval::Changes { ops, .. } => Some(ops),
        _ => None,
    };
    let fields = store.fields(item.idx).unwrap_or_default();
    let other = frontmatter::get_list(&fields, "contradicts").into_iter().find_map(|id| {
        let i = store.find(&id)?;
        Some((store.entity(i).id.clone(), store.read_entity_text(i).ok()?))
    });
    let duplicate = item.duplicate_of.filter(|_| other.is_none()).and_then(|o| {
        let other_text = store.read_entity_text(o).ok()?;
        let mine = near_duplicate::content_stems(&body_text::compared_text(store, item.idx));
        let theirs = near_duplicate::content_stems(&body_text::compared_text(store, o));
        let shared = mine.intersection(&theirs).cloned().collect();
        Some(Duplicate { idx: o, id: store.entity(o).id.clone(), text: other_text, shared })
    });
    Detail { id: item.id.clone(), diff, heading, text, other, duplicate, promotion: promotion(store, item) }
}

/// The promotion an item asks for, from the dialect's own ladder (docs/review.md, "Per format").
fn promotion(store: &Store, item: &QueueItem) -> Option<String> {
    let evidence = format!("evidence {}, sources {}", item.evidence, item.sources);
    let step = store.kind().format().promotion_step(item.status.as_deref().unwrap_or(""))?;
    // Where an approval files it, when folio infers a section (awareness): `a` `y` files it there.
    let filing = store.kind().format().review().approve_filing(store, item.idx);
    let inferred = filing.and_then(|f| f.inferred.and_then(|(i, _)| f.choices.get(i).map(|c| c.section.clone())));
    match inferred {
        Some(section) => Some(format!("{step} under {section}, inferred ({evidence})")),
        None => Some(format!("{step} ({evidence})")),
    }
}

fn seed(store: &Store, idx: EntityIdx) -> Result<EditSeed, String> {
    let e = store.entity(idx);
    if e.escapes_root() {
        return Err(format!("{}: leads outside the store; folio does not edit it", e.path));
    }
    let bytes = store.storage().read(&e.path).map_err(|err| format!("{}: {err}", e.path))?;
    if memchr::memchr(0, &bytes).is_some() {
        return Err(format!("{}: binary content; folio does not edit it", e.path));
    }
    let file_text =
        String::from_utf8(bytes.clone()).map_err(|_| format!("{}: not valid UTF-8; folio does not edit it", e.path))?;
    let span = e.span.start as usize..(e.span.end as usize).min(file_text.len());
    Ok(EditSeed {
        id: e.id.clone(),
        path: e.path.clone(),
        file_digest: digest::of(&bytes),
        file_text,
        span,
        merge_from: None,
        merge_into: None,
        merged_body: None,
    })
}

/// The merge editor: INTO's file, its body pre-filled with both texts (INTO's, then FROM's).
fn merge_seed(store: &Store, from: EntityIdx, into: EntityIdx) -> Result<EditSeed, String> {
    let mut s = seed(store, into)?;
    let a_text = store.read_entity_text(from).map_err(|e| e.to_string())?;
    let a = store.entity(from);
    let own = body_of(s.entity_text()).trim_end().to_string();
    let theirs = body_of(&a_text).trim();
    s.merged_body = Some(format!("{own}\n\n{}", review::merge::merged_section(&a.title, theirs, "\n")));
    s.merge_from = Some((from, a.id.clone()));
    s.merge_into = Some(into);
    Ok(s)
}

/// The text after the frontmatter block (all of it when there is none).
pub fn body_of(text: &str) -> &str {
    match frontmatter::locate(text) {
        frontmatter::Block::Closed { body_start, .. } => &text[body_start.min(text.len())..],
        _ => text,
    }
}

fn save(
    store: &Store,
    seed: &EditSeed,
    entity_text: &str,
    by: &str,
    catalog: &Catalog,
) -> Result<Box<Written>, Failure> {
    let new_file = seed.file_with(entity_text);
    if new_file == seed.file_text {
        let message = format!("{}: nothing changed; nothing was written", seed.path);
        return Err(Failure { message, conflict_diff: None, conflict_path: None });
    }
    let title = store.find(&seed.id).map(|i| store.entity(i).title.clone()).unwrap_or_default();
    let event =
        audit::AuditEvent::new("edit", by, format!("edited `{}`", seed.id)).entity(&seed.id, &title, &seed.path);
    let cs = Changeset::new(event).replace(&seed.path, seed.file_digest.clone(), new_file.into_bytes());
    let applied = store.apply(cs, &WriteOptions::default())?;
    let message = format!("saved {} · {}", seed.path, applied.summary());
    Ok(reloaded(store, &applied, message, catalog))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_splices_entity_text_into_its_file() {
        let s = EditSeed {
            id: "a".into(),
            path: "a.md".into(),
            file_text: "- one\n- two\n- three\n".into(),
            file_digest: String::new(),
            span: 6..12,
            merge_from: None,
            merge_into: None,
            merged_body: None,
        };
        assert_eq!(s.entity_text(), "- two\n");
        assert_eq!(s.file_with("- 2\n"), "- one\n- 2\n- three\n");
        assert_eq!(body_of("---\nt: 1\n---\nbody\n"), "body\n");
        assert_eq!(body_of("no frontmatter\n"), "no frontmatter\n");
    }
}

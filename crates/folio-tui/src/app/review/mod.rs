//! The review pane: the inbox (queue, cursor, bulk filter, skipped items), the prompts (veto
//! reason, filter, promote target), the merge-target picker, confirm dialogs and the editors.
//! This file holds its state; `update` changes it, and disk work goes out as `jobs` whose
//! outcomes come back through `update::outcome`. The in-app `editor` and `edit_approve` (an
//! edit laid over an approval, one plan) are review's too.
use std::collections::HashSet;

use crate::app::action::Action;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::review::filing::Filing;
use folio_core::store::review::filter::Filter;
use folio_core::store::review::group::{Grouping, grouped};
use folio_core::store::review::{Plan, QueueItem};

pub mod edit_approve;
pub mod editor;
pub mod jobs;
pub mod update;

use jobs::Detail;

pub enum PromptKind {
    /// Who reviews ($USER unset, nothing remembered); `then` is the verdict key that asked.
    Reviewer {
        then: Action,
    },
    Veto {
        targets: Vec<EntityIdx>,
        /// What is vetoed, as the prompt names it (a title, or how many).
        what: String,
    },
    Filter,
    PromoteTo {
        target: EntityIdx,
        /// The sections an answer picks from, where the format promotes into one (awareness).
        filing: Option<Filing>,
    },
    /// What the approved entities are filed as, where their format files them under a section
    /// and cannot tell which (`ReviewRules::approve_filing`: an awareness candidate's);
    /// `question` is its words, `filing` the sections an answer picks from.
    ApproveKind {
        targets: Vec<EntityIdx>,
        question: String,
        filing: Filing,
        /// Asked by "edit, then approve": the answer opens the editor.
        then_edit: bool,
    },
}

/// A one-line question (typing goes into `text`; Enter answers, Esc drops it).
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

impl Prompt {
    pub fn label(&self) -> String {
        let label = match &self.kind {
            PromptKind::Veto { what, .. } => return format!("veto {what}: reason"),
            PromptKind::Reviewer { .. } => "who is reviewing? (your name, recorded as human:NAME; remembered)",
            PromptKind::Filter => "bulk filter (status: kind: reason: path: older:30d)",
            PromptKind::PromoteTo { filing: Some(f), .. } => {
                return format!("promote to ({}: a number or a name)", f.numbered());
            }
            PromptKind::PromoteTo { .. } => "promote to (empty: the dialect's next step)",
            PromptKind::ApproveKind { question, .. } => question,
        };
        label.to_string()
    }
}

/// The section an approval being confirmed files its targets under (`Tab` in the dialog
/// moves to the next one and plans again).
pub struct SectionChoice {
    pub targets: Vec<EntityIdx>,
    pub filing: Filing,
    pub current: usize,
    /// Asked by `p` (a promote to the section) rather than `a` (an approval filed there).
    pub promote: bool,
}

impl SectionChoice {
    pub fn kind(&self) -> Option<&str> {
        self.filing.choices.get(self.current).map(|c| c.kind.as_str())
    }

    /// The verdict that files the targets under the current section.
    pub fn verdict(&self) -> folio_core::store::review::Verdict {
        use folio_core::store::review::Verdict;
        let kind = self.kind().map(str::to_string);
        if self.promote { Verdict::Promote { to: kind } } else { Verdict::Approve { over: None, kind } }
    }
}

/// "Merge into…": the target, picked with fuzzy recall.
pub struct Picker {
    pub from: EntityIdx,
    /// Offered before anything is typed (and again when the query is cleared): the item's
    /// near-duplicate and same-title entities (`review::merge_candidates`).
    pub pairs: Vec<EntityIdx>,
    pub query: String,
    pub cursor: usize,
    pub hits: Vec<EntityIdx>,
}

/// What a confirm dialog applies.
pub enum Pending {
    Plan(Box<Plan>),
    /// An undo, logged at the time its dialog showed.
    Undo(time::OffsetDateTime),
    /// Only information (a conflict): confirming closes it.
    Nothing,
}

pub struct Confirm {
    pub title: String,
    pub lines: Vec<String>,
    pub pending: Pending,
    /// Approving content with hidden control characters: `y` must be pressed twice.
    pub needs_second: bool,
    pub scroll: usize,
    /// Opened by a prompt answered with Enter (a veto reason, a promote target): Enter does not
    /// apply it, so a second Enter cannot write a change the person never saw (`y` does).
    pub after_prompt: bool,
}

pub struct ReviewPane {
    pub open: bool,
    pub items: Vec<QueueItem>,
    /// The queue was built at least once for the current store (or its first batches shown).
    pub loaded: bool,
    /// The queue build whose batches are taken (`ReviewJob::Queue`'s `generation`); batches of
    /// an earlier one are dropped.
    pub generation: u64,
    /// The build under way, while its batches arrive.
    pub building: Option<Building>,
    /// The queue shown was built without lint's reasons (a lint pass was under way); the
    /// whole queue replaces it when the pass ends.
    pub provisional: bool,
    pub cursor: usize,
    pub detail: Option<Detail>,
    pub detail_scroll: usize,
    /// The bulk filter the queue is narrowed to (empty: everything).
    pub filter: String,
    /// Items gathered by author or agent run (`gb`); bulk verdicts then take the selected
    /// item's group.
    pub group: Option<Grouping>,
    /// Ids skipped in this session.
    pub skipped: HashSet<String>,
    pub prompt: Option<Prompt>,
    pub picker: Option<Picker>,
    pub confirm: Option<Confirm>,
    /// Command for `E` instead of $VISUAL/$EDITOR (tests).
    pub editor_command: Option<String>,
    /// Who decides (`human:$USER`), recorded in every audit event.
    pub actor: String,
    /// Where the answer to "who is reviewing?" is remembered (None: not remembered).
    pub reviewer_file: Option<std::path::PathBuf>,
    /// The plan being computed was asked for by a prompt (its dialog gets `after_prompt`).
    pub planning_from_prompt: bool,
    /// What the entity being edited then approved is filed as, when its format asked
    /// (`PromptKind::ApproveKind` answered before the editor opened).
    pub approve_kind: Option<String>,
    /// The targets and verdict of the plan shown last (`s` plans it again with stubs).
    pub last_request: Option<(Vec<EntityIdx>, folio_core::store::review::Verdict)>,
    /// The queue is rebuilt when the lint pass now running finishes, with its report (a
    /// second whole-store lint per live reload would cost far more than the reload itself).
    pub queue_after_lint: bool,
    /// The queue column's share of the inbox's width, in percent (`<`/`>` in the inbox).
    pub list_width: u16,
    /// The item the last verdict confirmed decided on (an undo brings it back).
    pub last_decided: Option<String>,
    /// The item the cursor goes back to when the queue is next rebuilt (after an undo).
    pub reselect: Option<String>,
    /// The section the approval being planned or confirmed files under, and the others.
    pub section: Option<SectionChoice>,
}

/// A queue build whose batches are arriving.
#[derive(Default)]
pub struct Building {
    /// Entities looked at so far, of `total`.
    pub done: usize,
    pub total: usize,
    /// The first build of the inbox: its batches go straight into the list, which grows as
    /// they come. A rebuild (after a verdict, a reload) gathers them in `incoming` and replaces
    /// the list once complete, so the list never shrinks to a first batch.
    pub streaming: bool,
    pub incoming: Vec<QueueItem>,
}

impl Default for ReviewPane {
    fn default() -> Self {
        ReviewPane {
            open: false,
            items: Vec::new(),
            loaded: false,
            generation: 0,
            building: None,
            provisional: false,
            cursor: 0,
            detail: None,
            detail_scroll: 0,
            filter: String::new(),
            group: None,
            skipped: HashSet::new(),
            prompt: None,
            picker: None,
            confirm: None,
            editor_command: None,
            actor: folio_core::store::write::audit::default_actor(),
            planning_from_prompt: false,
            approve_kind: None,
            reviewer_file: None,
            last_request: None,
            queue_after_lint: false,
            list_width: crate::app::settings::sidebar::INBOX_DEFAULT,
            last_decided: None,
            reselect: None,
            section: None,
        }
    }
}

impl ReviewPane {
    /// The items shown: the bulk filter applied, skipped ones left out, gathered by group when
    /// the inbox is grouped.
    pub fn visible(&self) -> Vec<&QueueItem> {
        // Every frame asks, for 100k items at a large store: nothing to leave out, nothing to test.
        if self.filter.is_empty() && self.skipped.is_empty() && self.group.is_none() {
            return self.items.iter().collect();
        }
        let filter = Filter::parse(&self.filter).unwrap_or_default();
        let shown: Vec<&QueueItem> =
            self.items.iter().filter(|i| !self.skipped.contains(&i.id) && filter.matches(i)).collect();
        match self.group {
            Some(by) => grouped(&shown, by).into_iter().flat_map(|(_, members)| members).collect(),
            None => shown,
        }
    }

    /// What a bulk verdict takes: every shown item, or the selected item's group when grouped.
    pub fn batch(&self) -> Vec<&QueueItem> {
        let visible = self.visible();
        match (self.group, visible.get(self.cursor)) {
            (Some(by), Some(selected)) => {
                let key = by.key(selected);
                visible.into_iter().filter(|i| by.key(i) == key).collect()
            }
            _ => visible,
        }
    }

    pub fn selected(&self) -> Option<&QueueItem> {
        // Nothing left out: the cursor's item, without listing 100k items to take one (each
        // key asked several times; the list's allocation and the allocator's consolidating
        // after it were a quarter of the UI thread's time in the inbox at 100k).
        if self.filter.is_empty() && self.skipped.is_empty() && self.group.is_none() {
            return self.items.get(self.cursor);
        }
        self.visible().get(self.cursor).copied()
    }
}

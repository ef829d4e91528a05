//! Every action a person can take: the one vocabulary of the keymap (`run = "…"`), the help
//! overlay, the `:` palette and the tests.

macro_rules! actions {
    ($($variant:ident = $name:literal : $desc:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Action { $($variant,)* }

        impl Action {
            pub const ALL: &'static [Action] = &[$(Action::$variant,)*];

            /// The keymap name (`run = "scroll_down"`).
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name,)* }
            }

            /// What it does, for help, hints and the palette.
            pub fn desc(self) -> &'static str {
                match self { $(Action::$variant => $desc,)* }
            }

            pub fn from_name(name: &str) -> Option<Action> {
                match name { $($name => Some(Action::$variant),)* _ => None }
            }
        }
    };
}

actions! {
    Quit = "quit": "Quit folio",
    Suspend = "suspend": "Suspend to the shell (fg resumes)",
    FocusNext = "focus_next": "Focus the next pane",
    FocusPrev = "focus_prev": "Focus the previous pane",
    FocusCatalog = "focus_catalog": "Focus the catalog tree",
    FocusPreview = "focus_preview": "Focus the preview",
    Up = "up": "Move up",
    Down = "down": "Move down",
    PageUp = "page_up": "Page up",
    PageDown = "page_down": "Page down",
    HalfPageUp = "half_page_up": "Half a page up",
    HalfPageDown = "half_page_down": "Half a page down",
    Top = "top": "Go to the top",
    Bottom = "bottom": "Go to the bottom",
    Expand = "expand": "Expand the group",
    Collapse = "collapse": "Collapse the group (or go to its parent)",
    Open = "open": "Open the entity / toggle the group",
    NextLink = "next_link": "Select the next link",
    PrevLink = "prev_link": "Select the previous link",
    FollowLink = "follow_link": "Follow the selected link",
    Back = "back": "Go back in history",
    Forward = "forward": "Go forward in history",
    Filter = "filter": "Filter the catalog (text, kind:, tag:, status:)",
    ClearFilter = "clear_filter": "Clear the catalog filter",
    CycleSort = "cycle_sort": "Sort by title, id or updated",
    Help = "help": "Show every key binding",
    Palette = "palette": "Run any action by name",
    Close = "close": "Close the top overlay",
    YankId = "yank_id": "Copy the entity id",
    YankPath = "yank_path": "Copy the entity's file path",
    YankLink = "yank_link": "Copy a wikilink to the entity",
    ShowProperties = "show_properties": "Show every property of the entity whole",
    SidebarWider = "sidebar_wider": "Widen the catalog sidebar",
    SidebarNarrower = "sidebar_narrower": "Narrow the catalog sidebar",
    YankProperty = "yank_property": "Copy the selected property's value",
    ToggleMouse = "toggle_mouse": "Turn mouse support on or off",
    CycleTheme = "cycle_theme": "Switch between dark, light and mono",
    Review = "review": "Open or close the review inbox",
    Approve = "approve": "Approve the selected item",
    ApproveOver = "approve_over": "Approve the item over the entity it contradicts (which it then supersedes)",
    Veto = "veto": "Veto the selected item (asks for a reason)",
    Forget = "forget": "Forget the selected item (out of the active set)",
    EditApprove = "edit_approve": "Edit the item in folio, then approve it",
    Merge = "merge": "Merge the item into another entity (fuzzy pick)",
    Promote = "promote": "Promote the item (maturity or kind)",
    Skip = "skip": "Skip the item for this session",
    NextTier = "next_tier": "Review: jump to the first item of the next need tier",
    SameAuthor = "same_author": "Review: only what the selected item's author wrote (then A, X or D takes them as one batch)",
    SameSession = "same_session": "Review: only what the selected item's agent run wrote (then A, X or D takes them as one batch)",
    GroupInbox = "group_inbox": "Review: group the inbox by author, then by agent run, then not",
    Undo = "undo": "Undo the last change folio made",
    BulkFilter = "bulk_filter": "Select queue items by filter (status:, kind:, older:30d…)",
    BulkApprove = "bulk_approve": "Approve every item the filter selects",
    BulkVeto = "bulk_veto": "Veto every item the filter selects",
    BulkForget = "bulk_forget": "Forget every item the filter selects",
    Baseline = "baseline": "Baseline: record every item the filter selects as reviewed as it stands (no file rewritten)",
    Edit = "edit": "Edit the entity in folio (fields and body)",
    EditExternal = "edit_external": "Edit the entity in $EDITOR",
    Save = "save": "Save the edit (conflict-checked changeset)",
    NextField = "next_field": "Next field of the editor",
    PrevField = "prev_field": "Previous field of the editor",
    Recall = "recall": "Find anything: fuzzy recall over the store",
    RecallSections = "recall_sections": "Recall: also match body sections (H2)",
    FocusGraph = "focus_graph": "Show the link graph of the open entity",
    FocusLint = "focus_lint": "Show the lint findings of the store",
    FocusHistory = "focus_history": "Show the open entity's history (git commits, uncommitted change, log events)",
    Blame = "blame": "Show which version brought each line of the open entity (blame); again: the versions",
    MarkVersion = "mark_version": "History: compare the selected version with this one (again: with the one before it)",
    RestoreVersion = "restore_version": "History: restore the selected version (shows the diff first; u undoes it)",
    DiffDown = "diff_down": "History: scroll the diff down a line (in blame: the next line)",
    DiffUp = "diff_up": "History: scroll the diff up a line (in blame: the line before)",
    DiffPageDown = "diff_page_down": "History: scroll the diff down a page (in blame: the lines)",
    DiffPageUp = "diff_page_up": "History: scroll the diff up a page (in blame: the lines)",
    DiffHalfPageDown = "diff_half_page_down": "History: scroll the diff down half a page (in blame: the lines)",
    DiffHalfPageUp = "diff_half_page_up": "History: scroll the diff up half a page (in blame: the lines)",
    NextChange = "next_change": "History: show the diff's next change",
    PrevChange = "prev_change": "History: show the diff's previous change",
    SwitchSide = "switch_side": "Graph: switch between backlinks and outbound links",
    DepthUp = "depth_up": "Graph: draw one hop more (up to 3)",
    DepthDown = "depth_down": "Graph: draw one hop less",
    ExportGraph = "export_graph": "Graph: export the neighbourhood as DOT to .folio/exports",
    GroupBy = "group_by": "Lint: group findings by rule or by file",
    FilterSeverity = "filter_severity": "Lint: show all, errors, warnings or infos",
    FilterRule = "filter_rule": "Lint: only the selected finding's rule (again: all)",
    FilterKind = "filter_kind": "Lint: only findings on the selected entity's kind (again: all)",
    ApplyFix = "apply_fix": "Lint: apply the selected finding's safe fix (shows the diff)",
    FixRule = "fix_rule": "Lint: fix every finding of the selected rule (shows the diff)",
    IgnoreFinding = "ignore_finding": "Lint: ignore the finding's rule on its entity (asks for a reason); inbox: dismiss the item's possible contradiction",
    UnignoreFinding = "unignore_finding": "Lint: stop ignoring the selected ignored finding",
    ConfirmContradiction = "confirm_contradiction": "Lint or inbox: confirm the selected possible contradiction (writes the format's contradicts on both)",
    ShowIgnored = "show_ignored": "Lint: show or hide the findings the store's config ignores",
    Confirm = "confirm": "Confirm the change shown (review verdict or lint fix)",
    LeaveStubs = "leave_stubs": "Veto/forget dialog: leave a stub where the file was, so links into it keep resolving",
    NextSection = "next_section": "Approve dialog of an awareness candidate: file it under the next section of the long-term memory",
    Noop = "noop": "Unbind the key (keymap overrides)",
}

/// The inbox verbs, as a pattern (`matches!(a, inbox_verbs!())`, or an arm of an exhaustive
/// `match`): they decide on the review queue's selection, so they need the inbox open. One list
/// for `review::update::handle`, which takes them, and `update::app_wide`, which leaves them alone.
macro_rules! inbox_verbs {
    () => {
        $crate::app::action::Action::Approve
            | $crate::app::action::Action::ApproveOver
            | $crate::app::action::Action::Veto
            | $crate::app::action::Action::Forget
            | $crate::app::action::Action::EditApprove
            | $crate::app::action::Action::Merge
            | $crate::app::action::Action::Promote
            | $crate::app::action::Action::Skip
            | $crate::app::action::Action::NextTier
            | $crate::app::action::Action::SameAuthor
            | $crate::app::action::Action::SameSession
            | $crate::app::action::Action::GroupInbox
            | $crate::app::action::Action::BulkFilter
            | $crate::app::action::Action::BulkApprove
            | $crate::app::action::Action::BulkVeto
            | $crate::app::action::Action::BulkForget
            | $crate::app::action::Action::Baseline
    };
}
pub(crate) use inbox_verbs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for &a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(a));
            assert!(!a.desc().is_empty());
        }
        let mut names: Vec<_> = Action::ALL.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Action::ALL.len());
        assert_eq!(Action::from_name("nope"), None);
    }
}

//! What review means in a plain vault: the log line is the verdict (`LogOnly`'s writes), and a
//! page whose `status:` asks for review (`draft`, `proposed`, …, as LLM wikis mark pages an
//! agent wrote) is queued for it, as the catalog marks it pending (issue 23).
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::Fields;
use crate::store::review::queue::Reason;
use crate::store::review::rules::ReviewRules;

pub struct VaultReview;

impl ReviewRules for VaultReview {
    /// A note with a warning callout, as Obsidian users mark a page that is gone.
    fn stub(&self, e: &Entity, why: &str, _at: &str) -> Option<String> {
        Some(crate::store::review::stub::page(&e.title, &[("status", "removed")], why, true))
    }

    fn queue_reasons(&self, e: &Entity, _f: &Fields) -> Vec<Reason> {
        match e.status.as_deref().map(str::to_lowercase).as_deref() {
            Some("draft") => vec![Reason::Draft],
            Some("proposed" | "candidate" | "pending" | "review" | "unreviewed" | "needs-review" | "tentative") => {
                vec![Reason::Candidate]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_that_ask_for_review_queue_the_page() {
        let page = |status: Option<&str>| Entity { status: status.map(Into::into), ..Default::default() };
        let f = Fields::default();
        assert_eq!(VaultReview.queue_reasons(&page(Some("proposed")), &f), [Reason::Candidate]);
        assert_eq!(VaultReview.queue_reasons(&page(Some("Draft")), &f), [Reason::Draft]);
        assert!(VaultReview.queue_reasons(&page(Some("mature")), &f).is_empty());
        assert!(VaultReview.queue_reasons(&page(None), &f).is_empty());
    }
}

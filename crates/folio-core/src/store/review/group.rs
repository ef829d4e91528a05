//! The inbox grouped by who wrote each item or the agent run that wrote it
//! (`review::authorship`): a reviewer takes "everything agent X wrote in its last run" as one
//! batch.
use serde::Serialize;

use super::queue::QueueItem;

/// How the inbox is grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grouping {
    Author,
    Session,
}

impl Grouping {
    pub fn parse(s: &str) -> Option<Grouping> {
        match s {
            "author" | "by" => Some(Grouping::Author),
            "session" | "run" => Some(Grouping::Session),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Grouping::Author => "author",
            Grouping::Session => "session",
        }
    }

    /// The group an item falls in (`(no author)` / `(no session)` when the format says none).
    pub fn key(self, item: &QueueItem) -> String {
        let value = match self {
            Grouping::Author => item.author.as_deref(),
            Grouping::Session => item.session.as_deref(),
        };
        value.map(str::to_string).unwrap_or_else(|| format!("(no {})", self.name()))
    }
}

/// `items` (in order of need) gathered by group: groups in the order of their most urgent item,
/// items keeping their order inside each.
pub fn grouped<'a>(items: &[&'a QueueItem], by: Grouping) -> Vec<(String, Vec<&'a QueueItem>)> {
    let mut groups: Vec<(String, Vec<&'a QueueItem>)> = Vec::new();
    for &item in items {
        let key = by.key(item);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(item),
            None => groups.push((key, vec![item])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_follow_their_most_urgent_item_and_keep_order_inside() {
        let item = |id: &str, author: Option<&str>| QueueItem {
            id: id.into(),
            author: author.map(str::to_string),
            ..Default::default()
        };
        let items = [item("a", Some("x")), item("b", None), item("c", Some("y")), item("d", Some("x"))];
        let refs: Vec<&QueueItem> = items.iter().collect();
        let groups = grouped(&refs, Grouping::Author);
        let shape: Vec<(String, Vec<&str>)> =
            groups.iter().map(|(k, v)| (k.clone(), v.iter().map(|i| i.id.as_str()).collect())).collect();
        assert_eq!(
            shape,
            vec![
                ("x".to_string(), vec!["a", "d"]),
                ("(no author)".to_string(), vec!["b"]),
                ("y".to_string(), vec!["c"])
            ]
        );
    }
}

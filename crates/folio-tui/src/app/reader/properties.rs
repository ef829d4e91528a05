//! An entity's properties as the preview lists them: label, whole value and the theme style it
//! is drawn in. The preview wraps each to a few rows; `K` shows them all whole and `y` there
//! copies the selected one.
use crate::app::model::Model;
use folio_core::store::Store;
use folio_core::store::model::entity::Entity;

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub label: &'static str,
    pub value: String,
    /// A theme style name.
    pub style: &'static str,
}

impl Property {
    /// The value as drawn: an id a reader could misread quoted (`id_as_shown`); `value` is
    /// what `y` copies.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        match self.label {
            "id" => folio_core::store::model::entity::id_as_shown(&self.value),
            _ => self.value.as_str().into(),
        }
    }
}

/// The non-empty properties of `e` and its id (even an empty one), in the preview's order.
pub fn of(store: &Store, e: &Entity) -> Vec<Property> {
    let (kind_label, status_label) = store.kind().spec().field_labels;
    let line = if e.line > 1 { format!(":{}", e.line) } else { String::new() };
    let status_style = if e.is_pending() { "pending" } else { "text" };
    let all = [
        ("id", e.id.clone(), "text"),
        ("path", format!("{}{line}", e.path), "text"),
        (kind_label, e.kind.as_deref().unwrap_or_default().to_string(), "accent"),
        (status_label, e.status.as_deref().unwrap_or_default().to_string(), status_style),
        ("confidence", e.confidence.map(|c| format!("{c:.2}")).unwrap_or_default(), "text"),
        ("created", e.created.as_deref().unwrap_or_default().to_string(), "text"),
        ("updated", e.updated.as_deref().unwrap_or_default().to_string(), "text"),
        ("tags", e.tags.iter().map(|t| format!("#{t}")).collect::<Vec<_>>().join(" "), "tag"),
        ("aliases", e.aliases.join(", "), "text"),
        ("sources", e.sources.join(", "), "text"),
        ("description", e.description.as_deref().unwrap_or_default().to_string(), "muted"),
    ];
    all.into_iter()
        // An id is always shown: `''` is one (opendray's key).
        .filter(|(label, value, _)| !value.is_empty() || *label == "id")
        .map(|(label, value, style)| Property { label, value, style })
        .collect()
}

/// The properties of the entity open in the preview (none when nothing is open).
pub fn of_open_entity(model: &Model) -> Vec<Property> {
    match (&model.store, model.open_entity()) {
        (Some(store), Some(idx)) => of(store, store.entity(idx)),
        _ => Vec::new(),
    }
}

/// At most `max` characters of `s`, with `…` when cut (for messages naming a value).
pub fn shortened(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

//! The in-app editor: the entity's frontmatter fields as a form (one line each) and its body as
//! text, both on ratatui-textarea. Saving turns the changed fields into surgical field edits
//! (`store::edit`, so untouched bytes survive) and the body into a replaced tail, giving the
//! entity's new text; the review jobs write it as one conflict-checked changeset.
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;
use serde_json::Value;

use super::jobs::{EditSeed, body_of};
use folio_core::store::dialect::{Grammar, parse_key_values, yaml_fields};
use folio_core::store::read::frontmatter::{self, Block};
use folio_core::store::write::edit::{self, FieldEdit};

/// One frontmatter key and its value as editable text.
pub struct FieldRow {
    pub key: String,
    pub original: String,
    pub input: TextArea<'static>,
}

pub struct Editor {
    pub seed: EditSeed,
    pub grammar: Grammar,
    pub fields: Vec<FieldRow>,
    pub body: TextArea<'static>,
    /// Index into `fields`; `fields.len()` is the body.
    pub focus: usize,
    /// Save, then plan an approval of the saved text (the inbox's "edit then approve").
    pub then_approve: bool,
    /// Why the last save attempt was refused (shown in the editor).
    pub error: Option<String>,
    /// Esc was pressed once over unsaved edits: a second Esc discards them.
    pub discard_armed: bool,
}

/// A value as one editable line: scalars as text, lists and maps as YAML flow (JSON).
fn value_text(v: &Value) -> String {
    match v {
        Value::Array(_) | Value::Object(_) => serde_json::to_string(v).unwrap_or_default(),
        other => frontmatter::scalar_text(other),
    }
}

fn text_area(text: &str) -> TextArea<'static> {
    TextArea::new(text.split('\n').map(str::to_string).collect())
}

impl Editor {
    pub fn new(seed: EditSeed, grammar: Grammar, then_approve: bool) -> Editor {
        let text = seed.entity_text();
        let fields = match (grammar, frontmatter::locate(text)) {
            (_, Block::Closed { .. }) if seed.merged_body.is_some() => Default::default(),
            (Grammar::Yaml, Block::Closed { .. }) => yaml_fields(text),
            (Grammar::KeyValue, Block::Closed { inner, .. }) => parse_key_values(&text[inner]),
            _ => Default::default(),
        };
        let fields = fields
            .iter()
            .map(|(k, v)| {
                let shown = value_text(v);
                FieldRow { key: k.clone(), input: text_area(&shown), original: shown }
            })
            .collect();
        let body_text = seed.merged_body.clone().unwrap_or_else(|| body_of(text).to_string());
        let body = text_area(body_text.strip_suffix('\n').unwrap_or(&body_text));
        Editor { seed, grammar, fields, body, focus: 0, then_approve, error: None, discard_armed: false }
    }

    pub fn is_merge(&self) -> bool {
        self.seed.merge_from.is_some()
    }

    pub fn focus_next(&mut self, forward: bool) {
        let n = self.fields.len() + 1;
        self.focus = if forward { (self.focus + 1) % n } else { (self.focus + n - 1) % n };
    }

    /// Type a key into the focused field; Enter in a one-line field moves to the next.
    pub fn input(&mut self, k: KeyEvent) {
        self.error = None;
        self.discard_armed = false;
        if self.focus < self.fields.len() {
            if k.code == KeyCode::Enter {
                self.focus_next(true);
                return;
            }
            self.fields[self.focus].input.input(k);
        } else {
            self.body.input(k);
        }
    }

    /// Paste text into the focused field (newlines only in the body).
    pub fn paste(&mut self, text: &str) {
        self.discard_armed = false;
        match self.fields.get_mut(self.focus) {
            Some(f) => {
                f.input.insert_str(text.replace(['\r', '\n'], " "));
            }
            None => {
                self.body.insert_str(text);
            }
        }
    }

    /// Something was typed that saving would write (a field, the body, the merged body).
    pub fn has_unsaved_edits(&self) -> bool {
        match &self.seed.merged_body {
            Some(merged) => self.body_text().trim_end_matches('\n') != merged.trim_end_matches('\n'),
            None => self.entity_text().as_deref() != Ok(self.seed.entity_text()),
        }
    }

    /// The body as typed (for a merge: the merged body).
    pub fn body_text(&self) -> String {
        let mut s = self.body.lines().join("\n");
        s.push('\n');
        s
    }

    /// The entity's new text: changed fields edited surgically, the body replaced.
    pub fn entity_text(&self) -> Result<String, String> {
        self.edits().apply_to(self.seed.entity_text())
    }

    /// What was typed, apart from the text it was typed over (to lay it over another version).
    pub fn edits(&self) -> Edits {
        let fields = self
            .fields
            .iter()
            .map(|f| (f.key.clone(), f.input.lines().join(" "), f.original.clone()))
            .filter(|(_, now, original)| now != original)
            .map(|(k, now, _)| (k, now))
            .collect();
        let body = self.body_text();
        let original_body = body_of(self.seed.entity_text());
        // An untouched body keeps its exact bytes (trailing newlines included).
        let unchanged = body.trim_end_matches('\n') == original_body.trim_end_matches('\n');
        Edits {
            path: self.seed.path.clone(),
            grammar: self.grammar,
            fields,
            body: (!unchanged).then(|| body.trim_end_matches('\n').to_string()),
        }
    }
}

/// The editor's changes: the fields typed (key, new value text) and the new body (None: as it
/// was), laid over an entity's text by `apply_to`.
#[derive(Debug, Clone)]
pub struct Edits {
    pub path: String,
    pub grammar: Grammar,
    pub fields: Vec<(String, String)>,
    pub body: Option<String>,
}

impl Edits {
    /// `base` (an entity's text) with the fields edited surgically and the body replaced; the
    /// body keeps the trailing newlines `base`'s body had (an entry line stays one line).
    pub fn apply_to(&self, base: &str) -> Result<String, String> {
        let path = &self.path;
        let mut text = base.to_string();
        for (key, now) in &self.fields {
            let value = match self.grammar {
                Grammar::KeyValue => Value::String(now.clone()),
                Grammar::Yaml if now.trim().is_empty() => Value::String(String::new()),
                Grammar::Yaml => serde_yaml_ng::from_str::<serde_yaml_ng::Value>(now)
                    .map(frontmatter::yaml_to_json)
                    .map_err(|e| format!("{path}: field `{key}`: not a YAML value ({e})"))?,
            };
            text = edit::apply(&text, self.grammar, &FieldEdit::set(key, value))
                .map_err(|e| format!("{path}: field `{key}`: {e}"))?;
        }
        if let Some(body) = &self.body {
            let start = text.len() - body_of(&text).len();
            let old = &text[start..];
            // An empty body after a frontmatter block: the new one ends its line like a file does.
            let trailing =
                if old.is_empty() && text.ends_with('\n') { "\n" } else { &old[old.trim_end_matches('\n').len()..] };
            let new_body = format!("{body}{trailing}");
            text.replace_range(start.., &new_body);
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn seed(text: &str) -> EditSeed {
        EditSeed {
            id: "a".into(),
            path: "a.md".into(),
            file_text: text.into(),
            file_digest: String::new(),
            span: 0..text.len(),
            merge_from: None,
            merge_into: None,
            merged_body: None,
        }
    }

    fn typed(ed: &mut Editor, s: &str) {
        for c in s.chars() {
            ed.input(KeyEvent::new(KeyCode::Char(c), KeyModifiers::empty()));
        }
    }

    #[test]
    fn untouched_edit_keeps_every_byte() {
        let text = "---\ntitle: \"A\"  # kept\ntags: [x, y]\n---\n# A\n\nbody\n\n";
        let ed = Editor::new(seed(text), Grammar::Yaml, false);
        assert_eq!(ed.fields.iter().map(|f| f.key.as_str()).collect::<Vec<_>>(), ["title", "tags"]);
        assert_eq!(ed.fields[1].original, "[\"x\",\"y\"]");
        assert_eq!(ed.entity_text().unwrap(), text);
        assert!(!ed.has_unsaved_edits());
    }

    #[test]
    fn field_and_body_edits_change_only_their_bytes() {
        let text = "---\ntitle: A  # kept\nstatus: draft\n---\nbody\n";
        let mut ed = Editor::new(seed(text), Grammar::Yaml, false);
        ed.focus = 1;
        ed.fields[1].input = text_area("");
        typed(&mut ed, "stable");
        ed.focus_next(true);
        assert_eq!(ed.focus, 2);
        ed.body.move_cursor(ratatui_textarea::CursorMove::End);
        typed(&mut ed, " more");
        assert_eq!(ed.entity_text().unwrap(), "---\ntitle: A  # kept\nstatus: stable\n---\nbody more\n");
        assert!(ed.has_unsaved_edits());
        ed.fields[0].input = text_area("[unclosed");
        assert!(ed.entity_text().unwrap_err().contains("a.md: field `title`"));
    }

    #[test]
    fn evolve_key_values_are_plain_text() {
        let text = "---\ntrigger: when x: y\n---\nDo it.\n";
        let mut ed = Editor::new(seed(text), Grammar::KeyValue, false);
        assert_eq!(ed.fields[0].original, "when x: y");
        ed.fields[0].input = text_area("when z: w");
        assert_eq!(ed.entity_text().unwrap(), "---\ntrigger: when z: w\n---\nDo it.\n");
    }
}

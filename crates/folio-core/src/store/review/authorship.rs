//! Who wrote an entity and in which agent run, from the fields its format records (the
//! inbox's author and session, `review::group` gathers by them): the key paths are the
//! format's own (`FormatSpec::author_fields`, `session_fields`).
use crate::store::dialect::spec::FormatSpec;
use crate::store::read::frontmatter::{self, Fields};

/// The first non-empty scalar at one of `paths` (each a key path into the fields).
fn first_of(f: &Fields, paths: &[&[&str]]) -> Option<String> {
    paths.iter().find_map(|p| {
        let mut v = f.get(p[0])?;
        for k in &p[1..] {
            v = v.get(k)?;
        }
        Some(frontmatter::scalar_text(v)).filter(|s| !s.trim().is_empty())
    })
}

/// Who wrote the entity.
pub fn author(spec: &FormatSpec, f: &Fields) -> Option<String> {
    first_of(f, spec.author_fields)
}

/// The agent run (session, trajectory, run id) that wrote the entity, where the format records
/// one. A trajectory path is shortened to its file name: the session is in it.
pub fn session(spec: &FormatSpec, f: &Fields) -> Option<String> {
    let found = first_of(f, spec.session_fields)?;
    Some(found.rsplit('/').next().unwrap_or(&found).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn author(f: &Fields) -> Option<String> {
        super::author(crate::store::dialect::vault::KIND.spec(), f)
    }

    fn session(f: &Fields) -> Option<String> {
        super::session(crate::store::dialect::vault::KIND.spec(), f)
    }

    fn fields(v: serde_json::Value) -> Fields {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn authors_and_runs_come_from_each_formats_fields() {
        assert_eq!(author(&fields(json!({"generated": {"by": "agent:scout"}}))).as_deref(), Some("agent:scout"));
        assert_eq!(author(&fields(json!({"type": "guideline", "owner": "ann"}))).as_deref(), Some("ann"));
        assert_eq!(author(&fields(json!({"title": "x"}))), None);
        let evolve = fields(json!({"trajectory": ".evolve/trajectories/trajectory_2026-04-27T16-17-15.json"}));
        assert_eq!(session(&evolve).as_deref(), Some("trajectory_2026-04-27T16-17-15.json"));
        let opendray = fields(json!({"provenance": {"source": "distiller", "session_id": "s-42"}}));
        assert_eq!(session(&opendray).as_deref(), Some("s-42"));
        assert_eq!(session(&fields(json!({"generated": {"by": "a", "run": "r7"}}))).as_deref(), Some("r7"));
        assert_eq!(session(&fields(json!({"session": "  "}))), None);
    }
}
